-- The `tests` helper schema, part 05: bookings (through the platform functions, never by writing
-- tables) (the index: README.md).

-- A complete, valid booking for platform.booking_record on lot p_lot_external_id: every key but
-- reference (generated), each in its stored form. A confirmed, paid three-day marketplace stay
-- 2026-03-10T08:00:00 → 2026-03-13T18:30:00. p_overrides merged over it key by key (a JSON null
-- stays a null member); the keys in p_without then removed.
CREATE FUNCTION tests.booking_body(p_lot_external_id text, p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS jsonb
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT (jsonb_build_object(
        'external_reference', 'OPS-1001',
        'lot_external_id', p_lot_external_id,
        'check_in_local', '2026-03-10T08:00:00',
        'check_out_local', '2026-03-13T18:30:00',
        'parking_days', 4,
        'status', 'confirmed',
        'payment_status', 'paid',
        'currency', 'EUR',
        'total', '48.50',
        'channel', 'marketplace',
        'flight_number', 'BA1234',
        'customer', jsonb_build_object('first_name', 'Ada', 'last_name', 'Lovelace',
                                       'email', 'ada@example.test', 'phone', '+44 20 7946 0000'),
        'vehicle_plates', jsonb_build_array('AB12 CDE'))
        || p_overrides) - p_without;
$$;

-- A booking recorded the platform's way: platform.booking_record as role platform_service; answers
-- its reference. A refusal propagates as raised.
CREATE FUNCTION tests.record_booking(p_operator uuid, p_booking jsonb)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_reference text;
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    v_reference := platform.booking_record(p_operator, p_booking);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_reference;
END
$$;

-- A booking changed the platform's way: platform.booking_update as role platform_service.
CREATE FUNCTION tests.update_booking(p_operator uuid, p_reference text, p_changes jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    PERFORM platform.booking_update(p_operator, p_reference, p_changes);
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- The stored row of an operator's booking, read as the superuser; a row of nulls when there is none.
CREATE FUNCTION tests.booking(p_operator uuid, p_reference text)
RETURNS app.bookings
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_booking app.bookings;
BEGIN
    PERFORM tests.act_as_superuser();
    SELECT * INTO v_booking FROM app.bookings AS b WHERE b.operator_id = p_operator AND b.reference = p_reference;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_booking;
END
$$;

-- GET /bookings the way the gateway calls it: api.bookings_get as role ingest_gateway, with a fresh
-- transaction's settings; answers (status, body). A refusal propagates as raised.
CREATE FUNCTION tests.get_bookings(p_bearer text, p_since text, p_limit integer, OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.bookings_get(p_bearer, p_since, p_limit) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- GET /bookings through a standby, the way the gateway calls it, each half as role ingest_gateway
-- with a fresh transaction's settings: the primary's read assertion for the bearer
-- (api.bookings_read_assertion), and the standby's page for an assertion
-- (api.bookings_get_standby). Refusals propagate as raised.
CREATE FUNCTION tests.read_assertion(p_bearer text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_assertion text;
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT a.body INTO v_assertion FROM api.bookings_read_assertion(p_bearer) AS a;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_assertion;
END
$$;

CREATE FUNCTION tests.get_bookings_standby(p_assertion text, p_since text, p_limit integer, p_max_lag_ms integer,
                                           OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.bookings_get_standby(p_assertion, p_since, p_limit, p_max_lag_ms) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- The bookings feed's watermark lag (the `bookings_watermark_lag` row of app.settings) set to p_lag
-- (an interval text: '0 seconds', '-1 hour', '5 minutes'), as the superuser. Like every write of a
-- test it lasts until the test's transaction rolls back.
CREATE FUNCTION tests.set_bookings_watermark_lag(p_lag text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_superuser();
    UPDATE app.settings SET value = p_lag WHERE name = 'bookings_watermark_lag';
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- A booking's feed position (changed_at) set to p_changed_at as the superuser, past the trigger that
-- stamps every write with the clock (session_replication_role `replica` for the one statement, then
-- as it was): how a test puts bookings at chosen points before or after the watermark. Nothing else
-- of the row changes. Answers whether the booking was found.
CREATE FUNCTION tests.restamp_booking(p_operator uuid, p_reference text, p_changed_at timestamptz)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_replication_role text := current_setting('session_replication_role');
    v_found boolean;
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('session_replication_role', 'replica', true);
    UPDATE app.bookings AS b SET changed_at = p_changed_at WHERE b.operator_id = p_operator AND b.reference = p_reference;
    v_found := FOUND;
    PERFORM set_config('session_replication_role', v_replication_role, true);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_found;
END
$$;

-- The payload half of a bookings cursor token (the text before the dot), base64url-decoded as UTF-8
-- text; NULL when it does not decode. Written apart from the code under test, to read what a token
-- carries.
CREATE FUNCTION tests.cursor_payload(p_token text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
AS $$
DECLARE
    v_half text := translate(split_part(p_token, '.', 1), '-_', '+/');
BEGIN
    RETURN convert_from(decode(v_half || repeat('=', (4 - length(v_half) % 4) % 4), 'base64'), 'UTF8');
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END
$$;

-- base64url without padding (RFC 4648 §5), the encoding of both halves of the service's signed
-- tokens (the cursor, the read assertion): written apart from the code under test, to make tokens
-- the service did not issue.
CREATE FUNCTION tests.base64url(p_bytes bytea)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT translate(encode(p_bytes, 'base64'), E'+/=\n', '-_');
$$;

-- The position a bookings cursor token names, read from its payload "1|<microseconds since
-- 1970>|<reference>": (changed_at, reference); nulls when the payload is not of that form.
CREATE FUNCTION tests.cursor_position(p_token text, OUT changed_at timestamptz, OUT reference text)
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT timestamptz 'epoch' + (m[1] || ' microseconds')::interval, m[2]
      FROM (SELECT regexp_match(tests.cursor_payload(p_token), '^1\|(-?[0-9]+)\|(.*)$') AS m) AS p;
$$;
