-- The contract run's operator: a lot `lot-1` (so the routes under a lot have something to find),
-- two bookings on it recorded the platform's way (one with every field, one cancelled with the
-- optional ones null, so the feed has both forms to check), and a credential holding every scope,
-- issued the console way. Prints the Bearer value last.
\set QUIET on
SELECT platform.operator_create('Contract operator', 'EUR') AS operator_id \gset
SELECT platform.user_upsert('22222222-2222-4222-8222-222222222222', 'contract@example.test', false);
SELECT platform.member_set(:'operator_id', '22222222-2222-4222-8222-222222222222', 'owner');
BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', '{"sub":"22222222-2222-4222-8222-222222222222","role":"authenticated"}', true);
SELECT set_config('request.headers', json_build_object('x-tenant-id', :'operator_id')::text, true);
SELECT key_id || '.' || secret AS bearer
  FROM console.api_credential_issue('contract tests', ARRAY['read_supply', 'write_supply', 'read_bookings']) \gset
COMMIT;
RESET ROLE;
SELECT status FROM api.lot_put('Bearer ' || :'bearer', 'lot-1',
    '{"name": "Contract lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true}', false);
SELECT platform.booking_record(:'operator_id', booking)
  FROM (VALUES
    ('{"external_reference": "OPS-1001", "lot_external_id": "lot-1", "check_in_local": "2026-03-10T08:00:00",
       "check_out_local": "2026-03-13T18:30:00", "parking_days": 4, "status": "confirmed", "payment_status": "paid",
       "currency": "EUR", "total": "48.50", "channel": "marketplace", "flight_number": "BA1234",
       "customer": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.test", "phone": "+44 20 7946 0000"},
       "vehicle_plates": ["AB12 CDE"]}'::jsonb),
    ('{"external_reference": null, "lot_external_id": "lot-1", "check_in_local": "2026-04-01T09:15:00",
       "check_out_local": "2026-04-02T09:15:00", "parking_days": 1, "status": "cancelled", "payment_status": "refunded",
       "currency": "EUR", "total": "0.00", "channel": "direct", "flight_number": null,
       "customer": {"first_name": "Grace", "last_name": "Hopper", "email": "grace@example.test", "phone": null},
       "vehicle_plates": []}')) AS seeded(booking);
SELECT :'bearer';
