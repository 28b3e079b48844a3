-- Floor of a date change (pgbench/booking_dates.sql): the plainest UPDATE, every trigger on. As
-- bench_booking_writer (booking_writer.sql), under the same forced row-level security. pgbench
-- variables: operator, bookings.
\set i random(1, :bookings)
\set d random(1, 6)
\set days :d + 1
UPDATE app.bookings AS b
   SET check_out_local = b.check_in_local::date + :d::integer + time '18:00', parking_days = :days::integer
 WHERE b.operator_id = :operator::uuid AND b.reference = 'BL' || lpad(:i::text, 8, '0');
