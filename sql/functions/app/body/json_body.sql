-- A request body as jsonb, refusing what PostgreSQL cannot hold as bad input, never a 500:
--   not JSON at all, or nested deeper than the parser allows  -> invalid_json
--   JSON whose strings or numbers jsonb cannot hold (\u0000, a lone surrogate, a number out of
--   every range)                                              -> invalid_body, field = the top-level
--                                                                member holding it
--   a key given twice in any object of the body               -> invalid_body (p_nested_error below
--                                                                the top level), field as
--                                                                app.json_first_repeated_key names it
-- The body is first read as `json` (syntax only, duplicate keys kept), so that syntax and content
-- faults are told apart and duplicates can be seen: jsonb keeps only the last of them.
CREATE OR REPLACE FUNCTION app.json_body(p_body text, p_nested_error text DEFAULT 'invalid_body')
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_json json;
    v_body jsonb;
    v_sent text;
    v_held text;
    v_repeated record;
BEGIN
    IF p_body IS NULL THEN
        PERFORM app.refuse(422, 'invalid_json');
    END IF;
    BEGIN
        v_json := p_body::json;
    EXCEPTION
        WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
            PERFORM app.refuse(422, 'invalid_json');
    END;
    BEGIN
        v_body := v_json::jsonb;
    EXCEPTION
        WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
            PERFORM app.refuse(422, 'invalid_body', app.json_member_not_held(p_body));
    END;
    -- jsonb keeps one member per key: as many keys as the text gives means none is given twice (the
    -- walk naming the first repetition is only needed when they differ). In a plain copy every quote
    -- is a string's own, so a key is a quote followed by a colon; jsonb writes it `"key": `.
    -- (A colon right after white space anywhere, strings included, sends the count to the regular
    -- expression; otherwise every key's quote is right before its colon, a plain substring count.)
    v_sent := app.json_plain(p_body);
    v_held := app.json_plain(v_body::text);
    IF (CASE WHEN strpos(v_sent, ' :') + strpos(v_sent, E'\t:') + strpos(v_sent, E'\n:') + strpos(v_sent, E'\r:') = 0
             THEN (char_length(v_sent) - char_length(replace(v_sent, '":', ''))) / 2
             ELSE regexp_count(v_sent, '"[ \t\n\r]*:')
        END) <> (char_length(v_held) - char_length(replace(v_held, '": ', ''))) / 3 THEN
        SELECT * INTO v_repeated FROM app.json_first_repeated_key(v_json);
        IF v_repeated.field IS NOT NULL THEN
            PERFORM app.refuse(422, CASE WHEN v_repeated.depth = 0 THEN 'invalid_body' ELSE p_nested_error END, v_repeated.field);
        END IF;
    END IF;
    RETURN v_body;
END
$$;
REVOKE ALL ON FUNCTION app.json_body(text, text) FROM PUBLIC;

-- The first object of a JSON document, in document order, that gives a key twice, and its first
-- repeated key in byte order, named as a refusal's field: at the top level the key itself; in an
-- object that is a top-level member's value `<member>.<key>` (cancellation.penalty_percent_after);
-- in an object that is an element of a top-level array `<member>[<index>].<key>`
-- (blocked_periods[3].reason); anywhere deeper the top-level member alone (arrival). No row when no
-- object repeats a key. depth: 0 for the top level.
CREATE OR REPLACE FUNCTION app.json_first_repeated_key(p_json json, OUT field text, OUT depth integer)
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH RECURSIVE node (place, depth, member, name, value) AS (
        SELECT ARRAY[]::bigint[], 0, NULL::text, NULL::text, p_json
        UNION ALL
        SELECT n.place || c.n,
               n.depth + 1,
               coalesce(n.member, c.key),
               CASE WHEN n.depth = 0 THEN c.key
                    WHEN n.depth = 1 AND c.key IS NULL THEN format('%s[%s]', n.member, c.n - 1)
               END,
               c.value
          FROM node AS n
         CROSS JOIN LATERAL (
               SELECT e.key, e.n, e.value
                 FROM json_each(CASE WHEN json_typeof(n.value) = 'object' THEN n.value END) WITH ORDINALITY AS e(key, value, n)
               UNION ALL
               SELECT NULL, a.n, a.value
                 FROM json_array_elements(CASE WHEN json_typeof(n.value) = 'array' THEN n.value END) WITH ORDINALITY AS a(value, n)
         ) AS c
         WHERE json_typeof(c.value) IN ('object', 'array'))
    SELECT CASE WHEN n.depth = 0 THEN r.key
                WHEN n.name IS NOT NULL THEN n.name || '.' || r.key
                ELSE n.member
           END,
           n.depth
      FROM node AS n
     CROSS JOIN LATERAL (
           SELECT k AS key
             FROM json_object_keys(n.value) AS k
            GROUP BY k
           HAVING count(*) > 1
            ORDER BY k COLLATE "C"
            LIMIT 1) AS r
     WHERE json_typeof(n.value) = 'object'
     ORDER BY n.place
     LIMIT 1;
$$;
REVOKE ALL ON FUNCTION app.json_first_repeated_key(json) FROM PUBLIC;

-- A JSON text with every backslash escape spelled out without a backslash, reversibly: `~` itself
-- first becomes `~0`, then `\\` `~1`, `\"` `~2`, any other `\` `~3` (escapes are read left to right, as
-- replace() reads them). The same structure and the same members, no escape left for a parser to
-- fail on, and every quote left is a string's own.
CREATE OR REPLACE FUNCTION app.json_plain(p_json text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(p_json, '~', '~0'), '\\', '~1'), '\"', '~2'), '\', '~3');
$$;
REVOKE ALL ON FUNCTION app.json_plain(text) FROM PUBLIC;

-- A piece of a plain copy (app.json_plain) back as it was sent: the replacements in reverse order.
CREATE OR REPLACE FUNCTION app.json_unplain(p_plain text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(p_plain, '~3', '\'), '~2', '\"'), '~1', '\\'), '~0', '~');
$$;
REVOKE ALL ON FUNCTION app.json_unplain(text) FROM PUBLIC;

-- The top-level member of a syntactically valid JSON object whose value holds the first token, in
-- document order, that jsonb cannot hold, or NULL (not an object, or the fault is in a top-level
-- key). PostgreSQL's JSON functions de-escape every string while they walk, so they cannot walk the
-- text as sent. They walk its plain copy instead (app.json_plain), and each piece turns back into
-- its text as sent (app.json_unplain). Only the keys and values that can fail are tried:
-- those with a \u escape, an exponent of four digits or more, or over 1000 characters (a number of at
-- most 1000 characters whose exponent is under 1000 is within numeric's range). By bisection over
-- them in document order: O(log n) tries, each in its own subtransaction. Only ever called on the
-- refusal path.
CREATE OR REPLACE FUNCTION app.json_member_not_held(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_plain json;
    v_tokens text[];
    v_members text[];
    v_low integer := 1;
    v_high integer;
    v_middle integer;
BEGIN
    IF json_typeof(p_json::json) <> 'object' THEN
        RETURN NULL;
    END IF;
    v_plain := app.json_plain(p_json)::json;
    WITH member AS (
        SELECT m.n, '"' || m.key || '"' AS key, m.value::text AS value
          FROM json_each(v_plain) WITH ORDINALITY AS m(key, value, n)),
    suspect AS (
        -- each key or value that can fail, in document order (a key before its value), as plain text
        SELECT m.n, 0 AS side, m.key AS token, NULL::text AS member
          FROM member AS m
         WHERE strpos(m.key, '~3u') > 0
        UNION ALL
        SELECT m.n, 1, m.value, m.key
          FROM member AS m
         WHERE strpos(m.value, '~3u') > 0 OR m.value ~ '[eE][-+]?[0-9]{4}' OR char_length(m.value) > 1000)
    SELECT array_agg(s.token ORDER BY s.n, s.side), array_agg(s.member ORDER BY s.n, s.side)
      INTO v_tokens, v_members
      FROM suspect AS s;

    -- The first token not held lies in v_low .. v_high, if any does. A run of tokens is tried as
    -- sent: their plain texts joined, then turned back at once (a plain token's codes never run
    -- into the next one's, so this is the tokens as sent, joined).
    v_high := coalesce(cardinality(v_tokens), 0);
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_values_held(app.json_unplain(array_to_string(v_tokens[v_low:v_middle], ','))) THEN
            v_low := v_middle + 1;
        ELSE
            v_high := v_middle;
        END IF;
    END LOOP;
    IF v_high = 0 OR app.json_values_held(app.json_unplain(v_tokens[v_low])) THEN
        RETURN NULL;
    END IF;
    -- (a value's key is held: were it not, the key would have come first)
    RETURN app.json_unplain(v_members[v_low])::jsonb #>> '{}';
END
$$;
REVOKE ALL ON FUNCTION app.json_member_not_held(text) FROM PUBLIC;

-- Whether jsonb can hold every one of these JSON texts (p_values: the texts joined by commas).
CREATE OR REPLACE FUNCTION app.json_values_held(p_values text)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ('[' || p_values || ']')::jsonb;
    RETURN true;
EXCEPTION
    WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
        RETURN false;
END
$$;
REVOKE ALL ON FUNCTION app.json_values_held(text) FROM PUBLIC;
