-- A request body as jsonb, refusing what PostgreSQL cannot hold as bad input, never a 500:
--   not JSON at all, or nested deeper than the parser allows  -> invalid_json
--   JSON whose strings or numbers jsonb cannot hold (\u0000, a lone surrogate, a number out of
--   every range)                                              -> invalid_body, field = the top-level
--                                                                member holding it
--   a top-level member given twice                            -> invalid_body, field = that member
-- The body is first read as `json` (syntax only), so that syntax and content faults are told apart.
CREATE OR REPLACE FUNCTION app.json_body(p_body text)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    v_json json;
    v_body jsonb;
    v_duplicate text;
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
    IF jsonb_typeof(v_body) = 'object' THEN
        SELECT k INTO v_duplicate FROM json_object_keys(v_json) AS k GROUP BY k HAVING count(*) > 1 ORDER BY k LIMIT 1;
        IF v_duplicate IS NOT NULL THEN
            PERFORM app.refuse(422, 'invalid_body', v_duplicate);
        END IF;
    END IF;
    RETURN v_body;
END
$$;
REVOKE ALL ON FUNCTION app.json_body(text) FROM PUBLIC;

-- The top-level member of a syntactically valid JSON object whose value holds the first token jsonb
-- cannot hold, or NULL (not an object, or the fault is in a key). PostgreSQL's JSON functions
-- de-escape every string while they walk, so they cannot be used to find it: the text is split into
-- tokens instead, each string or number tried alone. Only ever called on the refusal path.
CREATE OR REPLACE FUNCTION app.json_member_not_held(p_json text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = ''
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
          FROM regexp_matches(p_json, '("(?:[^"\\]|\\.)*"|[][{}:,]|[^][{}:,"[:space:]]+)', 'g') WITH ORDINALITY AS m(token, n)
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
