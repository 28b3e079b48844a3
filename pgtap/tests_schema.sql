-- The `tests` helper schema of the pgTAP layer, installed by pgtap/run.sh into the freshly migrated
-- test database (as the superuser), before the files of sql/tests run.
--
-- Every helper is a plain (SECURITY INVOKER) function without a SET clause, so that what it does to
-- the role and to the transaction-local settings stays in force for the caller, exactly as a `SET
-- LOCAL` in the test file would. Everything is PUBLIC: this is a throw-away test database, and a
-- test acting as `authenticated` or `ingest_gateway` must still reach its helpers.
--
-- Helpers that make or read data (make_operator, make_user, make_member, issue_credential, the
-- lot helpers put_lot, get_lots, lot, lot_count, listing_status, submit_lot, approve_lot,
-- make_lot_sell, the rates and closure helpers put_rates, put_blocked_periods, get_blocked_periods,
-- the booking helpers record_booking, update_booking, booking, and the feed helpers get_bookings,
-- set_bookings_watermark_lag, restamp_booking) may be called whatever role the test is acting as:
-- they step back to the session user (the superuser running pg_prove), or act as the role the real
-- caller has, for their work and restore the role, the operator context and the PostgREST settings
-- on the way out, so they never change what the test is acting as.
--
-- Names used in the settings, as the code under test reads them:
--   request.jwt.claims   PostgREST: the verified JWT claims, JSON
--   request.headers      PostgREST: the request headers, JSON, names lower-cased
--   app.operator_id      the operator context every row-level security policy reads
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION IF NOT EXISTS pgtap;

DROP SCHEMA IF EXISTS tests CASCADE;
CREATE SCHEMA tests;
GRANT USAGE ON SCHEMA tests TO PUBLIC;

-- The project's schemas: those its owner role owns (app, api, console, platform, webhook), the same
-- rule `ingest migrate` uses to find what the tree must define.
CREATE FUNCTION tests.project_schemas()
RETURNS regnamespace[]
LANGUAGE sql
STABLE
AS $$
    SELECT array_agg(oid::regnamespace ORDER BY nspname) FROM pg_namespace WHERE nspowner = 'ingest_owner'::regrole;
$$;

-- ------------------------------------------------------------------------------------------------
-- Acting as someone
-- ------------------------------------------------------------------------------------------------

-- What a test is acting as: the role and the settings the helpers below change. Internal to the
-- data-making helpers, which save it, step back to the superuser and restore it.
CREATE FUNCTION tests.acting_state()
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object(
        'role', current_setting('role'),
        'app.operator_id', coalesce(current_setting('app.operator_id', true), ''),
        'request.jwt.claims', coalesce(current_setting('request.jwt.claims', true), ''),
        'request.headers', coalesce(current_setting('request.headers', true), ''));
$$;

-- Put back what tests.acting_state() saved (transaction-local, like everything here).
CREATE FUNCTION tests.restore_acting_state(p_state jsonb)
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('app.operator_id', p_state ->> 'app.operator_id', true),
           set_config('request.jwt.claims', p_state ->> 'request.jwt.claims', true),
           set_config('request.headers', p_state ->> 'request.headers', true),
           set_config('role', p_state ->> 'role', true);
$$;

-- Step back to the session user (the superuser running the tests) with no operator context and no
-- PostgREST settings: what a test file starts as.
CREATE FUNCTION tests.act_as_superuser()
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('role', 'none', true),
           set_config('app.operator_id', '', true),
           set_config('request.jwt.claims', '', true),
           set_config('request.headers', '', true);
$$;

-- Act as a PostgREST request with these raw setting texts, byte for byte: for garbled or missing
-- claims and headers (NULL stands for a setting that is absent, which reads as the empty text).
-- Switches to role `authenticated` and starts with no operator context, as a fresh PostgREST
-- transaction does.
CREATE FUNCTION tests.act_as_console_raw(p_claims text, p_headers text)
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('app.operator_id', '', true),
           set_config('request.jwt.claims', coalesce(p_claims, ''), true),
           set_config('request.headers', coalesce(p_headers, ''), true),
           set_config('role', 'authenticated', true);
$$;

-- Act as a signed-in console user calling through PostgREST, exactly as PostgREST does it: the JWT
-- claims (sub, role, aal; aal left out when p_aal is NULL) in request.jwt.claims, the request headers
-- with the lower-cased `x-tenant-id` (left out when p_operator is NULL) in request.headers, and
-- `SET LOCAL ROLE authenticated`. Switching role from a plain function works; it lasts until the
-- end of the transaction or the next act_as_* call.
CREATE FUNCTION tests.act_as_console_user(p_user uuid, p_operator uuid, p_aal text DEFAULT 'aal1')
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_console_raw(
        json_strip_nulls(json_build_object('sub', p_user, 'role', 'authenticated', 'aal', p_aal))::text,
        json_strip_nulls(json_build_object('x-tenant-id', p_operator))::text);
$$;

-- Act as the gateway: its login role `ingest_gateway`, a fresh transaction with no operator context
-- and no PostgREST settings.
CREATE FUNCTION tests.act_as_gateway()
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_superuser(), set_config('role', 'ingest_gateway', true);
$$;

-- Lend TEMPORARY on this database to the project's roles for the rest of the calling test's
-- transaction (every test file ends in ROLLBACK, which takes it back). The migration grants it to no
-- role (sql/tests/22 checks that), but a test that keeps its fixtures in temporary tables and reads
-- or fills them while acting as `authenticated`, `ingest_gateway` or `platform_service` needs it:
-- without it the session's temporary schema is closed to them.
CREATE FUNCTION tests.lend_temporary_to_project_roles()
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO ingest_owner, ingest_gateway, authenticator, anon, '
                   'authenticated, platform_service, webhook_worker', current_database());
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Making data (through the platform and console functions, never by writing tables)
-- ------------------------------------------------------------------------------------------------

-- A new active operator, through platform.operator_create; returns its id. Its media folder (the
-- lot media rule's `<operator_folder>`) is p_media_folder, or by default the operator id as text.
CREATE FUNCTION tests.make_operator(
    p_name text DEFAULT 'Test operator',
    p_currency text DEFAULT 'EUR',
    p_media_folder text DEFAULT NULL)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_id uuid;
BEGIN
    PERFORM tests.act_as_superuser();
    v_id := platform.operator_create(p_name, p_currency, p_media_folder);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- A new sign-in user with a random id (the JWT `sub`), through platform.user_upsert; returns the id.
CREATE FUNCTION tests.make_user(p_two_step boolean DEFAULT false)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_id uuid := gen_random_uuid();
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM platform.user_upsert(v_id, 'user-' || v_id || '@test.invalid', p_two_step);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- A new user made a member of p_operator with p_role, through platform.member_set; returns the
-- user's id.
CREATE FUNCTION tests.make_member(
    p_operator uuid,
    p_role text DEFAULT 'owner',
    p_accepted boolean DEFAULT true,
    p_two_step boolean DEFAULT false)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_user uuid := tests.make_user(p_two_step);
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM platform.member_set(p_operator, v_user, p_role, p_accepted);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_user;
END
$$;

-- A new API credential of p_operator, issued the console way by a new owner (role authenticated,
-- PostgREST settings) through console.api_credential_issue; returns the whole Authorization value,
-- 'Bearer <key_id>.<secret>'.
CREATE FUNCTION tests.issue_credential(
    p_operator uuid,
    p_scopes text[] DEFAULT ARRAY['read_supply', 'write_supply', 'read_bookings'],
    p_expires_in_days integer DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_bearer text;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    SELECT 'Bearer ' || i.key_id || '.' || i.secret
      INTO STRICT v_bearer
      FROM console.api_credential_issue('test credential', p_scopes, p_expires_in_days) AS i;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_bearer;
END
$$;

-- A webhook endpoint for p_operator, registered the console way by a new owner through
-- console.webhook_endpoint_register; returns its id. The secret is `whsec_` + 64 hex of p_secret_byte.
CREATE FUNCTION tests.register_webhook(
    p_operator uuid,
    p_url text DEFAULT 'https://hooks.example.test/ingest',
    p_secret text DEFAULT 'whsec_' || repeat('ab', 32))
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_id uuid;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    SELECT r.id INTO STRICT v_id FROM console.webhook_endpoint_register(p_url, p_secret) AS r;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- The key id of an Authorization value made by tests.issue_credential.
CREATE FUNCTION tests.key_id(p_bearer text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT split_part(substr(p_bearer, length('Bearer ') + 1), '.', 1);
$$;

-- ------------------------------------------------------------------------------------------------
-- Lots (through the API, console and platform functions, never by writing tables)
-- ------------------------------------------------------------------------------------------------

-- A complete, valid lot write body as text: every field of the spec's field table but external_id,
-- each already in its stored form, so the Lot read back is this body plus external_id. It meets
-- every content requirement the lot issue decides (capacity, map pin, city and country, arrival
-- guidance, https hero image) and its media holds no `lot-media`, so it suits any operator.
-- p_overrides is merged over it key by key (a JSON null stays a null member); the keys in
-- p_without are then removed (absent).
CREATE FUNCTION tests.lot_body(p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT ((jsonb_build_object(
        'name', 'Harbour Car Park',
        'timezone', 'Europe/London',
        'handover', 'self',
        'online_bookable', true,
        'capacity', 120,
        'latitude', '51.5',
        'longitude', '-0.127758',
        'city', 'London',
        'country_code', 'GB',
        'features', jsonb_build_array('cameras', 'indoor'),
        'arrival', jsonb_build_object('entrance', 'North gate, Dock Road'),
        'media', jsonb_build_object('heroUrl', 'https://photos.example.test/hero.jpg',
                                    'galleryUrls', jsonb_build_array('https://photos.example.test/1.jpg')),
        'min_advance_days', 1,
        'min_stay_days', 1,
        'max_stay_days', 30,
        'cancellation', jsonb_build_object('free_until_hours_before_check_in', 24,
                                           'penalty_percent_after', '50.00',
                                           'no_show_forfeits_full', true))
        || p_overrides) - p_without)::text;
$$;

-- The smallest valid lot write body as text: the four required fields only (no content requirement
-- met), with p_overrides merged over it.
CREATE FUNCTION tests.minimal_lot_body(p_overrides jsonb DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT (jsonb_build_object('name', 'Bare lot', 'timezone', 'Europe/London', 'handover', 'self',
                               'online_bookable', true) || p_overrides)::text;
$$;

-- PUT /lots/{external_id} the way the gateway calls it: api.lot_put as role ingest_gateway, with a
-- fresh transaction's settings (p_body_fault: the gateway's verdict on the body's JSON syntax, which
-- it found none in by default); answers (status, body). What the test is acting as is restored.
-- A refusal propagates as the error api.lot_put raised (and undoes the role switch with it).
CREATE FUNCTION tests.put_lot(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- GET /lots the way the gateway calls it: api.lots_get as role ingest_gateway; answers (status, body).
CREATE FUNCTION tests.get_lots(p_bearer text, p_after text, p_limit integer, OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.lots_get(p_bearer, p_after, p_limit) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- The stored row of an operator's lot, read as the superuser (row-level security does not bind it);
-- a row of nulls when there is none.
CREATE FUNCTION tests.lot(p_operator uuid, p_external_id text)
RETURNS app.lots
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_lot app.lots;
BEGIN
    PERFORM tests.act_as_superuser();
    SELECT * INTO v_lot FROM app.lots AS l WHERE l.operator_id = p_operator AND l.external_id = p_external_id;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_lot;
END
$$;

-- How many lots an operator has, counted as the superuser.
CREATE FUNCTION tests.lot_count(p_operator uuid)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_count bigint;
BEGIN
    PERFORM tests.act_as_superuser();
    SELECT count(*) INTO v_count FROM app.lots AS l WHERE l.operator_id = p_operator;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_count;
END
$$;

-- A lot's listing status (review_state, timezone_confirmed, online_bookable, selling, unmet), through
-- platform.lot_listing_status as role platform_service.
CREATE FUNCTION tests.listing_status(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_status jsonb;
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    v_status := platform.lot_listing_status(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_status;
END
$$;

-- A lot's review made `pending`, the console way: a new owner of the operator calls
-- console.lot_submit_for_review. Answers the listing status it returns.
CREATE FUNCTION tests.submit_lot(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_status jsonb;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    v_status := console.lot_submit_for_review(p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_status;
END
$$;

-- A pending review approved by a reviewer: platform.lot_review_approve as role platform_service.
CREATE FUNCTION tests.approve_lot(p_operator uuid, p_external_id text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    PERFORM platform.lot_review_approve(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- Everything a lot needs besides its lot body to sell, done the API, console and platform way: a
-- lot without any marketplace envelope gets tests.rates_body() (a price in force whatever the day)
-- through PUT /lots/{external_id}/rates with a new write_supply credential (a lot that has an envelope
-- keeps it, in force or not); a new owner confirms its zone, accepts the listing agreement and
-- submits it; the payment provider reports the account can pay out; a reviewer approves. Answers the
-- listing status afterwards.
CREATE FUNCTION tests.make_lot_sell(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
BEGIN
    PERFORM tests.act_as_superuser();
    IF NOT EXISTS (SELECT FROM app.lot_rates AS r JOIN app.lots AS l ON l.operator_id = r.operator_id AND l.id = r.lot_id
                    WHERE l.operator_id = p_operator AND l.external_id = p_external_id) THEN
        PERFORM tests.put_rates(tests.issue_credential(p_operator, ARRAY['write_supply']), p_external_id, tests.rates_body());
    END IF;
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    PERFORM console.lot_confirm_timezone(p_external_id);
    PERFORM console.account_accept_listing_agreement();
    PERFORM console.lot_submit_for_review(p_external_id);
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    PERFORM platform.payouts_set(p_operator, true);
    PERFORM platform.lot_review_approve(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN tests.listing_status(p_operator, p_external_id);
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Rates and closures (through the API functions, never by writing tables)
-- ------------------------------------------------------------------------------------------------

-- A valid rates write body (PUT /lots/{external_id}/rates) as text: the range shape 10.00 / 15.00 /
-- 20.00 in the operator's settlement currency (no currency key), no validity window, so it is in
-- force whatever the day. p_overrides merged over it key by key; the keys in p_without then removed.
CREATE FUNCTION tests.rates_body(p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT (('{"floor_price": "10.00", "base_price": "15.00", "ceiling_price": "20.00"}'::jsonb || p_overrides) - p_without)::text;
$$;

-- PUT /lots/{external_id}/rates the way the gateway calls it: api.lot_rates_put as role
-- ingest_gateway; answers (status, body). A refusal propagates as raised.
CREATE FUNCTION tests.put_rates(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_rates_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- PUT /lots/{external_id}/blocked-periods the way the gateway calls it: api.lot_blocked_periods_put
-- as role ingest_gateway; answers (status, body). A refusal propagates as raised.
CREATE FUNCTION tests.put_blocked_periods(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_blocked_periods_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- GET /lots/{external_id}/blocked-periods the way the gateway calls it: api.lot_blocked_periods_get
-- as role ingest_gateway; answers (status, body).
CREATE FUNCTION tests.get_blocked_periods(p_bearer text, p_external_id text, OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.lot_blocked_periods_get(p_bearer, p_external_id) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Bookings (through the platform functions, never by writing tables)
-- ------------------------------------------------------------------------------------------------

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

-- The position a bookings cursor token names, read from its payload "1|<microseconds since
-- 1970>|<reference>": (changed_at, reference); nulls when the payload is not of that form.
CREATE FUNCTION tests.cursor_position(p_token text, OUT changed_at timestamptz, OUT reference text)
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT timestamptz 'epoch' + (m[1] || ' microseconds')::interval, m[2]
      FROM (SELECT regexp_match(tests.cursor_payload(p_token), '^1\|(-?[0-9]+)\|(.*)$') AS m) AS p;
$$;

-- ------------------------------------------------------------------------------------------------
-- Catalogue
-- ------------------------------------------------------------------------------------------------

-- Every tenant table: each table of schema app with an operator_id column, plus app.operators
-- itself. Tests over this set fail when a new tenant table lacks row-level security or fixture rows.
CREATE FUNCTION tests.tenant_tables()
RETURNS SETOF regclass
LANGUAGE sql
STABLE
AS $$
    SELECT c.oid::regclass
      FROM pg_class AS c
     WHERE c.relnamespace = 'app'::regnamespace
       AND c.relkind IN ('r', 'p')
       AND (c.oid = 'app.operators'::regclass
            OR EXISTS (SELECT FROM pg_attribute AS a
                        WHERE a.attrelid = c.oid AND a.attname = 'operator_id' AND NOT a.attisdropped))
     ORDER BY c.oid::regclass::text;
$$;

-- Whether row-level security is both enabled and FORCED on a table (FORCE makes it bind the owner,
-- as which every function runs).
CREATE FUNCTION tests.rls_forced(p_table regclass)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT c.relrowsecurity AND c.relforcerowsecurity FROM pg_class AS c WHERE c.oid = p_table;
$$;

-- The column of a tenant table that holds its operator: `id` for app.operators, else operator_id.
CREATE FUNCTION tests.operator_column(p_table regclass)
RETURNS name
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE WHEN p_table = 'app.operators'::regclass THEN 'id' ELSE 'operator_id' END::name;
$$;

-- The names of a function's result columns (its OUT and TABLE parameters, or its composite result
-- type's attributes), in order: what a caller such as PostgREST gets back.
CREATE FUNCTION tests.result_columns(p_function regprocedure)
RETURNS text[]
LANGUAGE sql
STABLE
AS $$
    -- OUT/TABLE parameters, or else the attributes of a composite result type
    SELECT coalesce(
        nullif(ARRAY(
            SELECT a.name
              FROM pg_proc AS p
             CROSS JOIN LATERAL unnest(p.proargnames, p.proargmodes) WITH ORDINALITY AS a(name, mode, n)
             WHERE p.oid = p_function AND a.mode IN ('o', 't', 'b')
             ORDER BY a.n), '{}'),
        ARRAY(
            SELECT att.attname::text
              FROM pg_proc AS p
              JOIN pg_type AS t ON t.oid = p.prorettype
              JOIN pg_attribute AS att ON att.attrelid = t.typrelid
             WHERE p.oid = p_function AND att.attnum > 0 AND NOT att.attisdropped
             ORDER BY att.attnum));
$$;

-- ------------------------------------------------------------------------------------------------
-- Errors
-- ------------------------------------------------------------------------------------------------

-- Run p_sql as the current role and report the error it raised: its SQLSTATE (code), MESSAGE and
-- DETAIL, all NULL when it raised none. The statement runs in a subtransaction: its work is undone when it
-- fails and kept when it succeeds.
CREATE FUNCTION tests.error_of(p_sql text, OUT code text, OUT message text, OUT detail text)
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE p_sql;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    detail := nullif(detail, '');
END
$$;

-- The DETAIL of the error p_sql raises (the field or parameter name of a refusal); NULL when the
-- error has none or there is no error.
CREATE FUNCTION tests.error_detail(p_sql text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT (tests.error_of(p_sql)).detail;
$$;

-- A pgTAP assertion for the project's one refusal convention: p_sql raises SQLSTATE p_sqlstate with
-- MESSAGE p_message and DETAIL p_detail, all three exactly (p_detail NULL: no DETAIL at all).
-- Like throws_ok, but the DETAIL (the field the client is told) is part of the check.
CREATE FUNCTION tests.refuses(p_sql text, p_sqlstate text, p_message text, p_detail text, p_description text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_error record := tests.error_of(p_sql);
BEGIN
    IF v_error.code IS NOT DISTINCT FROM p_sqlstate
       AND v_error.message IS NOT DISTINCT FROM p_message
       AND v_error.detail IS NOT DISTINCT FROM p_detail THEN
        RETURN public.ok(true, p_description);
    END IF;
    RETURN public.ok(false, p_description) || E'\n' || public.diag(
           '      caught: ' || coalesce(v_error.code || ' ' || v_error.message
                                       || coalesce(' DETAIL ' || v_error.detail, ' (no DETAIL)'), 'no exception')
        || E'\n      wanted: ' || p_sqlstate || ' ' || p_message || coalesce(' DETAIL ' || p_detail, ' (no DETAIL)'));
END
$$;


-- A connection string to this very database as this user, for a second session through dblink:
-- the tests that need real concurrency commit their own fixtures through it.
CREATE FUNCTION tests.own_database_conninfo()
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT format('host=%s port=%s dbname=%s user=%s',
                  coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
                  current_setting('port'), current_database(), current_user);
$$;

-- p_sql, a statement answering one text, run in an autocommitting session of its own through dblink
-- (the calling file creates the dblink extension): its answer, committed.
CREATE FUNCTION tests.committed(p_sql text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    RETURN (SELECT t.answer FROM dblink(tests.own_database_conninfo(), p_sql) AS t(answer text));
END
$$;

-- The committed fixture of the files that need a second session to see it (through dblink, as
-- tests.committed): an operator named p_name with a lot l1, a read_bookings and a write_supply
-- credential. The read credential is used once there, so its last_used_at is recorded later than
-- the calling transaction's now() and that transaction never writes it (the clean-up would wait
-- for it). lot_status is 201 when all of it was made.
CREATE FUNCTION tests.committed_operator_with_lot(
    p_name text, OUT operator_id uuid, OUT read_bearer text, OUT write_bearer text, OUT lot_status integer)
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT r.op::uuid, r.bearer, r.write_bearer, r.lot_status
      INTO operator_id, read_bearer, write_bearer, lot_status
      FROM dblink(tests.own_database_conninfo(), format($q$
               SELECT o, r, w, (tests.put_lot(w, 'l1', tests.lot_body())).status + (tests.get_bookings(r, NULL, 1)).status - 200
                 FROM tests.make_operator(%L) AS o,
                      tests.issue_credential(o, ARRAY['read_bookings']) AS r,
                      tests.issue_credential(o, ARRAY['write_supply']) AS w
           $q$, p_name)) AS r(op text, bearer text, write_bearer text, lot_status integer);
END
$$;

-- Remove everything committed for the operators named p_name, through an autocommitting dblink
-- session (the calling file creates the dblink extension). Bookings, and a lot that took one, are
-- never deleted by anyone: only with the triggers off (session_replication_role `replica`, a
-- superuser's setting) can a test remove what it committed.
CREATE FUNCTION tests.remove_committed_operators(p_name text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM dblink_exec(tests.own_database_conninfo(), format($q$
        DO $do$
        DECLARE
            v_ops uuid[] := ARRAY(SELECT id FROM app.operators WHERE name = %L);
            v_users uuid[] := ARRAY(SELECT user_id FROM app.memberships WHERE operator_id = ANY (v_ops));
        BEGIN
            PERFORM set_config('session_replication_role', 'replica', true);
            DELETE FROM app.bookings WHERE operator_id = ANY (v_ops);
            DELETE FROM app.lots WHERE operator_id = ANY (v_ops);
            DELETE FROM app.api_credentials WHERE operator_id = ANY (v_ops);
            DELETE FROM app.memberships WHERE operator_id = ANY (v_ops);
            DELETE FROM app.users WHERE id = ANY (v_users);
            DELETE FROM app.operators WHERE id = ANY (v_ops);
        END
        $do$
    $q$, p_name));
END
$$;

-- Which of p_names are not columns of p_table (a field registry's names must all be).
CREATE FUNCTION tests.names_not_columns_of(p_table regclass, p_names text[])
RETURNS text[]
LANGUAGE sql
STABLE
AS $$
    SELECT ARRAY(SELECT n FROM unnest(p_names) AS n
                  WHERE NOT EXISTS (SELECT FROM pg_attribute AS a
                                     WHERE a.attrelid = p_table AND a.attname = n AND NOT a.attisdropped));
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tests TO PUBLIC;
