-- The lot write body (PUT /lots/{external_id}) validated and normalised into a lot row, or the first
-- refusal. A full representation: an absent key means null (or the field's default). The keys are
-- checked first:
--   an array body -> too_many_lots; any other non-object -> invalid_body
--   `rates` -> field_belongs_to_another_route; any other unknown key -> unknown_field
-- then `external_id` (checked, not stored), then each field of app.lot_fields in its order, read by
-- its kind, with the rules between fields where the registry puts them. Refusals name the field by
-- its body path (`cancellation.penalty_percent_after`).
-- Returns a row of app.lots with operator_id, id and the review columns unset.
-- INVARIANT of the unchanged-body shortcut (app.lot_write answers `unchanged` at once when the body's
-- digest equals the stored one, app.lot_body_digest): this reading may depend on nothing but the body
-- text, the operator's media folder and the deployed rules (app.deployed_rules). Reading anything
-- else here (another table, a setting, the clock) makes that shortcut wrong: add it to the digest.
CREATE OR REPLACE FUNCTION app.lot_from_body(p_body jsonb, p_external_id text, p_media_folder text)
RETURNS app.lots
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c_keys constant text[] := ARRAY['external_id'] || ARRAY(SELECT DISTINCT f.body_path[1] FROM app.lot_fields() AS f);
    v_field record;
    v_rule text;
    v_path text;
    v_absent boolean;
    v_value jsonb;
    v_read jsonb;
    v_number numeric;
    v_text text;
    v_fields jsonb := '{}'::jsonb;
    v_lot app.lots;
BEGIN
    IF jsonb_typeof(p_body) = 'array' THEN
        PERFORM app.refuse(422, 'too_many_lots');
    ELSIF jsonb_typeof(p_body) IS DISTINCT FROM 'object' THEN
        PERFORM app.refuse(422, 'invalid_body');
    END IF;
    IF p_body ? 'rates' THEN
        PERFORM app.refuse(422, 'field_belongs_to_another_route', 'rates');
    END IF;
    PERFORM app.refuse_unknown_keys(p_body, c_keys);

    v_text := app.json_text(p_body -> 'external_id', 'external_id', 200);
    IF v_text IS DISTINCT FROM p_external_id AND v_text IS NOT NULL THEN
        PERFORM app.refuse(422, 'invalid_body', 'external_id');
    END IF;

    FOR v_field IN SELECT * FROM app.lot_fields() AS f ORDER BY f.ordinal LOOP
        FOREACH v_rule IN ARRAY coalesce(v_field.rules_before, '{}') LOOP
            PERFORM app.lot_rule_between_fields(v_rule, p_body, v_fields);
        END LOOP;
        v_path := array_to_string(v_field.body_path, '.');
        v_value := p_body #> v_field.body_path;
        v_absent := app.json_absent(v_value);
        -- a required text that is blank counts as absent
        IF v_field.required
           AND (v_absent
                OR (v_field.kind = 'text' AND jsonb_typeof(v_value) = 'string' AND app.is_blank(v_value #>> '{}'))) THEN
            PERFORM app.refuse(422, 'missing_field', v_path);
        END IF;

        IF v_absent THEN
            v_read := NULL;
        ELSIF v_field.kind = 'zone' THEN
            -- an exact IANA zone or link name
            IF jsonb_typeof(v_value) <> 'string'
               OR NOT EXISTS (SELECT FROM app.iana_zones AS z WHERE z.name = v_value #>> '{}') THEN
                PERFORM app.refuse(422, 'invalid_timezone', v_path);
            END IF;
            v_read := v_value;
        ELSIF v_field.kind = 'coordinate' THEN
            -- in range, rounded to 6 decimals (range-checked before the column's numeric(8,6) sees it)
            v_number := app.json_decimal(v_value, v_path, 'invalid_coordinates');
            IF v_number NOT BETWEEN v_field.min_value AND v_field.max_value THEN
                PERFORM app.refuse(422, 'invalid_coordinates', v_path);
            END IF;
            v_read := to_jsonb(round(v_number, 6));
        ELSIF v_field.kind = 'country' THEN
            -- ISO 3166-1 alpha-2, surrounding white space tolerated, stored upper-case. ASCII-only
            -- upper-casing (COLLATE "C"): a locale's would turn the dotless ı of `gı` into I.
            v_text := upper(app.trim_white_space(v_value #>> '{}') COLLATE "C");
            IF jsonb_typeof(v_value) <> 'string'
               OR NOT EXISTS (SELECT FROM app.iso_countries AS c WHERE c.code = v_text) THEN
                PERFORM app.refuse(422, 'invalid_country_code', v_path);
            END IF;
            v_read := to_jsonb(v_text);
        ELSIF v_field.kind = 'arrival' THEN
            v_read := app.lot_arrival(v_value);
        ELSIF v_field.kind = 'media' THEN
            v_read := app.lot_media(v_value, p_media_folder);
        ELSE
            v_read := app.json_field(
                v_value, v_path, v_field.kind, v_field.min_value, v_field.max_value, v_field.choices);
        END IF;
        v_fields := v_fields || jsonb_build_object(v_field.name, coalesce(v_read, v_field.default_value));
    END LOOP;

    v_lot := jsonb_populate_record(NULL::app.lots, v_fields);
    v_lot.external_id := p_external_id;
    RETURN v_lot;
END
$$;
REVOKE ALL ON FUNCTION app.lot_from_body(jsonb, text, text) FROM PUBLIC;
