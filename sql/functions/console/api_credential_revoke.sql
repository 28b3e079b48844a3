-- Revoke a credential: immediate and permanent. Revoking again returns the same row with the
-- original revoked_at; an id that is not this operator's (or never existed) returns no row.
CREATE OR REPLACE FUNCTION console.api_credential_revoke(p_credential_id uuid)
RETURNS SETOF console.api_credential
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'api_credential_requires_manager');
    IF p_credential_id IS NULL THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_credential_id');
    END IF;

    UPDATE app.api_credentials AS c
       SET revoked_at = now(), revoked_by = v_caller.user_id
     WHERE c.operator_id = v_caller.operator_id
       AND c.id = p_credential_id
       AND c.revoked_at IS NULL;

    RETURN QUERY SELECT * FROM app.credential_listing(v_caller.operator_id) AS l WHERE l.credential_id = p_credential_id;
END
$$;
REVOKE ALL ON FUNCTION console.api_credential_revoke(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.api_credential_revoke(uuid) TO authenticated;
