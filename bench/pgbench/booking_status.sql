-- platform.booking_update, a status change: one of the operator's bookings at random cancelled, or
-- confirmed again when it was cancelled (read by its key in the same statement, so every call
-- changes the booking). pgbench variables: operator, bookings.
\set i random(1, :bookings)
SELECT platform.booking_update(b.operator_id, b.reference,
           jsonb_build_object('status', CASE WHEN b.status = 'cancelled' THEN 'confirmed' ELSE 'cancelled' END))
  FROM app.bookings AS b
 WHERE b.operator_id = :operator::uuid AND b.reference = 'BL' || lpad(:i::text, 8, '0');
