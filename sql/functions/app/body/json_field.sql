-- A member of a write body read by the kind its field registry gives it (app.lot_fields,
-- app.rates_fields), as jsonb ready for jsonb_populate_record; SQL NULL for an absent key or JSON
-- null. Anything else that is not of its kind is refused with PT422 `invalid_body` naming p_field.
--   text        a string of at most p_max characters, verbatim
--   integer     an integral number within p_min..p_max
--   boolean     true or false
--   money       app.json_money, and at most p_max when given
--   date        YYYY-MM-DD
--   choice      one of p_choices
--   choice_set  an array of at most p_max items, each one of p_choices; sorted (byte order), distinct
-- The kinds a registry names beyond these are read by the registry's own reader.
CREATE OR REPLACE FUNCTION app.json_field(
    p_value jsonb, p_field text, p_kind text, p_min numeric, p_max numeric, p_choices text[])
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_amount numeric;
BEGIN
    IF coalesce(p_value, 'null') = 'null' THEN
        RETURN NULL;
    END IF;
    CASE p_kind
        WHEN 'text' THEN
            RETURN to_jsonb(app.json_text(p_value, p_field, p_max::integer));
        WHEN 'integer' THEN
            RETURN to_jsonb(app.json_integer(p_value, p_field, p_min::integer, p_max::integer));
        WHEN 'boolean' THEN
            RETURN to_jsonb(app.json_boolean(p_value, p_field));
        WHEN 'money' THEN
            v_amount := app.json_money(p_value, p_field);
            IF v_amount > p_max THEN
                PERFORM app.refuse(422, 'invalid_body', p_field);
            END IF;
            RETURN to_jsonb(v_amount);
        WHEN 'date' THEN
            RETURN to_jsonb(app.json_date(p_value, p_field));
        WHEN 'choice' THEN
            IF jsonb_typeof(p_value) <> 'string' OR NOT (p_value #>> '{}') = ANY (p_choices) THEN
                PERFORM app.refuse(422, 'invalid_body', p_field);
            END IF;
            RETURN p_value;
        WHEN 'choice_set' THEN
            IF jsonb_typeof(p_value) <> 'array'
               OR jsonb_array_length(p_value) > p_max
               OR EXISTS (SELECT FROM jsonb_array_elements(p_value) AS e
                           WHERE jsonb_typeof(e) <> 'string' OR NOT (e #>> '{}') = ANY (p_choices)) THEN
                PERFORM app.refuse(422, 'invalid_body', p_field);
            END IF;
            RETURN to_jsonb(ARRAY(SELECT DISTINCT e COLLATE "C" FROM jsonb_array_elements_text(p_value) AS e ORDER BY 1));
        ELSE
            -- a registry naming a kind nobody reads: the project's mistake, an internal error
            RAISE EXCEPTION 'app.json_field: no reader for the kind %', p_kind;
    END CASE;
END
$$;
REVOKE ALL ON FUNCTION app.json_field(jsonb, text, text, numeric, numeric, text[]) FROM PUBLIC;
