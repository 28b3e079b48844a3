-- A booking as the platform sends it (platform.booking_record, platform.booking_update), validated
-- onto p_base: every key present in p_booking replaces the base's value; the others keep it. Keys:
-- the spec's Booking minus timezone, lot_name, created_at and cancelled_at (derived), with
-- `customer` an object of first_name, last_name, email, phone. Refusals are PT422 invalid_body /
-- unknown_field naming the key (customer keys as customer.<key>). A null `reference` counts as
-- absent (the base's, i.e. the generated one, stays); external_reference and flight_number are a
-- string of at least one character or null (an empty string is refused, never stored as unknown).
CREATE OR REPLACE FUNCTION app.booking_from_json(p_base app.bookings, p_booking jsonb)
RETURNS app.bookings
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c_keys constant text[] := ARRAY[
        'reference', 'external_reference', 'lot_external_id', 'check_in_local', 'check_out_local',
        'parking_days', 'status', 'payment_status', 'currency', 'total', 'channel', 'flight_number',
        'customer', 'vehicle_plates'];
    v_booking app.bookings := p_base;
    v_lot_external_id text;
    v_plates jsonb;
    v_plates_sound boolean;
    v_missing text;
    v_customer jsonb;
BEGIN
    IF jsonb_typeof(p_booking) IS DISTINCT FROM 'object' THEN
        PERFORM app.refuse(422, 'invalid_body');
    END IF;
    PERFORM app.refuse_unknown_keys(p_booking, c_keys);

    IF p_booking ? 'reference' THEN
        v_booking.reference := coalesce(app.json_text(p_booking -> 'reference', 'reference', 64), p_base.reference);
        IF v_booking.reference IS NULL OR v_booking.reference !~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' THEN
            PERFORM app.refuse(422, 'invalid_body', 'reference');
        END IF;
    END IF;
    IF p_booking ? 'external_reference' THEN
        v_booking.external_reference := app.json_text(p_booking -> 'external_reference', 'external_reference', 200);
        IF v_booking.external_reference = '' THEN
            PERFORM app.refuse(422, 'invalid_body', 'external_reference');
        END IF;
    END IF;
    IF app.json_absent(p_booking -> 'lot_external_id') AND p_booking ? 'lot_external_id' THEN
        v_booking.lot_id := NULL;  -- refused below as missing
    ELSIF p_booking ? 'lot_external_id' THEN
        -- (read first: a function of the body in the condition would run once per row, and the
        -- (operator_id, external_id) key would go unused)
        v_lot_external_id := app.json_text(p_booking -> 'lot_external_id', 'lot_external_id', 200);
        SELECT l.id INTO v_booking.lot_id FROM app.lots AS l
         WHERE l.operator_id = v_booking.operator_id
           AND l.external_id = v_lot_external_id;
        IF NOT FOUND THEN
            PERFORM app.refuse(422, 'invalid_body', 'lot_external_id');
        END IF;
    END IF;
    IF p_booking ? 'check_in_local' THEN
        v_booking.check_in_local := app.json_local_timestamp(p_booking -> 'check_in_local', 'check_in_local');
    END IF;
    IF p_booking ? 'check_out_local' THEN
        v_booking.check_out_local := app.json_local_timestamp(p_booking -> 'check_out_local', 'check_out_local');
    END IF;
    IF p_booking ? 'parking_days' THEN
        v_booking.parking_days := app.json_integer(p_booking -> 'parking_days', 'parking_days', 1, 3660);
    END IF;
    -- status, then payment_status: one of the registry's choices (app.json_field's `choice`)
    IF p_booking ? 'status' THEN
        v_booking.status := app.json_field(
            p_booking -> 'status', 'status', 'choice', NULL, NULL, app.booking_field_choices('status')) #>> '{}';
    END IF;
    IF p_booking ? 'payment_status' THEN
        v_booking.payment_status := app.json_field(
            p_booking -> 'payment_status', 'payment_status', 'choice', NULL, NULL,
            app.booking_field_choices('payment_status')) #>> '{}';
    END IF;
    IF p_booking ? 'currency' THEN
        v_booking.currency := upper(app.json_text(p_booking -> 'currency', 'currency', 3) COLLATE "C");
        IF v_booking.currency IS NOT NULL AND NOT EXISTS (SELECT FROM app.iso_currencies AS c WHERE c.code = v_booking.currency) THEN
            PERFORM app.refuse(422, 'invalid_body', 'currency');
        END IF;
    END IF;
    IF p_booking ? 'total' THEN
        v_booking.total := app.json_money(p_booking -> 'total', 'total');
    END IF;
    IF p_booking ? 'channel' THEN
        v_booking.channel := app.json_text(p_booking -> 'channel', 'channel', 40);
        IF v_booking.channel !~ '^[a-z][a-z0-9_]{0,39}$' THEN
            PERFORM app.refuse(422, 'invalid_body', 'channel');
        END IF;
    END IF;
    IF p_booking ? 'flight_number' THEN
        v_booking.flight_number := app.json_text(p_booking -> 'flight_number', 'flight_number', 16);
        IF v_booking.flight_number = '' THEN
            PERFORM app.refuse(422, 'invalid_body', 'flight_number');
        END IF;
    END IF;
    IF p_booking ? 'customer' THEN
        v_customer := coalesce(nullif(p_booking -> 'customer', 'null'), '{}');
        IF jsonb_typeof(v_customer) <> 'object' THEN
            PERFORM app.refuse(422, 'invalid_body', 'customer');
        END IF;
        PERFORM app.refuse_unknown_keys(v_customer, ARRAY['first_name', 'last_name', 'email', 'phone'], 'customer.');
        v_booking.customer_first_name := app.json_text(v_customer -> 'first_name', 'customer.first_name', 200);
        v_booking.customer_last_name := app.json_text(v_customer -> 'last_name', 'customer.last_name', 200);
        v_booking.customer_email := app.json_text(v_customer -> 'email', 'customer.email', 320);
        v_booking.customer_phone := app.json_text(v_customer -> 'phone', 'customer.phone', 40);
    END IF;
    IF p_booking ? 'vehicle_plates' THEN
        v_plates := coalesce(nullif(p_booking -> 'vehicle_plates', 'null'), '[]');
        IF jsonb_typeof(v_plates) <> 'array' OR jsonb_array_length(v_plates) > 10 THEN
            PERFORM app.refuse(422, 'invalid_body', 'vehicle_plates');
        END IF;
        SELECT array_agg(p #>> '{}' ORDER BY o),
               coalesce(bool_and(jsonb_typeof(p) = 'string' AND char_length(p #>> '{}') BETWEEN 1 AND 20), true)
          INTO v_booking.vehicle_plates, v_plates_sound
          FROM jsonb_array_elements(v_plates) WITH ORDINALITY AS e (p, o);
        IF NOT v_plates_sound THEN
            PERFORM app.refuse(422, 'invalid_body', 'vehicle_plates');
        END IF;
    END IF;

    -- Required on every booking; the stay runs forward.
    v_missing := CASE
        WHEN v_booking.lot_id IS NULL THEN 'lot_external_id'
        WHEN v_booking.check_in_local IS NULL THEN 'check_in_local'
        WHEN v_booking.check_out_local IS NULL THEN 'check_out_local'
        WHEN v_booking.parking_days IS NULL THEN 'parking_days'
        WHEN v_booking.status IS NULL THEN 'status'
        WHEN v_booking.payment_status IS NULL THEN 'payment_status'
        WHEN v_booking.currency IS NULL THEN 'currency'
        WHEN v_booking.total IS NULL THEN 'total'
        WHEN v_booking.channel IS NULL THEN 'channel'
    END;
    IF v_missing IS NOT NULL THEN
        PERFORM app.refuse(422, 'missing_field', v_missing);
    END IF;
    IF v_booking.check_out_local <= v_booking.check_in_local THEN
        PERFORM app.refuse(422, 'invalid_body', 'check_out_local');
    END IF;
    v_booking.vehicle_plates := coalesce(v_booking.vehicle_plates, '{}');
    -- cancelled_at: set when the status becomes cancelled, kept while it stays so, cleared otherwise
    v_booking.cancelled_at := CASE WHEN v_booking.status = 'cancelled' THEN coalesce(p_base.cancelled_at, now()) END;
    RETURN v_booking;
END
$$;
REVOKE ALL ON FUNCTION app.booking_from_json(app.bookings, jsonb) FROM PUBLIC;
