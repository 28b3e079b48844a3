-- Date readers for request bodies: a date is exactly YYYY-MM-DD and a real calendar day (a timestamp
-- is refused, never truncated); a local date-time exactly YYYY-MM-DDTHH:MM:SS (no zone). SQL NULL
-- for an absent key or JSON null; anything else is PT422 p_error naming p_field.

-- The JSON string, when it is exactly the text of a real moment in p_format (a to_char pattern of
-- YYYY, MM, DD, HH24, MI, SS and literal "T"): it must read back unchanged.
CREATE OR REPLACE FUNCTION app.json_calendar_text(p_value jsonb, p_field text, p_error text, p_format text)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_text text := p_value #>> '{}';
    v_shape text := replace(replace(replace(replace(replace(replace(replace(
        p_format, 'YYYY', '[0-9]{4}'), 'MM', '[0-9]{2}'), 'DD', '[0-9]{2}'), 'HH24', '[0-9]{2}'),
        'MI', '[0-9]{2}'), 'SS', '[0-9]{2}'), '"T"', 'T');
BEGIN
    IF app.json_absent(p_value) THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) = 'string' AND v_text ~ ('^' || v_shape || '$') THEN
        BEGIN
            IF to_char(v_text::timestamp, p_format) = v_text THEN
                RETURN v_text;
            END IF;
        EXCEPTION
            WHEN datetime_field_overflow OR invalid_datetime_format THEN
                NULL;
        END;
    END IF;
    PERFORM app.refuse(422, p_error, p_field);
    RETURN NULL;  -- not reached
END
$$;
REVOKE ALL ON FUNCTION app.json_calendar_text(jsonb, text, text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.json_date(p_value jsonb, p_field text, p_error text DEFAULT 'invalid_body')
RETURNS date
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT app.json_calendar_text(p_value, p_field, p_error, 'YYYY-MM-DD')::date;
$$;
REVOKE ALL ON FUNCTION app.json_date(jsonb, text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.json_local_timestamp(p_value jsonb, p_field text)
RETURNS timestamp
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT app.json_calendar_text(p_value, p_field, 'invalid_body', 'YYYY-MM-DD"T"HH24:MI:SS')::timestamp;
$$;
REVOKE ALL ON FUNCTION app.json_local_timestamp(jsonb, text) FROM PUBLIC;
