-- Date readers for request bodies: a date is exactly YYYY-MM-DD and a real calendar day (a timestamp
-- is refused, never truncated); a local date-time exactly YYYY-MM-DDTHH:MM:SS (no zone). SQL NULL
-- for an absent key or JSON null; anything else is PT422 p_error naming p_field.

CREATE OR REPLACE FUNCTION app.json_date(p_value jsonb, p_field text, p_error text DEFAULT 'invalid_body')
RETURNS date
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    v_text text := p_value #>> '{}';
BEGIN
    IF p_value IS NULL OR jsonb_typeof(p_value) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) = 'string' AND v_text ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
        BEGIN
            IF to_char(v_text::date, 'YYYY-MM-DD') = v_text THEN
                RETURN v_text::date;
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
REVOKE ALL ON FUNCTION app.json_date(jsonb, text, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.json_local_timestamp(p_value jsonb, p_field text)
RETURNS timestamp
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    v_text text := p_value #>> '{}';
BEGIN
    IF p_value IS NULL OR jsonb_typeof(p_value) = 'null' THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) = 'string' AND v_text ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$' THEN
        BEGIN
            IF to_char(v_text::timestamp, 'YYYY-MM-DD"T"HH24:MI:SS') = v_text THEN
                RETURN v_text::timestamp;
            END IF;
        EXCEPTION
            WHEN datetime_field_overflow OR invalid_datetime_format THEN
                NULL;
        END;
    END IF;
    PERFORM app.refuse(422, 'invalid_body', p_field);
    RETURN NULL;  -- not reached
END
$$;
REVOKE ALL ON FUNCTION app.json_local_timestamp(jsonb, text) FROM PUBLIC;
