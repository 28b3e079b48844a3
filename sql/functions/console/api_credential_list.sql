-- The operator's credentials, newest first, for any accepted member. Never a secret or its hash.
CREATE OR REPLACE FUNCTION console.api_credential_list()
RETURNS SETOF console.api_credential
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager', 'staff'], 'forbidden');
    RETURN QUERY SELECT * FROM app.credential_listing(v_caller.operator_id);
END
$$;
REVOKE ALL ON FUNCTION console.api_credential_list() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.api_credential_list() TO authenticated;
