-- Resolve the operator from an Authorization header value, the only way a gateway request gets an
-- operator. Every failure (no or unparseable header, unknown key id, wrong secret, revoked, expired,
-- operator suspended, scope missing) is the same PT401 `unauthorized`, reached through the same
-- work: an unknown key id is checked against a dummy salt and hash, and all conditions are folded
-- into one boolean, so neither the answer nor its timing tells the causes apart.
--
-- p_scope NULL admits any valid credential (GET /ping). With p_enter_operator the operator context
-- stays set for the rest of the transaction; without it, it is cleared before returning.
CREATE OR REPLACE FUNCTION app.authenticate(
    p_authorization text,
    p_scope text,
    p_enter_operator boolean,
    OUT credential_id uuid,
    OUT operator_id uuid,
    OUT key_id text,
    OUT scopes text[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    -- "Bearer", one or more spaces, then <key_id>.<secret>: the first dot splits the halves. The
    -- shape is checked without captures and cut by string functions (a capture costs more on every
    -- call); a key id of spaces alone, which the shape admits, is cut to '': no credential has either.
    v_parsed boolean := coalesce(CASE WHEN octet_length(p_authorization) <= 1024
        THEN p_authorization ~ '^[Bb][Ee][Aa][Rr][Ee][Rr] +[^.]+\..' END, false);
    v_halves text := CASE WHEN v_parsed THEN ltrim(substr(p_authorization, 7), ' ') END;
    v_key_id text := coalesce(split_part(v_halves, '.', 1), '');
    v_secret text := coalesce(substr(v_halves, length(v_key_id) + 2), '');
    v_credential record;
    v_status text;
    v_valid boolean;
    v_context text;
BEGIN
    -- Only the primary serves the gateway's routes. A node in recovery (a standby, or a primary
    -- demoted by a failover while a pooled connection was open to it) could answer stale rows, and
    -- its feed watermark cannot see the writers' locks. 25006: the gateway drops the connection and
    -- answers 503, and its next connection finds the new primary (docs/operating.md, "Failover").
    IF pg_is_in_recovery() THEN
        RAISE EXCEPTION 'not the primary' USING ERRCODE = 'read_only_sql_transaction';
    END IF;
    -- The credential policy admits the row of the key id being authenticated only while no operator
    -- is entered: leave any context the caller may have set before the call. (Each context change
    -- is an assignment, not a PERFORM: app/calls/operator_context.sql says why.)
    v_context := app.set_operator_context(NULL);
    v_context := set_config('app.authenticating_key_id', v_key_id, true);
    SELECT c.operator_id, c.id, c.key_id, c.scopes, c.secret_salt, c.secret_hash, c.expires_at, c.revoked_at,
           c.last_used_at
      INTO v_credential
      FROM app.api_credentials AS c
     WHERE c.key_id = v_key_id;

    v_valid := app.constant_time_equals(
        app.credential_secret_hash(coalesce(v_credential.secret_salt, '\x00000000000000000000000000000000'::bytea), v_secret),
        coalesce(v_credential.secret_hash, '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea));

    -- (entering ends the key id's lookup too)
    v_context := app.set_operator_context(coalesce(v_credential.operator_id, '00000000-0000-0000-0000-000000000000'::uuid));
    SELECT o.status INTO v_status FROM app.operators AS o WHERE o.id = v_credential.operator_id;

    v_valid := v_valid
        AND v_parsed
        AND v_credential.id IS NOT NULL
        AND v_status IS NOT DISTINCT FROM 'active'
        AND v_credential.revoked_at IS NULL
        AND (v_credential.expires_at IS NULL OR v_credential.expires_at > now())
        AND (p_scope IS NULL OR p_scope = ANY (v_credential.scopes));
    IF NOT v_valid THEN
        v_context := app.set_operator_context(NULL);
        PERFORM app.refuse(401, 'unauthorized');
    END IF;

    -- Recorded on first use, then at most once a minute, so a busy key is not a hot row. A request
    -- that finds the row locked by another request recording the same use does not wait for it.
    -- The row just read tells whether a stamp is due, so most requests skip the statement; the
    -- statement checks again on the row as it is now.
    IF v_credential.last_used_at IS NULL OR v_credential.last_used_at <= now() - interval '1 minute' THEN
        UPDATE app.api_credentials AS c
           SET last_used_at = now()
         WHERE (c.operator_id, c.id) IN (
                   SELECT d.operator_id, d.id
                     FROM app.api_credentials AS d
                    WHERE d.operator_id = v_credential.operator_id
                      AND d.id = v_credential.id
                      AND (d.last_used_at IS NULL OR d.last_used_at <= now() - interval '1 minute')
                      FOR UPDATE SKIP LOCKED);
    END IF;

    IF NOT p_enter_operator THEN
        v_context := app.set_operator_context(NULL);
    END IF;
    credential_id := v_credential.id;
    operator_id := v_credential.operator_id;
    key_id := v_credential.key_id;
    scopes := v_credential.scopes;
END
$$;
REVOKE ALL ON FUNCTION app.authenticate(text, text, boolean) FROM PUBLIC;
