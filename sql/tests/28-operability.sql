-- Operability: the schema version the gateway's readiness compares with its binary's, and
-- the webhook backlog the worker reports as metrics; whether the platform's own domains are set,
-- which the worker asks at start. Each is one role's alone, reads no operator
-- data, and the backlog counts only what an operations person alerts on.
BEGIN;
SELECT plan(24);

-- The schema version ------------------------------------------------------------------------------

CREATE TEMP TABLE applied AS SELECT max(version)::integer AS version FROM refinery_schema_history;
GRANT SELECT ON applied TO PUBLIC;
SELECT tests.lend_temporary_to_project_roles();
SELECT tests.act_as_gateway();
SELECT is(api.functions_version(), (SELECT version FROM applied),
          'api.functions_version() is the highest migration applied, as the gateway reads it');
SELECT is(api.schema_version(), (SELECT version FROM applied),
          'so is api.schema_version(), which gateways before api.functions_version() read');
SELECT tests.act_as_superuser();
SELECT ok(has_function_privilege('ingest_gateway', 'api.functions_version()', 'EXECUTE')
          AND has_function_privilege('ingest_gateway', 'api.schema_version()', 'EXECUTE'),
          'ingest_gateway may call both');
SELECT ok(NOT has_function_privilege('webhook_worker', 'api.functions_version()', 'EXECUTE')
          AND NOT has_function_privilege('authenticated', 'api.functions_version()', 'EXECUTE')
          AND NOT has_function_privilege('platform_service', 'api.functions_version()', 'EXECUTE')
          AND NOT has_function_privilege('webhook_worker', 'api.schema_version()', 'EXECUTE')
          AND NOT has_function_privilege('authenticated', 'api.schema_version()', 'EXECUTE')
          AND NOT has_function_privilege('platform_service', 'api.schema_version()', 'EXECUTE'),
          'no other role may call either');
SELECT ok(NOT has_table_privilege('ingest_gateway', 'app.migration_history', 'SELECT')
          AND NOT has_table_privilege('webhook_worker', 'app.migration_history', 'SELECT'),
          'no login reads the migration history itself');
SELECT is((SELECT bool_and(p.prosecdef AND p.proconfig = ARRAY['search_path=pg_catalog, pg_temp'])
             FROM pg_proc AS p WHERE p.oid IN ('api.schema_version()'::regprocedure, 'api.functions_version()'::regprocedure)),
          true, 'both are SECURITY DEFINER with the project''s search path');
-- A migration applied after the functions (each commits on its own; the functions' transaction
-- comes after, and may give up) does not count until the functions are applied for it.
INSERT INTO refinery_schema_history (version, name, applied_on, checksum)
VALUES ((SELECT version + 1 FROM applied), 'pgtap_pending_functions', '', '0');
SELECT is(api.functions_version(), (SELECT version FROM applied),
          'a migration whose functions are not applied yet leaves the version where the functions stand');
SELECT isnt(app.deployed_rules_refresh(), NULL, 'the functions applied again (as ingest migrate ends)');
SELECT is(api.functions_version(), (SELECT version + 1 FROM applied), 'then it counts');

-- The webhook backlog -----------------------------------------------------------------------------

SELECT ok(has_function_privilege('webhook_worker', 'webhook.backlog()', 'EXECUTE'),
          'webhook_worker may call webhook.backlog()');
SELECT ok(NOT has_function_privilege('ingest_gateway', 'webhook.backlog()', 'EXECUTE')
          AND NOT has_function_privilege('authenticated', 'webhook.backlog()', 'EXECUTE'),
          'neither the gateway nor the console may call webhook.backlog()');
SELECT has_index('app', 'webhook_hints', 'webhook_hints_dead_by_last_attempt',
                 'the hints dead after attempts have a partial index by their last attempt');

-- What the worker reads, as its login role; restores the superuser.
CREATE FUNCTION pg_temp.backlog(OUT waiting bigint, OUT in_flight bigint, OUT oldest double precision, OUT dead bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM tests.act_as_superuser(), set_config('role', 'webhook_worker', true);
    SELECT b.waiting, b.in_flight, b.oldest_undelivered_seconds, b.dead_last_day
      INTO waiting, in_flight, oldest, dead FROM webhook.backlog() AS b;
    PERFORM tests.act_as_superuser();
END
$$;

SELECT is(pg_temp.backlog(), ROW(0::bigint, 0::bigint, 0::double precision, 0::bigint),
          'no hint: nothing waits, nothing is in flight, the oldest is 0 s old, none died');

CREATE TEMP TABLE fx AS SELECT o AS operator FROM tests.make_operator('Operability') AS o;
SELECT tests.put_lot(tests.issue_credential(operator), 'lot-1', tests.lot_body()) FROM fx;
SELECT tests.register_webhook(operator) FROM fx;
CREATE TEMP TABLE refs AS
SELECT tests.record_booking(operator, tests.booking_body('lot-1')) AS reference FROM fx, generate_series(1, 6);
-- The clock of this file: hints of different ages and fates, set as the superuser.
UPDATE app.webhook_hints SET occurred_at = now() - interval '90 seconds'
 WHERE booking_reference = (SELECT min(reference) FROM refs);
SELECT is(pg_temp.backlog(), ROW(6::bigint, 0::bigint, 90::double precision, 0::bigint),
          'six waiting hints; the oldest is as old as the change it hints at');

UPDATE app.webhook_hints SET in_flight = true, lease_token = gen_random_uuid(), lease_until = now() + interval '1 minute'
 WHERE booking_reference = (SELECT max(reference) FROM refs);
SELECT is((SELECT (b.waiting, b.in_flight) FROM pg_temp.backlog() AS b), ROW(5::bigint, 1::bigint),
          'a hint under an attempt counts as in flight, not waiting');

-- Fates: delivered; dead after five failures now; dead after failures two days ago; dead by a disarm.
CREATE TEMP TABLE fates AS
SELECT reference, row_number() OVER (ORDER BY reference) AS n FROM refs
 WHERE reference NOT IN ((SELECT min(reference) FROM refs), (SELECT max(reference) FROM refs));
UPDATE app.webhook_hints AS h
   SET state = CASE f.n WHEN 1 THEN 'delivered' ELSE 'dead' END,
       delivered_at = CASE f.n WHEN 1 THEN now() END,
       next_attempt_at = NULL,
       attempts = CASE f.n WHEN 1 THEN 1 WHEN 4 THEN 0 ELSE 5 END,
       last_attempt_at = CASE f.n WHEN 1 THEN now() WHEN 2 THEN now() - interval '1 minute'
                                  WHEN 3 THEN now() - interval '2 days' END,
       last_status = CASE f.n WHEN 1 THEN 204 WHEN 2 THEN 500 END,
       last_failure = CASE f.n WHEN 2 THEN 'http_status' WHEN 3 THEN 'timeout' WHEN 4 THEN 'endpoint_disarmed' END
  FROM fates AS f
 WHERE h.booking_reference = f.reference;
SELECT is(pg_temp.backlog(), ROW(1::bigint, 1::bigint, 90::double precision, 1::bigint),
          'delivered and dead hints leave the backlog; only the one dead after attempts in the last day counts');

SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state = 'dead'), 3::bigint,
          '(three hints are dead in all)');

-- The backlog names nothing of an operator.
SELECT is((SELECT p.proargnames FROM pg_proc AS p WHERE p.oid = 'webhook.backlog()'::regprocedure),
          ARRAY['waiting', 'in_flight', 'oldest_undelivered_seconds', 'dead_last_day'],
          'webhook.backlog() answers four counts and an age: no operator, reference or URL');

-- The platform's own domains, as the worker checks them at start --------------------------------------

-- Whether they are configured, asked as the worker's login role; restores the superuser.
CREATE FUNCTION pg_temp.platform_domains_configured() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_configured boolean;
BEGIN
    PERFORM tests.act_as_superuser(), set_config('role', 'webhook_worker', true);
    v_configured := webhook.platform_domains_configured();
    PERFORM tests.act_as_superuser();
    RETURN v_configured;
END
$$;

SELECT is((SELECT value FROM app.settings WHERE name = 'webhook_platform_domains'), '',
          'after migrate, webhook_platform_domains is empty (the deployment must set it)');
SELECT is(pg_temp.platform_domains_configured(), false,
          'the worker reads that the platform domains are not configured');
UPDATE app.settings SET value = ' , ., ' WHERE name = 'webhook_platform_domains';
SELECT is(pg_temp.platform_domains_configured(), false,
          'commas, spaces and dots name no domain: still not configured (and nothing is refused by them)');
UPDATE app.settings SET value = 'parking.example, .platform.example' WHERE name = 'webhook_platform_domains';
SELECT is(pg_temp.platform_domains_configured(), true, 'once the deployment names its domains, they are configured');
SELECT is((SELECT (p.prosecdef, p.proconfig, p.prorettype::regtype::text, p.pronargs)::text
             FROM pg_proc AS p WHERE p.oid = 'webhook.platform_domains_configured()'::regprocedure),
          '(t,"{""search_path=pg_catalog, pg_temp""}",boolean,0)',
          'webhook.platform_domains_configured() is SECURITY DEFINER with the project''s search path, takes nothing and answers a boolean only (never the domains)');
SELECT ok(has_function_privilege('webhook_worker', 'webhook.platform_domains_configured()', 'EXECUTE')
          AND NOT has_function_privilege('ingest_gateway', 'webhook.platform_domains_configured()', 'EXECUTE')
          AND NOT has_function_privilege('authenticated', 'webhook.platform_domains_configured()', 'EXECUTE')
          AND NOT has_function_privilege('platform_service', 'webhook.platform_domains_configured()', 'EXECUTE'),
          'webhook_worker alone may ask whether the platform domains are configured');

SELECT * FROM finish();
ROLLBACK;
