-- Whether two byte strings are equal, in a way whose timing tells nothing of where they first
-- differ: their SHA-256 digests are compared instead (a digest takes time by length only, and how
-- far two digests agree says nothing of the values'). pgcrypto has no constant-time compare, and a
-- byte loop in PL/pgSQL cost every credential check and cursor check several times as much.
CREATE OR REPLACE FUNCTION app.constant_time_equals(p_a bytea, p_b bytea)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN extensions.digest(p_a, 'sha256') = extensions.digest(p_b, 'sha256');
END
$$;
REVOKE ALL ON FUNCTION app.constant_time_equals(bytea, bytea) FROM PUBLIC;
