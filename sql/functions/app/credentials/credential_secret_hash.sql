-- The stored form of an API secret: HMAC-SHA256 keyed with the server pepper over salt || secret.
-- A database dump without the pepper cannot be searched, and equal secrets never hash alike.
--
-- PL/pgSQL so the plans are kept for the session (a SQL function is planned again at every calling
-- statement, on every request). The pepper's query takes no parameter, and the HMAC is a simple
-- expression, which PL/pgSQL never plans with its values folded in: neither secret can reach a plan.
CREATE OR REPLACE FUNCTION app.credential_secret_hash(p_salt bytea, p_secret text)
RETURNS bytea
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_pepper bytea;
BEGIN
    SELECT s.value INTO v_pepper FROM app.server_secrets AS s WHERE s.name = 'credential_pepper';
    RETURN extensions.hmac(p_salt || convert_to(p_secret, 'UTF8'), v_pepper, 'sha256');
END
$$;
REVOKE ALL ON FUNCTION app.credential_secret_hash(bytea, text) FROM PUBLIC;
