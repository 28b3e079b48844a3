-- Read assertions: how a standby learns, from the database and not from the gateway, which operator
-- a bookings feed request acts for (docs/reference/sql-interfaces.md, bent as docs/design.md, "The
-- feed on a standby", records). The primary authenticates the request's credential as usual
-- (revocation, suspension and expiry as of that moment; `last_used_at` stamped) and signs the
-- operator with a key of the database (`read_assertion_key`, readable by the owner's functions
-- only, replicated with the rest); the standby checks the signature and the age before it serves
-- the page. The gateway carries the token from one to the other and can neither make nor alter one.
--
-- A signed token (app/calls/signed_tokens.sql) under the read assertion key, bound to nothing else,
-- of the payload "1|read_bookings|<operator id>|<issued at, microseconds since 1970>".

-- How long a token is taken after it was issued, and how far ahead of the standby's clock it may
-- have been issued (the two servers' clocks differ a little). A token lives for one request: the
-- gateway asks the standby at once.
CREATE OR REPLACE FUNCTION app.read_assertion_lifetime(OUT valid_for interval, OUT clock_skew interval)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    valid_for := interval '30 seconds';
    clock_skew := interval '5 seconds';
END
$$;
REVOKE ALL ON FUNCTION app.read_assertion_lifetime() FROM PUBLIC;

-- A token asserting that the operator's credential was just authenticated with the read_bookings
-- scope. Only api.bookings_read_assertion makes one, right after app.authenticate.
CREATE OR REPLACE FUNCTION app.read_assertion(p_operator_id uuid)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_payload constant text := format('1|read_bookings|%s|%s', p_operator_id,
                                      (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
BEGIN
    RETURN app.signed_token('read_assertion_key', v_payload, '');
END
$$;
REVOKE ALL ON FUNCTION app.read_assertion(uuid) FROM PUBLIC;

-- The operator a token asserts, entered (the operator context for the rest of the transaction, as
-- app.authenticate enters it on the primary), when the token is exactly one this database signed
-- and is younger than its lifetime by this server's clock. Anything else raises SQLSTATE 28000
-- (invalid authorization specification): never a client's answer, the gateway reads the page from
-- the primary instead.
CREATE OR REPLACE FUNCTION app.read_assertion_operator(p_assertion text)
RETURNS uuid
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_payload constant text := app.signed_token_payload('read_assertion_key', p_assertion, 256, '');
    v_operator constant text := split_part(v_payload, '|', 3);
    v_micros constant text := split_part(v_payload, '|', 4);
    v_issued_at timestamptz;
    v_lifetime record := app.read_assertion_lifetime();
BEGIN
    -- (matched without captures and cut by split_part: bench/FINDINGS.md, "Patterns without
    -- captures")
    IF NOT coalesce(v_payload ~ '^1\|read_bookings\|[0-9a-f-]+\|[0-9]+$', false)
       OR char_length(v_operator) <> 36 OR char_length(v_micros) > 18 THEN
        RAISE EXCEPTION 'not a read assertion of this database' USING ERRCODE = 'invalid_authorization_specification';
    END IF;
    v_issued_at := timestamptz 'epoch' + (v_micros || ' microseconds')::interval;
    IF v_issued_at NOT BETWEEN clock_timestamp() - v_lifetime.valid_for AND clock_timestamp() + v_lifetime.clock_skew THEN
        RAISE EXCEPTION 'an expired read assertion' USING ERRCODE = 'invalid_authorization_specification';
    END IF;
    PERFORM app.set_operator_context(v_operator::uuid);
    RETURN v_operator::uuid;
END
$$;
REVOKE ALL ON FUNCTION app.read_assertion_operator(text) FROM PUBLIC;
