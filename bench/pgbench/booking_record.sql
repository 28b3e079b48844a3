-- platform.booking_record as the booking engine calls it: one booking a transaction, on one of the
-- operator's lots at random (the lot found by its external id). pgbench variables: operator, lots.
\set k random(1, :lots)
SELECT platform.booking_record(:operator::uuid, jsonb_build_object(
    'external_reference', 'OPS-1001', 'lot_external_id', 'lot-' || lpad(:k::text, 6, '0'),
    'check_in_local', '2026-03-10T08:00:00', 'check_out_local', '2026-03-13T18:30:00', 'parking_days', 4,
    'status', 'confirmed', 'payment_status', 'paid', 'currency', 'EUR', 'total', '48.50',
    'channel', 'marketplace', 'flight_number', 'BA1234',
    'customer', jsonb_build_object('first_name', 'Ada', 'last_name', 'Lovelace', 'email', 'ada@example.test',
                                   'phone', '+44 20 7946 0000'),
    'vehicle_plates', jsonb_build_array('AB12 CDE')));
