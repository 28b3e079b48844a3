-- The names among p_fields (in their order) whose values differ between two rows given as jsonb, or
-- all of them when p_old is NULL (nothing was stored: a create). Each field is a member named as
-- its column; jsonb compares numbers by value, so 1.5 and 1.500000 are the same. The diff of every
-- write with a field registry (app.lot_fields, app.rates_fields).
CREATE OR REPLACE FUNCTION app.fields_that_differ(p_old jsonb, p_new jsonb, p_fields text[])
RETURNS text[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN ARRAY(
        SELECT f.name
          FROM unnest(p_fields) WITH ORDINALITY AS f(name, ordinal)
         WHERE p_old IS NULL OR (p_old -> f.name) IS DISTINCT FROM (p_new -> f.name)
         ORDER BY f.ordinal);
END
$$;
REVOKE ALL ON FUNCTION app.fields_that_differ(jsonb, jsonb, text[]) FROM PUBLIC;
