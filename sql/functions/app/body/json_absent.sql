-- Whether a body member counts as absent: the key is missing (SQL NULL) or its value is JSON null.
-- The spec reads the two alike everywhere ("an absent key means null").
CREATE OR REPLACE FUNCTION app.json_absent(p_value jsonb)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_value IS NULL OR pg_catalog.jsonb_typeof(p_value) = 'null';
$$;
REVOKE ALL ON FUNCTION app.json_absent(jsonb) FROM PUBLIC;
