-- The stored form of an API secret: HMAC-SHA256 keyed with the server pepper over salt || secret.
-- A database dump without the pepper cannot be searched, and equal secrets never hash alike.
CREATE OR REPLACE FUNCTION app.credential_secret_hash(p_salt bytea, p_secret text)
RETURNS bytea
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT extensions.hmac(
        p_salt || convert_to(p_secret, 'UTF8'),
        (SELECT s.value FROM app.server_secrets AS s WHERE s.name = 'credential_pepper'),
        'sha256');
$$;
REVOKE ALL ON FUNCTION app.credential_secret_hash(bytea, text) FROM PUBLIC;
