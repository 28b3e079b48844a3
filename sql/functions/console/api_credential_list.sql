-- The operator's credentials, newest first, for any accepted member. Never a secret or its hash.
CREATE OR REPLACE FUNCTION console.api_credential_list()
RETURNS SETOF console.api_credential
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    PERFORM app.console_caller(ARRAY['owner', 'manager', 'staff'], 'forbidden');
    RETURN QUERY SELECT * FROM app.credential_listing();
END
$$;
REVOKE ALL ON FUNCTION console.api_credential_list() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.api_credential_list() TO authenticated;
