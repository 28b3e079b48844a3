-- Issue an API credential for the operator in x-tenant-id. Owners and managers only. The secret is
-- returned here once and never stored: only HMAC(pepper, salt || secret) is kept.
CREATE OR REPLACE FUNCTION console.api_credential_issue(
    p_label text,
    p_scopes text[],
    p_expires_in_days integer DEFAULT NULL)
RETURNS TABLE (
    credential_id uuid,
    key_id text,
    secret text,
    label text,
    scopes text[],
    created_at timestamptz,
    expires_at timestamptz)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    c_known_scopes constant text[] := ARRAY['read_supply', 'write_supply', 'read_bookings'];
    v_caller record;
    v_key_id text := 'pk_api_' || encode(extensions.gen_random_bytes(16), 'hex');
    v_secret text := 'pk_sec_' || encode(extensions.gen_random_bytes(32), 'hex');
    v_salt bytea := extensions.gen_random_bytes(16);
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'api_credential_requires_manager');

    IF p_label IS NULL OR char_length(p_label) NOT BETWEEN 1 AND 80 OR app.is_blank(p_label) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_label');
    END IF;
    IF p_scopes IS NULL
       OR cardinality(p_scopes) = 0
       OR array_ndims(p_scopes) <> 1
       OR array_position(p_scopes, NULL) IS NOT NULL
       OR NOT p_scopes <@ c_known_scopes
       OR (SELECT count(DISTINCT s) FROM unnest(p_scopes) AS s) <> cardinality(p_scopes) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_scopes');
    END IF;
    IF p_expires_in_days IS NOT NULL AND p_expires_in_days NOT BETWEEN 1 AND 3650 THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_expires_in_days');
    END IF;

    RETURN QUERY
    INSERT INTO app.api_credentials AS c
           (operator_id, key_id, secret_salt, secret_hash, label, scopes, created_by, expires_at)
    VALUES (v_caller.operator_id,
            v_key_id,
            v_salt,
            app.credential_secret_hash(v_salt, v_secret),
            p_label,
            -- stored in the enumeration's order, whatever order they were sent in
            ARRAY(SELECT s FROM unnest(c_known_scopes) WITH ORDINALITY AS k(s, n) WHERE s = ANY (p_scopes) ORDER BY n),
            v_caller.user_id,
            -- whole days of 24 hours on the server clock, whatever the session time zone
            now() + make_interval(hours => 24 * p_expires_in_days))
    RETURNING c.id, c.key_id, v_secret, c.label, c.scopes, c.created_at, c.expires_at;
END
$$;
REVOKE ALL ON FUNCTION console.api_credential_issue(text, text[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.api_credential_issue(text, text[], integer) TO authenticated;
