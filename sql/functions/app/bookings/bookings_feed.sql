-- The bookings feed (GET /bookings): a cursor that never loses a booking.
--
-- Order: (changed_at, reference). Every insert and update of a booking stamps changed_at with the
-- clock at the write (app.booking_stamp_change) and, first, takes a shared advisory lock keyed by
-- its operator and carrying its transaction's start (app.booking_writer_lock). An operator's
-- watermark is the earlier of now() minus the `bookings_watermark_lag` setting and
-- the start of the oldest transaction holding that operator's lock: every booking not yet visible
-- was stamped after its writer took the lock, so at or after the watermark. A cursor never points
-- past the watermark, so rows that commit out of order are still ahead of it; rows newer than the
-- watermark are returned but not committed to, and may come again (clients de-duplicate on
-- reference). Keyed by operator, one operator's open writer never holds back another's feed.

-- (PL/pgSQL, as app.json_absent says why: both run on every booking write.)

-- The writer lock's first key: the operator's (a hash; two operators sharing one only makes each
-- other's watermark more cautious, never wrong).
CREATE OR REPLACE FUNCTION app.booking_writer_key(p_operator_id uuid)
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN hashtext('bookings feed ' || p_operator_id::text);
END
$$;
REVOKE ALL ON FUNCTION app.booking_writer_key(uuid) FROM PUBLIC;

-- Taken by every booking write (two-key form: the operator's key, and the writer's transaction
-- start in whole seconds since 2020-01-01, floored; an int4 holds those until 2088). First the
-- operator's presence key (second key app.booking_writer_presence(), the int4's last second, so
-- that as a start it holds nothing back): a poll tries it exclusively to learn, without reading
-- pg_locks, that no writer of the operator is open (app.booking_writers_none).
CREATE OR REPLACE FUNCTION app.booking_writer_lock(p_operator_id uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_key constant integer := app.booking_writer_key(p_operator_id);
BEGIN
    PERFORM pg_advisory_xact_lock_shared(v_key, app.booking_writer_presence());
    PERFORM pg_advisory_xact_lock_shared(
        v_key, floor(extract(epoch FROM now() - timestamptz '2020-01-01 00:00:00+00'))::integer);
END
$$;
REVOKE ALL ON FUNCTION app.booking_writer_lock(uuid) FROM PUBLIC;

-- The second key of an operator's presence lock: 2^31 - 1, a start in 2088.
CREATE OR REPLACE FUNCTION app.booking_writer_presence()
RETURNS integer
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN 2147483647;
END
$$;
REVOKE ALL ON FUNCTION app.booking_writer_presence() FROM PUBLIC;

-- Whether no other transaction holds a writer lock of the operator now: the exclusive presence lock
-- is tried, never waited for, and let go at once (the block's subtransaction is rolled back): a
-- writer arriving meanwhile waits microseconds. The poll's own transaction is not seen (its own lock
-- never conflicts with itself), and need not be: a booking it wrote is visible to it, and stamped
-- at or after its start, so past now() minus the lag. False sends the watermark to pg_locks, as
-- does an owner not granted the try.
CREATE OR REPLACE FUNCTION app.booking_writers_none(p_operator_id uuid)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_free boolean;
BEGIN
    BEGIN
        v_free := pg_try_advisory_xact_lock(app.booking_writer_key(p_operator_id), app.booking_writer_presence());
        RAISE EXCEPTION 'let go of the presence lock' USING ERRCODE = 'P0001';
    EXCEPTION
        WHEN raise_exception THEN
            NULL;
        WHEN insufficient_privilege THEN
            v_free := false;  -- the owner may not try it (migrate warns): pg_locks, as before
    END;
    RETURN v_free;
END
$$;
REVOKE ALL ON FUNCTION app.booking_writers_none(uuid) FROM PUBLIC;

-- The writer lock as pg_locks shows it: the first key as `classid` (an oid, the int4 read unsigned),
-- as the watermark looks for it and the publication for standbys keys it.
CREATE OR REPLACE FUNCTION app.booking_writer_lock_class(p_operator_id uuid)
RETURNS oid
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (app.booking_writer_key(p_operator_id)::bigint & 4294967295)::oid;
END
$$;
REVOKE ALL ON FUNCTION app.booking_writer_lock_class(uuid) FROM PUBLIC;

-- The writer start the lock's second key carries (app.booking_writer_lock's seconds), as a moment.
CREATE OR REPLACE FUNCTION app.booking_writer_started(p_seconds bigint)
RETURNS timestamptz
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN timestamptz '2020-01-01 00:00:00+00' + make_interval(secs => p_seconds);
END
$$;
REVOKE ALL ON FUNCTION app.booking_writer_started(bigint) FROM PUBLIC;

-- The watermark is right only when the statement reading the feed sees every booking committed
-- before it started: READ COMMITTED, which the gateway's connections set when they are made. Under
-- any other level the feed refuses to answer rather than answer wrongly: SQLSTATE 25000, a server
-- fault (500), never a client's refusal.
CREATE OR REPLACE FUNCTION app.require_read_committed()
RETURNS void
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'the bookings feed needs READ COMMITTED' USING ERRCODE = 'invalid_transaction_state';
    END IF;
END
$$;
REVOKE ALL ON FUNCTION app.require_read_committed() FROM PUBLIC;

-- (Reading pg_locks copies the server's whole lock table, the dearest part of an empty poll: it is
-- read only while a writer of the operator is open.)
CREATE OR REPLACE FUNCTION app.bookings_watermark(p_operator_id uuid)
RETURNS timestamptz
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lagged constant timestamptz :=
        now() - (SELECT s.value::interval FROM app.settings AS s WHERE s.name = 'bookings_watermark_lag');
    v_class oid;
BEGIN
    IF app.booking_writers_none(p_operator_id) THEN
        RETURN v_lagged;
    END IF;
    -- (the lock's key as pg_locks shows it, computed once, not for each of its rows)
    v_class := app.booking_writer_lock_class(p_operator_id);
    RETURN least(
        v_lagged,
        (SELECT app.booking_writer_started(min(l.objid::bigint))
           FROM pg_catalog.pg_locks AS l
          WHERE l.locktype = 'advisory'
            AND l.database = (SELECT d.oid FROM pg_catalog.pg_database AS d WHERE d.datname = current_database())
            AND l.classid = v_class
            AND l.objsubid = 2
            AND l.granted));
END
$$;
REVOKE ALL ON FUNCTION app.bookings_watermark(uuid) FROM PUBLIC;

-- The watermark on a hot standby, which cannot see the primary's locks: the earliest of now() minus
-- the lag, the moment of the last publication the standby has replayed, and the start of the
-- operator's oldest writer open at that moment (api.bookings_feed_publish). Every booking stamped
-- before that moment was committed before the publication, and so is visible wherever the
-- publication is, unless its writer was open then, and was published (docs/design.md, "The feed
-- on a standby"). A publication that is old only holds the feed back; never published: -infinity.
CREATE OR REPLACE FUNCTION app.bookings_watermark_published(p_operator_id uuid)
RETURNS timestamptz
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT least(
                now() - (SELECT s.value::interval FROM app.settings AS s WHERE s.name = 'bookings_watermark_lag'),
                p.published_at,
                app.booking_writer_started((p.writers ->> app.booking_writer_lock_class(p_operator_id)::text)::bigint))
              FROM app.booking_writers_published AS p);
END
$$;
REVOKE ALL ON FUNCTION app.bookings_watermark_published(uuid) FROM PUBLIC;

-- A cursor token: a signed token (app/calls/signed_tokens.sql) under the cursor key, bound to the
-- operator ("|<operator id>"), of the payload "1|<changed_at in microseconds since 1970>|<reference>":
-- a position in the feed. Anything not issued here for this operator is not taken back.
CREATE OR REPLACE FUNCTION app.cursor_token(p_operator_id uuid, p_changed_at timestamptz, p_reference text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.signed_token(
        'cursor_key',
        format('1|%s|%s', (extract(epoch FROM p_changed_at) * 1000000)::bigint, p_reference),
        '|' || p_operator_id::text);
END
$$;
REVOKE ALL ON FUNCTION app.cursor_token(uuid, timestamptz, text) FROM PUBLIC;

-- The feed position a token names, or PT422 invalid_cursor (field since) for anything this service
-- did not issue to this operator: garbage, a tampered, re-spelt or truncated token, another
-- operator's, one signed with another key, one over 512 characters.
CREATE OR REPLACE FUNCTION app.cursor_position(p_operator_id uuid, p_token text, OUT changed_at timestamptz, OUT reference text)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_payload constant text := app.signed_token_payload('cursor_key', p_token, 512, '|' || p_operator_id::text);
    v_micros constant text := split_part(v_payload, '|', 2);
    v_reference constant text := split_part(v_payload, '|', 3);
BEGIN
    -- "1|<sign><1-18 digits>|<0-64 of A-Za-z0-9_->", matched without captures and cut by split_part
    -- (bench/FINDINGS.md, "Patterns without captures"): a payload this service signed is of that
    -- form, and the check keeps one signed with the key by other means from reaching the cast.
    IF NOT coalesce(v_payload ~ '^1\|-?[0-9]+\|[A-Za-z0-9_-]*$', false)
       OR char_length(ltrim(v_micros, '-')) > 18 OR char_length(v_reference) > 64 THEN
        PERFORM app.refuse(422, 'invalid_cursor', 'since');
    END IF;
    changed_at := timestamptz 'epoch' + (v_micros || ' microseconds')::interval;  -- exact, unlike a float
    reference := v_reference;
END
$$;
REVOKE ALL ON FUNCTION app.cursor_position(uuid, text) FROM PUBLIC;
