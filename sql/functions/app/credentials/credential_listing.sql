-- An operator's credentials as the console shows them (console.api_credential), newest first. The
-- operator is named explicitly (the one the console caller was verified for), not left to the
-- row-level policies alone.
CREATE OR REPLACE FUNCTION app.credential_listing(p_operator_id uuid)
RETURNS SETOF console.api_credential
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.id, c.key_id, c.label, c.scopes, c.created_at, c.expires_at, c.last_used_at, c.revoked_at,
           CASE
               WHEN c.revoked_at IS NOT NULL THEN 'revoked'
               WHEN c.expires_at <= now() THEN 'expired'
               ELSE 'active'
           END
      FROM app.api_credentials AS c
     WHERE c.operator_id = p_operator_id
     ORDER BY c.created_at DESC, c.id;
$$;
REVOKE ALL ON FUNCTION app.credential_listing(uuid) FROM PUBLIC;
