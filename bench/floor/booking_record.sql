-- Floor of platform.booking_record: the plainest SQL writing the same row, every trigger of
-- app.bookings on (the stamp and writer lock, the closure day counts, the webhook hint), the lot
-- found by its key. As bench_booking_writer (booking_writer.sql), under the same forced row-level
-- security. pgbench variables: operator, lots.
\set k random(1, :lots)
INSERT INTO app.bookings (operator_id, reference, lot_id, external_reference, check_in_local, check_out_local,
                          parking_days, status, payment_status, currency, total, channel, flight_number,
                          customer_first_name, customer_last_name, customer_email, customer_phone, vehicle_plates)
SELECT l.operator_id, 'BK' || upper(encode(extensions.gen_random_bytes(8), 'hex')), l.id, 'OPS-1001',
       '2026-03-10 08:00', '2026-03-13 18:30', 4, 'confirmed', 'paid', 'EUR', 48.50, 'marketplace', 'BA1234',
       'Ada', 'Lovelace', 'ada@example.test', '+44 20 7946 0000', ARRAY['AB12 CDE']
  FROM app.lots AS l
 WHERE l.operator_id = :operator::uuid AND l.external_id = 'lot-' || lpad(:k::text, 6, '0');
