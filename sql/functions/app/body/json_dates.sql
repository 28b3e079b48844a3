-- Date readers for request bodies: a date is exactly YYYY-MM-DD and a real calendar day (a timestamp
-- is refused, never truncated); a local date-time exactly YYYY-MM-DDTHH:MM:SS (no zone). SQL NULL
-- for an absent key or JSON null; anything else is PT422 p_error naming p_field.

-- The JSON string, when it is exactly the text of a real moment in p_format: 'YYYY-MM-DD' or
-- 'YYYY-MM-DD"T"HH24:MI:SS' (app.json_date, app.json_local_timestamp). The shape is matched first
-- (the time's ranges with it), then the date's: a year from 0001, a month of 1-12, a day within its
-- month (the 29th of February only in a leap year). Nothing is cast before it is known to be
-- castable, so no exception block (a subtransaction on every call) is needed; and the regular
-- expressions capture nothing (a `regexp_match` with captures makes the engine dissect the match,
-- many times dearer than `~`).
CREATE OR REPLACE FUNCTION app.json_calendar_text(p_value jsonb, p_field text, p_error text, p_format text)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text text;
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    v_text := CASE WHEN jsonb_typeof(p_value) = 'string' THEN p_value #>> '{}' END;
    -- One expression (each expression of a function costs its setting-up in every transaction,
    -- and a booking write is one transaction). CASE evaluates in order, so make_date never sees a
    -- year 0 or a month 13; AND has no documented order.
    IF (CASE WHEN v_text ~ CASE p_format
                               WHEN 'YYYY-MM-DD' THEN '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
                              WHEN 'YYYY-MM-DD"T"HH24:MI:SS' THEN
                                  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$'
                          END
                 AND substr(v_text, 1, 4) COLLATE "C" <> '0000'
                 AND substr(v_text, 6, 2) COLLATE "C" BETWEEN '01' AND '12'
            THEN substr(v_text, 9, 2)::integer
                 BETWEEN 1 AND extract(day FROM make_date(substr(v_text, 1, 4)::integer, substr(v_text, 6, 2)::integer, 1)
                                                + interval '1 month - 1 day')
        END) THEN
        RETURN v_text;
    END IF;
    IF p_format NOT IN ('YYYY-MM-DD', 'YYYY-MM-DD"T"HH24:MI:SS') THEN
        RAISE EXCEPTION 'app.json_calendar_text: no shape for the format %', p_format;
    END IF;
    PERFORM app.refuse(422, p_error, p_field);
    RETURN NULL;  -- not reached
END
$$;
REVOKE ALL ON FUNCTION app.json_calendar_text(jsonb, text, text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.json_date(p_value jsonb, p_field text, p_error text DEFAULT 'invalid_body')
RETURNS date
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.json_calendar_text(p_value, p_field, p_error, 'YYYY-MM-DD')::date;
END
$$;
REVOKE ALL ON FUNCTION app.json_date(jsonb, text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.json_local_timestamp(p_value jsonb, p_field text)
RETURNS timestamp
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.json_calendar_text(p_value, p_field, 'invalid_body', 'YYYY-MM-DD"T"HH24:MI:SS')::timestamp;
END
$$;
REVOKE ALL ON FUNCTION app.json_local_timestamp(jsonb, text) FROM PUBLIC;
