-- White space, named here rather than left to the database's locale (whose [:space:] and \s vary):
-- ASCII white space, NEL, no-break and the other Unicode spaces, line and paragraph separators, and
-- the byte-order mark. As a regular-expression bracket expression's contents.
CREATE OR REPLACE FUNCTION app.white_space_class()
RETURNS text
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ' \t\n\r\f\v\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
$$;
REVOKE ALL ON FUNCTION app.white_space_class() FROM PUBLIC;

-- Blank: empty, or nothing but white space.
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
