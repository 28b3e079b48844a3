-- Change any field of a booking (not its reference). Status `cancelled` sets cancelled_at; every
-- change puts the booking back in the bookings feed. A change that changes nothing writes nothing.
CREATE OR REPLACE FUNCTION platform.booking_update(p_operator_id uuid, p_reference text, p_changes jsonb)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_base app.bookings;
    v_booking app.bookings;
BEGIN
    PERFORM app.set_operator_context(p_operator_id);
    SELECT * INTO v_base FROM app.bookings AS b
     WHERE b.operator_id = p_operator_id AND b.reference = p_reference
       FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_reference');
    END IF;
    IF p_changes ? 'reference' THEN
        PERFORM app.refuse(422, 'invalid_body', 'reference');
    END IF;
    v_booking := app.booking_from_json(v_base, p_changes);
    UPDATE app.bookings AS b
       SET lot_id = v_booking.lot_id,
           external_reference = v_booking.external_reference,
           check_in_local = v_booking.check_in_local,
           check_out_local = v_booking.check_out_local,
           parking_days = v_booking.parking_days,
           status = v_booking.status,
           payment_status = v_booking.payment_status,
           currency = v_booking.currency,
           total = v_booking.total,
           channel = v_booking.channel,
           flight_number = v_booking.flight_number,
           customer_first_name = v_booking.customer_first_name,
           customer_last_name = v_booking.customer_last_name,
           customer_email = v_booking.customer_email,
           customer_phone = v_booking.customer_phone,
           vehicle_plates = v_booking.vehicle_plates,
           cancelled_at = v_booking.cancelled_at,
           previous_lot_ids = CASE WHEN v_booking.lot_id = b.lot_id OR b.lot_id = ANY (b.previous_lot_ids)
                                   THEN b.previous_lot_ids ELSE b.previous_lot_ids || b.lot_id END
     WHERE b.operator_id = p_operator_id AND b.id = v_base.id
       AND b IS DISTINCT FROM v_booking;
END
$$;
REVOKE ALL ON FUNCTION platform.booking_update(uuid, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.booking_update(uuid, text, jsonb) TO platform_service;
