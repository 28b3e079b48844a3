-- Reading a write's body. JSON syntax is the gateway's (docs/design.md): src/json_syntax.rs reads
-- every body once, strictly, and sends its verdict with the body; app.refuse_body_fault raises it
-- in its place in the order of checks (docs/design.md: after 401 and the caller's-lot check, before
-- any rule about a value and before the unchanged-body digest shortcut); then app.json_body reads
-- the body as jsonb. Every value is the database's.

-- The gateway's verdict on a body, raised: p_body_fault is NULL when it found no fault (or the
-- caller is not the gateway), else {"error": "invalid_json" | "invalid_body", "field": <name,
-- optional>, "nested": <boolean>}. A nested fault (a key given twice below the top level) is
-- answered with p_nested_error, each route's own code (the closures route's
-- invalid_blocked_periods). A verdict of any other shape is the gateway's bug: an internal error,
-- never an answer made up from it.
CREATE OR REPLACE FUNCTION app.refuse_body_fault(p_body_fault jsonb, p_nested_error text DEFAULT 'invalid_body')
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_body_fault IS NULL THEN
        RETURN;
    END IF;
    -- (invalid_json names no field and is never nested; a nested fault always names one)
    IF NOT coalesce(jsonb_typeof(p_body_fault) = 'object'
                    AND CASE p_body_fault ->> 'error'
                            WHEN 'invalid_json' THEN p_body_fault -> 'nested' = 'false' AND NOT p_body_fault ? 'field'
                            WHEN 'invalid_body' THEN jsonb_typeof(p_body_fault -> 'nested') = 'boolean'
                                                     AND coalesce(jsonb_typeof(p_body_fault -> 'field'), 'string') = 'string'
                                                     AND (p_body_fault -> 'nested' = 'false' OR p_body_fault ? 'field')
                        END
                    AND NOT EXISTS (SELECT FROM jsonb_object_keys(p_body_fault) AS k
                                     WHERE k NOT IN ('error', 'field', 'nested')), false) THEN
        RAISE EXCEPTION 'app.refuse_body_fault: a body verdict of an unknown shape';
    END IF;
    PERFORM app.refuse(422,
                       CASE WHEN (p_body_fault -> 'nested')::boolean THEN p_nested_error ELSE p_body_fault ->> 'error' END,
                       p_body_fault ->> 'field');
END
$$;
REVOKE ALL ON FUNCTION app.refuse_body_fault(jsonb, text) FROM PUBLIC;

-- A body as jsonb, with a backstop whoever calls: a body that jsonb cannot read is still bad input,
-- never a 500. Not JSON at all (or NULL: not UTF-8), or nested deeper than the parser allows:
-- invalid_json. JSON whose strings or numbers jsonb cannot hold (\u0000, a lone surrogate, a number
-- out of numeric's range): invalid_body, without a field (naming the member is the gateway's). A key
-- given twice, or a number written with an exponent beyond ±20, only the gateway finds: jsonb keeps
-- the last of such members, and holds such numbers. An array or a scalar body is returned as it is;
-- the caller refuses its shape.
CREATE OR REPLACE FUNCTION app.json_body(p_body text)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_body IS NULL THEN
        PERFORM app.refuse(422, 'invalid_json');
    END IF;
    BEGIN
        RETURN p_body::jsonb;
    EXCEPTION
        WHEN statement_too_complex THEN
            PERFORM app.refuse(422, 'invalid_json');
        WHEN data_exception OR program_limit_exceeded THEN
            NULL;
    END;
    -- Syntax, or content? (json reads the syntax only)
    BEGIN
        PERFORM p_body::json;
    EXCEPTION
        WHEN data_exception OR statement_too_complex OR program_limit_exceeded THEN
            PERFORM app.refuse(422, 'invalid_json');
    END;
    PERFORM app.refuse(422, 'invalid_body');
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.json_body(text) FROM PUBLIC;
