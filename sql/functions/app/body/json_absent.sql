-- Whether a body member counts as absent: the key is missing (SQL NULL) or its value is JSON null.
-- The spec reads the two alike everywhere ("an absent key means null").
--
-- PL/pgSQL, like every small function on a write path: a SQL function with a SET clause is never
-- inlined, and its body is parsed and planned again in every transaction that calls it (a booking
-- write paid that sixteen times over). The readers of sql/functions/app/body write the same test
-- inline (json_value_readers.sql says why).
CREATE OR REPLACE FUNCTION app.json_absent(p_value jsonb)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN p_value IS NULL OR jsonb_typeof(p_value) = 'null';
END
$$;
REVOKE ALL ON FUNCTION app.json_absent(jsonb) FROM PUBLIC;
