-- Floor of a status change (pgbench/booking_status.sql): the same row changed by the plainest
-- UPDATE, every trigger on. As bench_booking_writer (booking_writer.sql), under the same forced
-- row-level security. pgbench variables: operator, bookings.
\set i random(1, :bookings)
UPDATE app.bookings AS b
   SET status = CASE WHEN b.status = 'cancelled' THEN 'confirmed' ELSE 'cancelled' END,
       cancelled_at = CASE WHEN b.status = 'cancelled' THEN NULL ELSE now() END
 WHERE b.operator_id = :operator::uuid AND b.reference = 'BL' || lpad(:i::text, 8, '0');
