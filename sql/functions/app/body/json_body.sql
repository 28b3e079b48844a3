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
    SELECT * INTO v_repeated FROM app.json_first_repeated_key(v_json);
    IF v_repeated.field IS NOT NULL THEN
        PERFORM app.refuse(422, CASE WHEN v_repeated.depth = 0 THEN 'invalid_body' ELSE p_nested_error END, v_repeated.field);
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

-- The top-level member of a syntactically valid JSON object whose value holds the first token, in
-- document order, that jsonb cannot hold, or NULL (not an object, or the fault is in a top-level
-- key). PostgreSQL's JSON functions de-escape every string while they walk, so they cannot be used to
-- find it. The text is cut at its quotes instead (string_to_table, fast: a regular-expression
-- tokenizer cost 8-10 ms on 64 KiB); a quote after an odd run of backslashes is escaped (outside
-- strings JSON has no backslashes), so the pieces between real quotes alternate outside and inside
-- strings. Only the tokens that can fail are tried — strings with a \u escape, numbers with an
-- exponent or of over 1000 characters — by bisection: O(log n) tries, each in its own
-- subtransaction. Only ever called on the refusal path.
CREATE OR REPLACE FUNCTION app.json_member_not_held(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_tokens text[];
    v_members text[];
    v_low integer := 1;
    v_high integer;
    v_middle integer;
BEGIN
    IF json_typeof(p_json::json) <> 'object' THEN
        RETURN NULL;
    END IF;
    WITH piece AS (
        SELECT p.n, p.text, (char_length(p.text) - char_length(rtrim(p.text, '\'))) % 2 = 1 AS escapes_next_quote
          FROM string_to_table(p_json, '"') WITH ORDINALITY AS p(text, n)),
    counted AS (
        -- real quotes before each piece: odd inside a string
        SELECT c.n, c.text,
               coalesce(sum(CASE WHEN c.escapes_next_quote THEN 0 ELSE 1 END)
                            OVER (ORDER BY c.n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS quotes
          FROM piece AS c),
    outside AS (
        -- each piece outside strings with the nesting depth at its end: 1 inside the top-level object
        SELECT o.n, o.text,
               sum(char_length(o.text) - char_length(translate(o.text, '{[', ''))
                   - char_length(o.text) + char_length(translate(o.text, '}]', ''))) OVER (ORDER BY o.n) AS depth
          FROM counted AS o
         WHERE o.quotes % 2 = 0),
    string AS (
        SELECT min(i.n) AS n, '"' || string_agg(i.text, '"' ORDER BY i.n) || '"' AS token
          FROM counted AS i
         WHERE i.quotes % 2 = 1
         GROUP BY i.quotes),
    top_key AS (
        SELECT s.n, s.token
          FROM string AS s
          JOIN outside AS o ON o.n = s.n - 1
         WHERE o.depth = 1 AND right(rtrim(o.text, E' \t\n\r'), 1) IN ('{', ',')),
    stream AS (
        -- every string, and the numbers of the pieces outside strings, in document order
        SELECT s.n, 0::bigint AS m, s.token, k.n IS NOT NULL AS is_key, strpos(s.token, '\u') > 0 AS may_fail
          FROM string AS s
          LEFT JOIN top_key AS k ON k.n = s.n
        UNION ALL
        SELECT o.n, x.m, x.number[1], false, x.number[1] ~ '[eE]' OR char_length(x.number[1]) > 1000
          FROM outside AS o
         CROSS JOIN LATERAL regexp_matches(o.text, '(-?[0-9][-+.0-9eE]*)', 'g') WITH ORDINALITY AS x(number, m)
         WHERE o.text ~ '[0-9]' AND (o.text ~ '[eE]' OR char_length(o.text) > 1000)),
    owned AS (
        -- each token with the top-level key before it (its member's)
        SELECT t.n, t.m, t.token, t.is_key, t.may_fail,
               max(CASE WHEN t.is_key THEN t.n END) OVER (ORDER BY t.n, t.m) AS key_n
          FROM stream AS t)
    SELECT array_agg(o.token ORDER BY o.n, o.m), array_agg(CASE WHEN NOT o.is_key THEN k.token END ORDER BY o.n, o.m)
      INTO v_tokens, v_members
      FROM owned AS o
      LEFT JOIN top_key AS k ON k.n = o.key_n
     WHERE o.may_fail;

    -- The first token not held lies in v_low .. v_high, if any does.
    v_high := coalesce(cardinality(v_tokens), 0);
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high) / 2;
        IF app.json_values_held(v_tokens[v_low:v_middle]) THEN
            v_low := v_middle + 1;
        ELSE
            v_high := v_middle;
        END IF;
    END LOOP;
    IF v_high = 0 OR app.json_values_held(v_tokens[v_low:v_low]) THEN
        RETURN NULL;
    END IF;
    -- (a held key: were it not, its own token would have come first)
    RETURN v_members[v_low]::jsonb #>> '{}';
END
$$;
REVOKE ALL ON FUNCTION app.json_member_not_held(text) FROM PUBLIC;

-- Whether jsonb can hold every one of these JSON texts.
CREATE OR REPLACE FUNCTION app.json_values_held(p_values text[])
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ('[' || array_to_string(p_values, ',') || ']')::jsonb;
    RETURN true;
EXCEPTION
    WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
        RETURN false;
END
$$;
REVOKE ALL ON FUNCTION app.json_values_held(text[]) FROM PUBLIC;
