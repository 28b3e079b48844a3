-- The operator's credentials as the console shows them (console.api_credential), newest first.
-- Runs under the operator context of its caller.
CREATE OR REPLACE FUNCTION app.credential_listing()
RETURNS SETOF console.api_credential
LANGUAGE sql
STABLE
SET search_path = ''
AS $$
    SELECT c.id, c.key_id, c.label, c.scopes, c.created_at, c.expires_at, c.last_used_at, c.revoked_at,
           CASE
               WHEN c.revoked_at IS NOT NULL THEN 'revoked'
               WHEN c.expires_at <= now() THEN 'expired'
               ELSE 'active'
           END
      FROM app.api_credentials AS c
     ORDER BY c.created_at DESC, c.id;
$$;
REVOKE ALL ON FUNCTION app.credential_listing() FROM PUBLIC;
