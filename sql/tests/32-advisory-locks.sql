-- Advisory locks are the owner's alone. Every booking write takes a shared advisory lock keyed by its
-- operator (app.booking_writer_lock), the feed's watermark reads those locks from pg_locks, and the
-- publication for standbys copies them: a login that could take an operator's key and keep it
-- would hold that operator's cursor still. `ingest migrate` (as a superuser) takes every
-- advisory-lock function from PUBLIC in this database and grants back only what the project uses.
BEGIN;
SELECT plan(11);

CREATE TEMP TABLE locks AS
SELECT p.oid::regprocedure AS fn
  FROM pg_proc AS p
 WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$';
GRANT SELECT ON locks TO PUBLIC;
SELECT tests.lend_temporary_to_project_roles();
SELECT is((SELECT count(*) FROM locks), 16::bigint, 'sixteen functions take an advisory lock (so the checks below are not vacuous)');

SELECT is_empty(
    $$SELECT r, l.fn FROM unnest(ARRAY['public', 'ingest_gateway', 'webhook_worker', 'platform_service', 'authenticator',
                                       'anon', 'authenticated']) AS r, locks AS l
       WHERE has_function_privilege(r, l.fn, 'EXECUTE')$$,
    'no login role of the project, nor PUBLIC, may take an advisory lock');
SELECT ok(has_function_privilege('ingest_owner', 'pg_advisory_xact_lock_shared(integer, integer)', 'EXECUTE'),
          'the owner takes the writer lock (in the functions it owns)');
SELECT ok(has_function_privilege('ingest_owner', 'pg_try_advisory_xact_lock(integer, integer)', 'EXECUTE'),
          'and tries an operator''s presence lock, for a poll');
SELECT ok(has_function_privilege('ingest_owner', 'pg_advisory_lock(bigint)', 'EXECUTE'),
          'and the migration lock, for a migrating account that is its member');

-- A migrating account that is not a superuser (a managed service's CREATEROLE owner) is a member of
-- ingest_owner (V1 grants it), and inherits the migration lock from it (rolled back with the file).
CREATE ROLE pgtap_advisory_migrator LOGIN CREATEROLE;
GRANT ingest_owner TO pgtap_advisory_migrator;
SET LOCAL ROLE pgtap_advisory_migrator;
SELECT lives_ok($$SELECT pg_advisory_lock(7597123306846973287), pg_advisory_unlock(7597123306846973287)$$,
                'a CREATEROLE migrating account, a member of ingest_owner, still takes and releases migrate''s lock');
RESET ROLE;

-- An owner not granted the try (a superuser took the functions from PUBLIC before it existed, and
-- migrate ran since as another account): a poll reads pg_locks instead, and does not fail.
REVOKE EXECUTE ON FUNCTION pg_try_advisory_xact_lock(integer, integer) FROM ingest_owner;
SET LOCAL ROLE ingest_owner;
SELECT lives_ok($$SELECT app.booking_writers_none(gen_random_uuid())$$, 'an owner not granted the try still polls');
SELECT is(app.booking_writers_none(gen_random_uuid()), false, 'and reads pg_locks for the watermark');
RESET ROLE;
GRANT EXECUTE ON FUNCTION pg_try_advisory_xact_lock(integer, integer) TO ingest_owner;

-- As the logins themselves (the writer key of some operator, as pg_locks would show it).
SELECT tests.act_as_gateway();
SELECT throws_ok($$SELECT pg_advisory_lock_shared(12345, 0)$$, '42501', NULL, 'the gateway''s login cannot take a writer key');
SELECT tests.act_as_superuser();
SET LOCAL ROLE webhook_worker;
SELECT throws_ok($$SELECT pg_advisory_xact_lock_shared(12345, 0)$$, '42501', NULL, 'nor the worker''s');
RESET ROLE;
SET LOCAL ROLE platform_service;
SELECT throws_ok($$SELECT pg_try_advisory_lock(12345::bigint)$$, '42501', NULL, 'nor the platform''s');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
