-- A booking from any channel (the booking engine's report). `reference` is generated when absent;
-- a reference the operator already has is PT409 conflict. Answers the reference.
CREATE OR REPLACE FUNCTION platform.booking_record(p_operator_id uuid, p_booking jsonb)
RETURNS text
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_base app.bookings;
    v_booking app.bookings;
BEGIN
    PERFORM app.set_operator_context(p_operator_id);
    IF NOT EXISTS (SELECT FROM app.operators AS o WHERE o.id = p_operator_id) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_operator_id');
    END IF;
    v_base.operator_id := p_operator_id;
    v_base.reference := 'BK' || upper(encode(extensions.gen_random_bytes(8), 'hex'));
    v_booking := app.booking_from_json(v_base, p_booking);
    -- (ON CONFLICT rather than an exception block: no subtransaction on every booking)
    INSERT INTO app.bookings (
        operator_id, reference, lot_id, external_reference, check_in_local, check_out_local,
        parking_days, status, payment_status, currency, total, channel, flight_number,
        customer_first_name, customer_last_name, customer_email, customer_phone, vehicle_plates,
        cancelled_at)
    VALUES (
        p_operator_id, v_booking.reference, v_booking.lot_id, v_booking.external_reference,
        v_booking.check_in_local, v_booking.check_out_local, v_booking.parking_days, v_booking.status,
        v_booking.payment_status, v_booking.currency, v_booking.total, v_booking.channel,
        v_booking.flight_number, v_booking.customer_first_name, v_booking.customer_last_name,
        v_booking.customer_email, v_booking.customer_phone, v_booking.vehicle_plates,
        v_booking.cancelled_at)
    ON CONFLICT (operator_id, reference) DO NOTHING;
    IF NOT FOUND THEN
        PERFORM app.refuse(409, 'conflict', 'reference');
    END IF;
    RETURN v_booking.reference;
END
$$;
REVOKE ALL ON FUNCTION platform.booking_record(uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.booking_record(uuid, jsonb) TO platform_service;
