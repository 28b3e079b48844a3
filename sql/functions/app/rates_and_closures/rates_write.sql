-- PUT /lots/{external_id}/rates: create, update or nothing, on the marketplace channel only. A lot
-- that is not the caller's answers the uniform 401 before the body is read. Diff before update as for lots: an equal envelope issues no statement.
-- envelope_widened (a conservative signal that a review could be voided) is true when floor went
-- down, ceiling went up, currency changed, dynamic flipped, or no envelope existed; it compares
-- with the envelope live just before the write. Rates never void a review by themselves.
CREATE OR REPLACE FUNCTION app.rates_write(p_operator_id uuid, p_external_id text, p_body text, p_body_fault jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot constant app.lots := app.caller_lot(p_operator_id, p_external_id);
    v_new app.lot_rates;
    v_old app.lot_rates;
    v_changed text[];
    v_result text;
BEGIN
    PERFORM app.refuse_body_fault(p_body_fault);
    v_new := app.rates_from_body(
        app.json_body(p_body),
        (SELECT o.settlement_currency FROM app.operators AS o WHERE o.id = v_lot.operator_id));

    SELECT * INTO v_old FROM app.lot_rates AS r
     WHERE r.operator_id = v_lot.operator_id AND r.lot_id = v_lot.id AND r.channel = 'marketplace';
    IF NOT FOUND THEN
        BEGIN
            INSERT INTO app.lot_rates (operator_id, lot_id, channel, currency, floor_price, base_price,
                                       ceiling_price, min_first_day_price, dynamic, valid_from, valid_to)
            VALUES (v_lot.operator_id, v_lot.id, 'marketplace', v_new.currency, v_new.floor_price,
                    v_new.base_price, v_new.ceiling_price, v_new.min_first_day_price, v_new.dynamic,
                    v_new.valid_from, v_new.valid_to)
            RETURNING * INTO v_new;
        EXCEPTION
            WHEN unique_violation THEN
                PERFORM app.refuse(409, 'conflict');
        END;
        v_result := 'created';
        v_changed := app.rates_changes(NULL, v_new);
    ELSE
        v_changed := app.rates_changes(v_old, v_new);
        IF cardinality(v_changed) > 0 THEN
            SELECT * INTO v_old FROM app.lot_rates AS r
             WHERE r.operator_id = v_lot.operator_id AND r.lot_id = v_lot.id AND r.channel = 'marketplace'
               FOR UPDATE;
            v_changed := app.rates_changes(v_old, v_new);
        END IF;
        IF cardinality(v_changed) = 0 THEN
            v_result := 'unchanged';
            v_new := v_old;
        ELSE
            v_result := 'updated';
            UPDATE app.lot_rates AS r
               SET currency = v_new.currency,
                   floor_price = v_new.floor_price,
                   base_price = v_new.base_price,
                   ceiling_price = v_new.ceiling_price,
                   min_first_day_price = v_new.min_first_day_price,
                   dynamic = v_new.dynamic,
                   valid_from = v_new.valid_from,
                   valid_to = v_new.valid_to,
                   updated_at = now()
             WHERE r.operator_id = v_lot.operator_id AND r.lot_id = v_lot.id AND r.channel = 'marketplace'
            RETURNING * INTO v_new;
        END IF;
    END IF;

    RETURN jsonb_build_object(
        'external_id', v_lot.external_id,
        'result', v_result,
        'changed', to_jsonb(v_changed),
        'envelope_widened', v_old.channel IS NULL
                            OR v_new.floor_price < v_old.floor_price
                            OR v_new.ceiling_price > v_old.ceiling_price
                            OR v_new.currency <> v_old.currency
                            OR v_new.dynamic <> v_old.dynamic,
        'rates', app.rates_read_form(v_new));
END
$$;
REVOKE ALL ON FUNCTION app.rates_write(uuid, text, text, jsonb) FROM PUBLIC;

-- The Rates fields that differ, in the order of the spec's Rates table (app.rates_fields); every
-- field on create.
CREATE OR REPLACE FUNCTION app.rates_changes(p_old app.lot_rates, p_new app.lot_rates)
RETURNS text[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.fields_that_differ(
        CASE WHEN p_old.channel IS NOT NULL THEN pg_catalog.to_jsonb(p_old) END, pg_catalog.to_jsonb(p_new),
        ARRAY(SELECT f.name FROM app.rates_fields() AS f WHERE f.stored ORDER BY f.ordinal));
END
$$;
REVOKE ALL ON FUNCTION app.rates_changes(app.lot_rates, app.lot_rates) FROM PUBLIC;
