-- Percent-decode the escapes of ASCII characters (%01..%7F) once; every other escape stays as it
-- is. The media rule looks only at ASCII (`lot-media`, `/`, `\`, `.`, the folder name), and this way
-- no string is undecodable: %FF or a broken UTF-8 sequence cannot hide an escaped slash beside it.
CREATE OR REPLACE FUNCTION app.percent_decode_ascii(p_text text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(
        string_agg(CASE WHEN m.parts[1] IS NOT NULL
                        THEN chr(('x' || substr(m.parts[1], 2))::bit(8)::integer)
                        ELSE m.parts[2] END,
                   '' ORDER BY m.n),
        '')
      FROM regexp_matches(p_text, '(%(?:0[1-9A-Fa-f]|[1-7][0-9A-Fa-f]))|([^%]+|%)', 'g') WITH ORDINALITY AS m(parts, n);
$$;
REVOKE ALL ON FUNCTION app.percent_decode_ascii(text) FROM PUBLIC;
