-- The contract run's operator: a lot `lot-1` (so the routes under a lot have something to find)
-- and a credential holding every scope, issued the console way. Prints the Bearer value last.
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
SELECT :'bearer';
