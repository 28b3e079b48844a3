-- The operator's credentials as the console shows them: never a salt, hash or secret.
-- Runs under the operator context of its caller.
CREATE OR REPLACE FUNCTION app.credential_listing()
RETURNS TABLE (
    credential_id uuid,
    key_id text,
    label text,
    scopes text[],
    created_at timestamptz,
    expires_at timestamptz,
    last_used_at timestamptz,
    revoked_at timestamptz,
    state text)
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
