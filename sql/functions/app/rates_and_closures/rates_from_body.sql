-- The rates write body (PUT /lots/{external_id}/rates) validated into a lot_rates row, or the first
-- refusal. Exactly one of two shapes:
--   range: floor_price, base_price, ceiling_price, none with fixed_price
--   fixed: fixed_price alone, expanding to floor = base = ceiling
-- Both shapes -> invalid_body field fixed_price; an incomplete range -> missing_field naming the
-- first missing of floor_price, base_price, ceiling_price; neither -> missing_field fixed_price.
-- A key with JSON null counts as absent.
CREATE OR REPLACE FUNCTION app.rates_from_body(p_body jsonb, p_settlement_currency text)
RETURNS app.lot_rates
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- The body's keys: the fields of app.rates_fields (fixed_price, the fixed shape, among them).
    c_fields constant text[] := ARRAY(SELECT f.name FROM app.rates_fields() AS f);
    v_rates app.lot_rates;
    v_present text[];
    v_field record;
    v_value jsonb;
    v_read jsonb;
    v_fields jsonb := '{}'::jsonb;
BEGIN
    IF jsonb_typeof(p_body) IS DISTINCT FROM 'object' THEN
        PERFORM app.refuse(422, 'invalid_body');
    END IF;
    PERFORM app.refuse_unknown_keys(p_body, c_fields);
    v_present := ARRAY(SELECT m.key FROM jsonb_each(p_body) AS m WHERE jsonb_typeof(m.value) <> 'null');

    IF 'fixed_price' = ANY (v_present) THEN
        IF v_present && ARRAY['floor_price', 'base_price', 'ceiling_price'] THEN
            PERFORM app.refuse(422, 'invalid_body', 'fixed_price');
        END IF;
        v_rates.floor_price := app.json_money(p_body -> 'fixed_price', 'fixed_price');
        v_rates.base_price := v_rates.floor_price;
        v_rates.ceiling_price := v_rates.floor_price;
    ELSIF v_present && ARRAY['floor_price', 'base_price', 'ceiling_price'] THEN
        IF NOT 'floor_price' = ANY (v_present) THEN
            PERFORM app.refuse(422, 'missing_field', 'floor_price');
        ELSIF NOT 'base_price' = ANY (v_present) THEN
            PERFORM app.refuse(422, 'missing_field', 'base_price');
        ELSIF NOT 'ceiling_price' = ANY (v_present) THEN
            PERFORM app.refuse(422, 'missing_field', 'ceiling_price');
        END IF;
        v_rates.floor_price := app.json_money(p_body -> 'floor_price', 'floor_price');
        v_rates.base_price := app.json_money(p_body -> 'base_price', 'base_price');
        v_rates.ceiling_price := app.json_money(p_body -> 'ceiling_price', 'ceiling_price');
    ELSE
        PERFORM app.refuse(422, 'missing_field', 'fixed_price');
    END IF;

    -- the other fields in their order, by kind
    FOR v_field IN SELECT * FROM app.rates_fields() AS f WHERE f.kind <> 'price' ORDER BY f.ordinal LOOP
        v_value := p_body -> v_field.name;
        IF v_field.kind = 'currency' THEN
            -- the operator's settlement currency, whatever letter case; absent or null means it
            IF app.json_absent(v_value) THEN
                v_read := to_jsonb(p_settlement_currency);
            ELSIF jsonb_typeof(v_value) <> 'string' OR (v_value #>> '{}') !~ '^[A-Za-z]{3}$' THEN
                PERFORM app.refuse(422, 'invalid_body', v_field.name);
            ELSIF upper((v_value #>> '{}') COLLATE "C") <> p_settlement_currency THEN
                PERFORM app.refuse(422, 'currency_is_not_settlement_currency', v_field.name);
            ELSE
                v_read := to_jsonb(p_settlement_currency);
            END IF;
        ELSE
            v_read := app.json_field(v_value, v_field.name, v_field.kind, NULL, NULL, NULL);
        END IF;
        v_fields := v_fields || jsonb_build_object(v_field.name, coalesce(v_read, v_field.default_value));
    END LOOP;
    v_rates := jsonb_populate_record(v_rates, v_fields);

    IF v_rates.floor_price > v_rates.base_price THEN
        PERFORM app.refuse(422, 'invalid_price_envelope', 'floor_price');
    END IF;
    IF v_rates.base_price > v_rates.ceiling_price THEN
        PERFORM app.refuse(422, 'invalid_price_envelope', 'ceiling_price');
    END IF;
    IF v_rates.min_first_day_price NOT BETWEEN v_rates.floor_price AND v_rates.ceiling_price THEN
        PERFORM app.refuse(422, 'invalid_first_day_price', 'min_first_day_price');
    END IF;
    IF v_rates.valid_to < v_rates.valid_from THEN
        PERFORM app.refuse(422, 'invalid_validity_window', 'valid_to');
    END IF;
    v_rates.channel := 'marketplace';
    RETURN v_rates;
END
$$;
REVOKE ALL ON FUNCTION app.rates_from_body(jsonb, text) FROM PUBLIC;
