-- The media rule: every string anywhere in `media` (values and keys) that contains `lot-media`,
-- read percent-decoded (until nothing more decodes, so %252F cannot hide a slash) and with
-- backslashes read as slashes, has `/<operator_folder>/` directly after each occurrence of
-- `lot-media`, and no `.` or `..` segment after it. Any host: the platform's photo store, another
-- operator's photo, or the caller's own site alike. `lot-media` is found whatever its letter case.

CREATE OR REPLACE FUNCTION app.media_string_is_own(p_text text, p_folder text)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text text := p_text;
    v_decoded text;
    v_rest text;
    v_at integer;
BEGIN
    FOR i IN 1 .. 5 LOOP
        v_decoded := app.percent_decode_ascii(v_text);
        EXIT WHEN v_decoded = v_text;
        v_text := v_decoded;
    END LOOP;
    IF app.percent_decode_ascii(v_text) <> v_text THEN
        RETURN false;  -- still decoding after five rounds: no plain address does that
    END IF;
    v_rest := replace(v_text, '\', '/');

    LOOP
        v_at := position('lot-media' IN lower(v_rest COLLATE "C"));
        EXIT WHEN v_at = 0;
        v_rest := substr(v_rest, v_at + char_length('lot-media'));
        IF left(v_rest, char_length(p_folder) + 2) <> '/' || p_folder || '/' THEN
            RETURN false;
        END IF;
        IF EXISTS (SELECT FROM unnest(string_to_array(substr(v_rest, char_length(p_folder) + 3), '/')) AS s
                    WHERE s IN ('.', '..')) THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;
REVOKE ALL ON FUNCTION app.media_string_is_own(text, text) FROM PUBLIC;

-- PL/pgSQL for its kept plan: as a SQL function its query was planned again at every call.
CREATE OR REPLACE FUNCTION app.media_follows_rule(p_media jsonb, p_folder text)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN NOT EXISTS (
        SELECT
          FROM (SELECT v #>> '{}' AS text
                  FROM jsonb_path_query(p_media, 'strict $.** ? (@.type() == "string")') AS v
                UNION ALL
                SELECT k
                  FROM jsonb_path_query(p_media, 'strict $.** ? (@.type() == "object")') AS o,
                       jsonb_object_keys(o) AS k) AS strings
         WHERE NOT app.media_string_is_own(strings.text, p_folder));
END
$$;
REVOKE ALL ON FUNCTION app.media_follows_rule(jsonb, text) FROM PUBLIC;
