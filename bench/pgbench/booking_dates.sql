-- platform.booking_update, a date change: one of the operator's bookings at random checks out 1-6
-- days after its check-in day, at 18:00 (parking_days to match). pgbench variables: operator,
-- bookings.
\set i random(1, :bookings)
\set d random(1, 6)
\set days :d + 1
SELECT platform.booking_update(b.operator_id, b.reference, jsonb_build_object(
           'check_out_local', replace((b.check_in_local::date + :d::integer + time '18:00')::text, ' ', 'T'),
           'parking_days', :days::integer))
  FROM app.bookings AS b
 WHERE b.operator_id = :operator::uuid AND b.reference = 'BL' || lpad(:i::text, 8, '0');
