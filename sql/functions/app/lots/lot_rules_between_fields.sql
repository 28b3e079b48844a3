-- The rules of a lot body that read more than one field, each run where app.lot_fields puts it
-- (`rules_before`: just before the named field is read). p_fields: the fields read so far, as
-- app.lot_from_body holds them (jsonb by field name).
--   coordinates_paired     latitude and longitude both or neither: `invalid_coordinates` naming the
--                          missing one
--   stay_bounds            min_stay_days <= max_stay_days: else `invalid_stay_bounds` min_stay_days
--   cancellation_complete  `cancellation` an object of the registry's cancellation keys, all three
--                          or none (JSON null counts as absent; `{}` means no policy): else
--                          `invalid_body`, `unknown_field` `cancellation.<key>`, or
--                          `incomplete_cancellation_policy`
CREATE OR REPLACE FUNCTION app.lot_rule_between_fields(p_rule text, p_body jsonb, p_fields jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_value jsonb;
    v_keys text[];
BEGIN
    CASE p_rule
        WHEN 'coordinates_paired' THEN
            IF app.json_absent(p_body -> 'latitude') <> app.json_absent(p_body -> 'longitude') THEN
                PERFORM app.refuse(422, 'invalid_coordinates',
                    CASE WHEN app.json_absent(p_body -> 'latitude') THEN 'latitude' ELSE 'longitude' END);
            END IF;
        WHEN 'stay_bounds' THEN
            IF (p_fields ->> 'min_stay_days')::integer > (p_fields ->> 'max_stay_days')::integer THEN
                PERFORM app.refuse(422, 'invalid_stay_bounds', 'min_stay_days');
            END IF;
        WHEN 'cancellation_complete' THEN
            v_value := p_body -> 'cancellation';
            IF app.json_absent(v_value) THEN
                RETURN;
            END IF;
            IF jsonb_typeof(v_value) <> 'object' THEN
                PERFORM app.refuse(422, 'invalid_body', 'cancellation');
            END IF;
            v_keys := ARRAY(SELECT f.body_path[2] FROM app.lot_fields() AS f WHERE f.body_path[1] = 'cancellation');
            PERFORM app.refuse_unknown_keys(v_value, v_keys, 'cancellation.');
            IF (SELECT count(*) FROM jsonb_each(v_value) AS m WHERE jsonb_typeof(m.value) <> 'null')
               NOT IN (0, cardinality(v_keys)) THEN
                PERFORM app.refuse(422, 'incomplete_cancellation_policy', 'cancellation');
            END IF;
    END CASE;
END
$$;
REVOKE ALL ON FUNCTION app.lot_rule_between_fields(text, jsonb, jsonb) FROM PUBLIC;
