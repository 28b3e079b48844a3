-- Seed a demo operator for local use and print a fresh API credential. Re-runnable: the operator,
-- its owner and membership are made once; every run issues (and prints) a new credential.
--
--   psql "$DATABASE_URL" -v base_url=http://127.0.0.1:8080/v1 -f sql/dev/demo.sql
--
-- The credential is issued exactly as the console does it through PostgREST: as role
-- `authenticated`, with the JWT claims and the lower-cased request headers in settings.
\set ON_ERROR_STOP 1
\set QUIET 1
\set demo_user '00000000-0000-4000-8000-00000000de00'
\o /dev/null

SELECT platform.user_upsert(:'demo_user', 'owner@demo.invalid', false);

-- The demo owner's operator if it exists already (read as the superuser running this script).
SELECT coalesce(
           (SELECT operator_id::text FROM app.memberships WHERE user_id = :'demo_user' LIMIT 1),
           platform.operator_create('Demo Car Parks', 'EUR')::text) AS operator_id
\gset
SELECT platform.member_set(:'operator_id', :'demo_user', 'owner');

-- A local demo's own platform domains (a deployment sets its real ones: docs/operating.md), so the
-- webhook worker does not warn about them; a value already set is kept.
UPDATE app.settings SET value = 'platform.invalid'
 WHERE name = 'webhook_platform_domains' AND value = '';

BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', json_build_object('sub', :'demo_user', 'role', 'authenticated')::text, true),
       set_config('request.headers', json_build_object('x-tenant-id', :'operator_id')::text, true)
\gset
SELECT key_id || '.' || secret AS bearer
  FROM console.api_credential_issue('demo (make run)', ARRAY['read_supply', 'write_supply', 'read_bookings'])
\gset
COMMIT;
\o

\echo
\echo 'Demo operator' :operator_id 'with a credential holding read_supply, write_supply, read_bookings:'
\echo
\echo '  Authorization: Bearer' :bearer
\echo
\echo 'Paste into a second shell, then try it:'
\echo
\echo '  export BASE=':base_url' TOKEN=':bearer' OPERATOR=':operator_id
\echo '  curl -i -H "Authorization: Bearer $TOKEN" $BASE/ping'
\echo
\echo 'Once you have PUT a lot, make demo-booking records a booking on it (docs/integrating.md).'
\echo
