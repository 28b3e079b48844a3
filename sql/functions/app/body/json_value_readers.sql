-- Typed readers for members of a request body. Each takes the member's jsonb value (SQL NULL when
-- the key is absent), answers SQL NULL for an absent key or JSON null, and refuses anything else that
-- is not of its type with PT422 p_error (default invalid_body) naming p_field.
--
-- The readers (these, app.json_field and app.json_calendar_text) test absence themselves,
-- `coalesce(p_value, 'null') = 'null'`, the rule of app.json_absent written as one expression: a
-- nested call costs a PL/pgSQL call and its SET clause, and a booking reads sixteen members.

-- A JSON number with an integral value (12 and 12.0 alike) within p_min..p_max. Strings are refused.
CREATE OR REPLACE FUNCTION app.json_integer(p_value jsonb, p_field text, p_min integer, p_max integer)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) <> 'number'
       OR p_value::numeric % 1 <> 0
       OR p_value::numeric NOT BETWEEN p_min AND p_max THEN
        PERFORM app.refuse(422, 'invalid_body', p_field);
    END IF;
    RETURN p_value::numeric::integer;
END
$$;
REVOKE ALL ON FUNCTION app.json_integer(jsonb, text, integer, integer) FROM PUBLIC;

-- A JSON string of at most p_max_length characters, stored verbatim.
CREATE OR REPLACE FUNCTION app.json_text(p_value jsonb, p_field text, p_max_length integer)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) <> 'string' OR char_length(p_value #>> '{}') > p_max_length THEN
        PERFORM app.refuse(422, 'invalid_body', p_field);
    END IF;
    RETURN p_value #>> '{}';
END
$$;
REVOKE ALL ON FUNCTION app.json_text(jsonb, text, integer) FROM PUBLIC;

-- true or false, nothing else.
CREATE OR REPLACE FUNCTION app.json_boolean(p_value jsonb, p_field text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) <> 'boolean' THEN
        PERFORM app.refuse(422, 'invalid_body', p_field);
    END IF;
    RETURN p_value::boolean;
END
$$;
REVOKE ALL ON FUNCTION app.json_boolean(jsonb, text) FROM PUBLIC;

-- A decimal: a JSON number, or a string of the form -?digits[.digits] of at most 100 characters
-- (longer is refused like any unusable value: numeric could not even hold 20 000 decimals). Exact:
-- jsonb keeps a number's digits, so 12.345 arrives as 12.345, never as a float.
CREATE OR REPLACE FUNCTION app.json_decimal(p_value jsonb, p_field text, p_error text DEFAULT 'invalid_body')
RETURNS numeric
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) = 'number' THEN
        RETURN p_value::numeric;
    END IF;
    IF jsonb_typeof(p_value) <> 'string'
       OR char_length(p_value #>> '{}') > 100
       OR (p_value #>> '{}') !~ '^-?[0-9]+(\.[0-9]+)?$' THEN
        PERFORM app.refuse(422, p_error, p_field);
    END IF;
    RETURN (p_value #>> '{}')::numeric;
END
$$;
REVOKE ALL ON FUNCTION app.json_decimal(jsonb, text, text) FROM PUBLIC;

-- Money (and percentages): a non-negative decimal with at most two decimals, below ten thousand
-- million (what the money columns hold). A third non-zero decimal digit is refused, never rounded:
-- 12.340 is 12.34, 12.345 and 12.3400001 are refused.
CREATE OR REPLACE FUNCTION app.json_money(p_value jsonb, p_field text)
RETURNS numeric
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_amount numeric := app.json_decimal(p_value, p_field);
BEGIN
    IF v_amount < 0 OR v_amount >= 10000000000 OR v_amount <> round(v_amount, 2) THEN
        PERFORM app.refuse(422, 'invalid_body', p_field);
    END IF;
    RETURN round(v_amount, 2);
END
$$;
REVOKE ALL ON FUNCTION app.json_money(jsonb, text) FROM PUBLIC;

-- The size rule of arrival and media: whether the bytes of the value's compact JSON text exceed
-- p_limit. jsonb's text form differs from the compact form only by one space after each ':' and ','
-- outside strings. Counting those exactly means finding the strings (a regular expression: tens of
-- milliseconds on 64 KiB), so it is done only when the cheap bounds cannot tell: the text form is an
-- upper bound, and the text form less one byte per ", " or ": " anywhere (inside strings too) a
-- lower bound.
CREATE OR REPLACE FUNCTION app.json_compact_longer_than(p_value jsonb, p_limit integer)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- (a variable: as a SQL function the text form was computed again at every use)
    v_text constant text := p_value::text;
BEGIN
    IF octet_length(v_text) <= p_limit THEN
        RETURN false;
    ELSIF octet_length(v_text) - (octet_length(v_text) - octet_length(replace(v_text, ', ', ''))) / 2
          - (octet_length(v_text) - octet_length(replace(v_text, ': ', ''))) / 2 > p_limit THEN
        RETURN true;
    END IF;
    RETURN octet_length(v_text) - (SELECT octet_length(s.outside) - octet_length(replace(s.outside, ' ', ''))
                                     FROM regexp_replace(v_text, '"(?:[^"\\]|\\.)*"', '', 'g') AS s(outside)) > p_limit;
END
$$;
REVOKE ALL ON FUNCTION app.json_compact_longer_than(jsonb, integer) FROM PUBLIC;
