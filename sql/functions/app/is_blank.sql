-- Blank: empty, or nothing but white space. White space is named here, not left to the cluster's
-- locale (whose [:space:] varies): ASCII white space, NEL, no-break and the other Unicode spaces,
-- line and paragraph separators, and the byte-order mark.
CREATE OR REPLACE FUNCTION app.is_blank(p_text text)
RETURNS boolean
LANGUAGE sql
IMMUTABLE
SET search_path = ''
AS $$
    SELECT p_text ~ '^[ \t\n\r\f\v\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*$';
$$;
REVOKE ALL ON FUNCTION app.is_blank(text) FROM PUBLIC;
