-- The lot write body (PUT /lots/{external_id}) validated and normalised into a lot row, or the first
-- refusal. A full representation: an absent key means null (or the field's default). Fields are
-- checked in the order of the spec's field table; the keys first:
--   an array body -> too_many_lots; any other non-object -> invalid_body
--   `rates` -> field_belongs_to_another_route; any other unknown key -> unknown_field
-- Returns a row of app.lots with operator_id, id and the review columns unset.
CREATE OR REPLACE FUNCTION app.lot_from_body(p_body jsonb, p_external_id text, p_media_folder text)
RETURNS app.lots
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- The body's keys: external_id (checked, not stored) and the keys of app.lot_fields.
    c_fields constant text[] := ARRAY['external_id'] || ARRAY(SELECT DISTINCT f.body_key FROM app.lot_fields() AS f);
    c_features constant text[] := ARRAY[
        'indoor', 'security', 'cameras', 'gate_automation', 'plate_recognition', 'ev_charging',
        'disabled_access', 'oversize_vehicle', 'valet'];
    v_lot app.lots;
    v_value jsonb;
    v_text text;
    v_number numeric;
BEGIN
    IF jsonb_typeof(p_body) = 'array' THEN
        PERFORM app.refuse(422, 'too_many_lots');
    ELSIF jsonb_typeof(p_body) IS DISTINCT FROM 'object' THEN
        PERFORM app.refuse(422, 'invalid_body');
    END IF;
    IF p_body ? 'rates' THEN
        PERFORM app.refuse(422, 'field_belongs_to_another_route', 'rates');
    END IF;
    PERFORM app.refuse_unknown_keys(p_body, c_fields);

    -- external_id: checked, not used
    v_text := app.json_text(p_body -> 'external_id', 'external_id', 200);
    IF v_text IS DISTINCT FROM p_external_id AND v_text IS NOT NULL THEN
        PERFORM app.refuse(422, 'invalid_body', 'external_id');
    END IF;
    v_lot.external_id := p_external_id;

    -- name: required; blank counts as absent
    v_value := p_body -> 'name';
    IF app.json_absent(v_value)
       OR (jsonb_typeof(v_value) = 'string' AND app.is_blank(v_value #>> '{}')) THEN
        PERFORM app.refuse(422, 'missing_field', 'name');
    END IF;
    v_lot.name := app.json_text(v_value, 'name', 200);

    -- timezone: required; an exact IANA zone or link name
    v_value := p_body -> 'timezone';
    IF app.json_absent(v_value) THEN
        PERFORM app.refuse(422, 'missing_field', 'timezone');
    END IF;
    IF jsonb_typeof(v_value) <> 'string'
       OR NOT EXISTS (SELECT FROM app.iana_zones AS z WHERE z.name = v_value #>> '{}') THEN
        PERFORM app.refuse(422, 'invalid_timezone', 'timezone');
    END IF;
    v_lot.timezone := v_value #>> '{}';

    -- handover: required; self or attended
    v_value := p_body -> 'handover';
    IF app.json_absent(v_value) THEN
        PERFORM app.refuse(422, 'missing_field', 'handover');
    END IF;
    IF v_value NOT IN ('"self"'::jsonb, '"attended"'::jsonb) THEN
        PERFORM app.refuse(422, 'invalid_body', 'handover');
    END IF;
    v_lot.handover := v_value #>> '{}';

    -- online_bookable: required on every PUT
    v_lot.online_bookable := app.json_boolean(p_body -> 'online_bookable', 'online_bookable');
    IF v_lot.online_bookable IS NULL THEN
        PERFORM app.refuse(422, 'missing_field', 'online_bookable');
    END IF;

    v_lot.capacity := app.json_integer(p_body -> 'capacity', 'capacity', 0, 1000000);

    -- coordinates: both or neither; in range; rounded to 6 decimals
    IF app.json_absent(p_body -> 'latitude') <> app.json_absent(p_body -> 'longitude') THEN
        PERFORM app.refuse(422, 'invalid_coordinates',
            CASE WHEN app.json_absent(p_body -> 'latitude')
                 THEN 'latitude' ELSE 'longitude' END);
    END IF;
    -- (read into a plain numeric first: the row's numeric(8,6) would overflow before the range check)
    v_number := app.json_decimal(p_body -> 'latitude', 'latitude', 'invalid_coordinates');
    IF v_number NOT BETWEEN -90 AND 90 THEN
        PERFORM app.refuse(422, 'invalid_coordinates', 'latitude');
    END IF;
    v_lot.latitude := round(v_number, 6);
    v_number := app.json_decimal(p_body -> 'longitude', 'longitude', 'invalid_coordinates');
    IF v_number NOT BETWEEN -180 AND 180 THEN
        PERFORM app.refuse(422, 'invalid_coordinates', 'longitude');
    END IF;
    v_lot.longitude := round(v_number, 6);

    v_lot.city := app.json_text(p_body -> 'city', 'city', 120);

    -- country_code: ISO 3166-1 alpha-2, surrounding white space tolerated, stored upper-case
    v_value := p_body -> 'country_code';
    IF NOT app.json_absent(v_value) THEN
        -- ASCII-only upper-casing (COLLATE "C"): a locale's would turn the dotless ı of `gı` into I.
        v_text := upper(app.trim_white_space(v_value #>> '{}') COLLATE "C");
        IF jsonb_typeof(v_value) <> 'string'
           OR NOT EXISTS (SELECT FROM app.iso_countries AS c WHERE c.code = v_text) THEN
            PERFORM app.refuse(422, 'invalid_country_code', 'country_code');
        END IF;
        v_lot.country_code := v_text;
    END IF;

    -- features: a set of the allowed values, at most 32 items as sent; stored sorted and distinct
    v_value := p_body -> 'features';
    IF app.json_absent(v_value) THEN
        v_lot.features := '{}';
    ELSIF jsonb_typeof(v_value) <> 'array'
          OR jsonb_array_length(v_value) > 32
          OR EXISTS (SELECT FROM jsonb_array_elements(v_value) AS f
                      WHERE jsonb_typeof(f) <> 'string' OR NOT (f #>> '{}') = ANY (c_features)) THEN
        PERFORM app.refuse(422, 'invalid_body', 'features');
    ELSE
        v_lot.features := ARRAY(SELECT DISTINCT f COLLATE "C" FROM jsonb_array_elements_text(v_value) AS f ORDER BY 1);
    END IF;

    v_lot.arrival := app.lot_arrival(p_body -> 'arrival');
    v_lot.media := app.lot_media(p_body -> 'media', p_media_folder);

    v_lot.min_advance_days := coalesce(app.json_integer(p_body -> 'min_advance_days', 'min_advance_days', 0, 365), 0);
    v_lot.min_stay_days := app.json_integer(p_body -> 'min_stay_days', 'min_stay_days', 1, 365);
    v_lot.max_stay_days := app.json_integer(p_body -> 'max_stay_days', 'max_stay_days', 1, 365);
    IF v_lot.min_stay_days > v_lot.max_stay_days THEN
        PERFORM app.refuse(422, 'invalid_stay_bounds', 'min_stay_days');
    END IF;

    -- cancellation: all three keys or none
    v_value := p_body -> 'cancellation';
    IF NOT app.json_absent(v_value) THEN
        IF jsonb_typeof(v_value) <> 'object' THEN
            PERFORM app.refuse(422, 'invalid_body', 'cancellation');
        END IF;
        PERFORM app.refuse_unknown_keys(
            v_value, ARRAY['free_until_hours_before_check_in', 'penalty_percent_after', 'no_show_forfeits_full'], 'cancellation.');
        IF (SELECT count(*) FROM jsonb_each(v_value) AS m WHERE jsonb_typeof(m.value) <> 'null') IN (1, 2) THEN
            PERFORM app.refuse(422, 'incomplete_cancellation_policy', 'cancellation');
        END IF;
        v_lot.cancellation_free_until_hours_before_check_in := app.json_integer(
            v_value -> 'free_until_hours_before_check_in', 'cancellation.free_until_hours_before_check_in', 0, 8760);
        v_number := app.json_money(v_value -> 'penalty_percent_after', 'cancellation.penalty_percent_after');
        IF v_number > 100 THEN
            PERFORM app.refuse(422, 'invalid_body', 'cancellation.penalty_percent_after');
        END IF;
        v_lot.cancellation_penalty_percent_after := v_number;
        v_lot.cancellation_no_show_forfeits_full := app.json_boolean(
            v_value -> 'no_show_forfeits_full', 'cancellation.no_show_forfeits_full');
    END IF;

    RETURN v_lot;
END
$$;
REVOKE ALL ON FUNCTION app.lot_from_body(jsonb, text, text) FROM PUBLIC;
