-- Blank: empty, or nothing but white space (app.white_space_class: sql/registry/constants.toml).
CREATE OR REPLACE FUNCTION app.is_blank(p_text text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_text ~ ('^[' || app.white_space_class() || ']*$');
$$;
REVOKE ALL ON FUNCTION app.is_blank(text) FROM PUBLIC;

-- The text without the white space around it.
CREATE OR REPLACE FUNCTION app.trim_white_space(p_text text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT regexp_replace(p_text, '^[' || app.white_space_class() || ']+|[' || app.white_space_class() || ']+$', '', 'g');
$$;
REVOKE ALL ON FUNCTION app.trim_white_space(text) FROM PUBLIC;
