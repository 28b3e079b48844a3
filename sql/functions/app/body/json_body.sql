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

-- The top-level member of a syntactically valid JSON object whose value holds the first token jsonb
-- cannot hold, or NULL (not an object, or the fault is in a key). PostgreSQL's JSON functions
-- de-escape every string while they walk, so they cannot be used to find it: the text is split into
-- tokens instead, each string or number tried alone. Only ever called on the refusal path.
CREATE OR REPLACE FUNCTION app.json_member_not_held(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_token text;
    v_depth integer := 0;
    v_expect_key boolean := false;
    v_key text;
BEGIN
    IF json_typeof(p_json::json) <> 'object' THEN
        RETURN NULL;
    END IF;
    FOR v_token IN
        SELECT m.token[1]
          FROM regexp_matches(p_json, '("(?:[^"\\]|\\.)*"|[][{}:,]|[^][{}:," \t\n\r]+)', 'g') WITH ORDINALITY AS m(token, n)
         ORDER BY m.n
    LOOP
        CASE
            WHEN v_token IN ('{', '[') THEN
                v_depth := v_depth + 1;
                v_expect_key := v_depth = 1;
            WHEN v_token IN ('}', ']') THEN
                v_depth := v_depth - 1;
            WHEN v_token = ',' THEN
                v_expect_key := v_depth = 1;
            WHEN v_token = ':' THEN
                v_expect_key := false;
            ELSE
                BEGIN
                    IF v_expect_key THEN
                        v_key := NULL;
                        v_key := v_token::jsonb #>> '{}';
                    ELSE
                        PERFORM v_token::jsonb;
                    END IF;
                EXCEPTION
                    WHEN data_exception THEN
                        RETURN v_key;
                END;
        END CASE;
    END LOOP;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.json_member_not_held(text) FROM PUBLIC;
