-- Compare two byte strings in time that depends only on their lengths, never on where they
-- first differ. pgcrypto has no such compare; the secret check must not leak a prefix match.
CREATE OR REPLACE FUNCTION app.constant_time_equals(p_a bytea, p_b bytea)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_diff integer := octet_length(p_a) # octet_length(p_b);
BEGIN
    FOR i IN 0 .. least(octet_length(p_a), octet_length(p_b)) - 1 LOOP
        v_diff := v_diff | (get_byte(p_a, i) # get_byte(p_b, i));
    END LOOP;
    RETURN v_diff = 0;
END
$$;
REVOKE ALL ON FUNCTION app.constant_time_equals(bytea, bytea) FROM PUBLIC;
