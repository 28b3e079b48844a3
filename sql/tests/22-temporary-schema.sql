-- The temporary schema cannot reach inside a function. PostgreSQL searches pg_temp
-- first for relations and types when a search_path does not list it, so a temporary domain named
-- `text` whose CHECK calls code of its own would run inside every SECURITY DEFINER function with
-- the owner's rights. Two walls: every function of the project lists pg_temp explicitly last, and no
-- role the project creates may make temporary objects at all.
BEGIN;
SELECT plan(13);
CREATE EXTENSION dblink;  -- rolled back with the file

-- Every function of the project''s schemas runs with search_path = pg_catalog, pg_temp ---------------

SELECT is_empty(
    $$SELECT p.oid::regprocedure, p.proconfig
        FROM pg_proc AS p
       WHERE p.pronamespace = ANY (tests.project_schemas())
         AND NOT EXISTS (SELECT FROM pg_depend AS d
                          WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
         AND (p.proconfig IS NULL OR NOT 'search_path=pg_catalog, pg_temp' = ANY (p.proconfig))$$,
    'every function of the project''s schemas runs with search_path = pg_catalog, pg_temp');
SELECT cmp_ok(
    (SELECT count(*) FROM pg_proc
      WHERE pronamespace = ANY (tests.project_schemas())
        AND prosecdef),
    '>=', 20::bigint,
    'the project has SECURITY DEFINER functions to check (so the checks below are not vacuous)');

-- No role the project creates, nor PUBLIC, may make temporary objects -----------------------------------

SELECT is_empty(
    $$SELECT r FROM unnest(ARRAY['public', 'ingest_owner', 'ingest_gateway', 'authenticator', 'anon', 'authenticated',
                                 'platform_service', 'webhook_worker']) AS r
       WHERE has_database_privilege(r, current_database(), 'TEMPORARY')$$,
    'neither PUBLIC nor any role the project creates holds TEMPORARY on the database');

-- A session checks the privilege once, when it first makes its temporary schema: each try runs in a
-- fresh session (dblink), logged in as the role, or switching to it before anything temporary exists.
CREATE FUNCTION pg_temp.temp_table_as(p_login text, p_role text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM dblink_exec(
        regexp_replace(tests.own_database_conninfo(), 'user=\S+', 'user=' || p_login),
        format('SET ROLE %I; CREATE TEMP TABLE hijack_attempt (x integer)', p_role));
    RETURN 'created';
EXCEPTION
    WHEN OTHERS THEN
        RETURN CASE WHEN SQLERRM LIKE '%permission denied to create temporary tables%' THEN 'refused' ELSE SQLERRM END;
END
$$;

SELECT is(pg_temp.temp_table_as('ingest_gateway', 'ingest_gateway'), 'refused',
          'the gateway''s login cannot create a temporary table');
SELECT is(pg_temp.temp_table_as('authenticator', 'authenticator'), 'refused',
          'PostgREST''s login authenticator cannot create a temporary table');
SELECT is(pg_temp.temp_table_as('authenticator', 'authenticated'), 'refused',
          'a console caller (authenticator switched to authenticated) cannot create a temporary table');
SELECT is(pg_temp.temp_table_as('authenticator', 'anon'), 'refused',
          'an anonymous PostgREST caller (anon) cannot create a temporary table');
SELECT is(pg_temp.temp_table_as('webhook_worker', 'webhook_worker'), 'refused',
          'the webhook worker''s login cannot create a temporary table');
SELECT is(pg_temp.temp_table_as(current_user, 'platform_service'), 'refused',
          'a platform service (platform_service) cannot create a temporary table');
SELECT is(pg_temp.temp_table_as(current_user, 'ingest_owner'), 'refused',
          'the owner ingest_owner, whose rights every function runs with, cannot create a temporary table');

-- A temporary object named like a built-in changes nothing a function does -----------------------------
-- Made by the superuser (no project role can), in this session's temporary schema.

CREATE TEMP TABLE fx AS
SELECT o AS operator, tests.issue_credential(o) AS bearer, tests.make_member(o, 'owner') AS owner
  FROM tests.make_operator('Temporary schema') AS o;
SELECT tests.put_lot(bearer, 'lot-1', tests.lot_body()) FROM fx;
SELECT tests.put_rates(bearer, 'lot-1', tests.rates_body()) FROM fx;
SELECT tests.put_blocked_periods(bearer, 'lot-1', '{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-02"}]}') FROM fx;
SELECT tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx;

-- What a set of real calls answers, and what every SECURITY DEFINER function answers to NULL
-- arguments (an answer or an error), each in its own subtransaction so nothing stays written.
CREATE FUNCTION pg_temp.outcome(p_sql text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_answer text;
BEGIN
    EXECUTE p_sql INTO v_answer;
    RAISE SQLSTATE 'TT000' USING MESSAGE = coalesce(v_answer, 'null');
EXCEPTION
    WHEN SQLSTATE 'TT000' THEN
        RETURN 'answer: ' || SQLERRM;
    WHEN OTHERS THEN
        RETURN 'error: ' || SQLSTATE || ' ' || SQLERRM;
END
$$;

CREATE FUNCTION pg_temp.outcomes()
RETURNS TABLE (call text, outcome text)
LANGUAGE plpgsql
AS $$
DECLARE
    v_fx record;
    v_call text;
BEGIN
    SELECT * INTO v_fx FROM fx;
    FOR v_call IN
        SELECT unnest(ARRAY[
            format($c$SELECT (body - 'server_time')::text FROM api.ping(%L)$c$, v_fx.bearer),
            format($c$SELECT status || ' ' || body FROM api.lots_get(%L, NULL, 50)$c$, v_fx.bearer),
            format($c$SELECT status || ' ' || body FROM api.lot_put(%L, 'lot-1', %L, true)$c$, v_fx.bearer, tests.lot_body('{"name": "Renamed"}')),
            format($c$SELECT status || ' ' || body FROM api.lot_put(%L, 'lot-2', %L, true)$c$, v_fx.bearer, tests.lot_body()),
            format($c$SELECT status || ' ' || body FROM api.lot_rates_put(%L, 'lot-1', %L, true)$c$, v_fx.bearer, tests.rates_body('{"fixed_price": "12.50"}', ARRAY['floor_price', 'base_price', 'ceiling_price'])),
            format($c$SELECT status || ' ' || body FROM api.lot_blocked_periods_get(%L, 'lot-1')$c$, v_fx.bearer),
            format($c$SELECT status || ' ' || body FROM api.lot_blocked_periods_put(%L, 'lot-1', '{"blocked_periods": []}', true)$c$, v_fx.bearer),
            format($c$SELECT status || ' ' || (body - 'next') FROM api.bookings_get(%L, NULL, 10)$c$, v_fx.bearer),
            format($c$SELECT platform.lot_listing_status(%L, 'lot-1')::text$c$, v_fx.operator)])
    LOOP
        call := v_call;
        outcome := pg_temp.outcome(v_call);
        RETURN NEXT;
    END LOOP;
    -- The console's calls, as a signed-in owner through PostgREST.
    FOR v_call IN
        SELECT unnest(ARRAY[
            'SELECT string_agg(label || '' '' || state, '','') FROM console.api_credential_list()',
            'SELECT console.lot_listing_status(''lot-1'')::text'])
    LOOP
        PERFORM tests.act_as_console_user(v_fx.owner, v_fx.operator);
        call := v_call;
        outcome := pg_temp.outcome(v_call);
        PERFORM tests.act_as_superuser();
        RETURN NEXT;
    END LOOP;
    FOR v_call IN
        SELECT format('SELECT count(*)::text FROM %s.%s(%s)', p.pronamespace::regnamespace, p.proname,
                      (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY n)
                         FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, n)))
          FROM pg_proc AS p
         WHERE p.pronamespace IN ('api'::regnamespace, 'console'::regnamespace, 'platform'::regnamespace)
           AND p.prosecdef
         ORDER BY 1
    LOOP
        call := v_call;
        outcome := pg_temp.outcome(v_call);
        PERFORM tests.act_as_superuser();
        RETURN NEXT;
    END LOOP;
END
$$;

CREATE TEMP TABLE clean AS SELECT * FROM pg_temp.outcomes();

-- This session's own code (pgTAP, the tests helpers, the calls above) names types through the
-- session's search_path: list pg_temp last here too, so only a function's own setting is on trial.
SET LOCAL search_path = pg_catalog, public, pg_temp;

-- The traps: a domain over each built-in type a function names through the search path, whose CHECK
-- raises; tables named like the project's tables and like catalog views.
CREATE FUNCTION pg_temp.hijacked()
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    RAISE SQLSTATE 'HJ001' USING MESSAGE = 'code planted in pg_temp ran';
END
$$;
DO $$
DECLARE
    v_name text;
BEGIN
    FOREACH v_name IN ARRAY ARRAY['text', 'uuid', 'jsonb', 'json', 'bytea', 'date', 'timestamptz', 'timestamp',
                                  'int4', 'int8', 'int2', 'bool', 'float8', 'name', 'regclass', 'oid', 'xid'] LOOP
        EXECUTE format('CREATE DOMAIN pg_temp.%I AS pg_catalog.%I CHECK (pg_temp.hijacked())', v_name, v_name);
    END LOOP;
    FOREACH v_name IN ARRAY ARRAY['operators', 'api_credentials', 'server_secrets', 'settings', 'lots', 'lot_rates',
                                  'lot_blocked_periods', 'bookings', 'memberships', 'users', 'pg_locks', 'pg_roles',
                                  'pg_timezone_names'] LOOP
        EXECUTE format('CREATE TEMP TABLE %I (hijacked boolean CHECK (pg_temp.hijacked()))', v_name);
    END LOOP;
END
$$;

-- The traps are live: a function whose search_path leaves pg_temp implicit (first) walks into them.
SET LOCAL ROLE ingest_owner;
CREATE FUNCTION app.tests_implicit_pg_temp() RETURNS text
LANGUAGE plpgsql SET search_path = '' AS $$ DECLARE v text := 'x'; BEGIN RETURN v; END $$;
RESET ROLE;
SELECT is(pg_temp.outcome('SELECT app.tests_implicit_pg_temp()'), 'error: HJ001 code planted in pg_temp ran',
          'the traps are live: a function with search_path = '''' runs the code planted in pg_temp');

CREATE TEMP TABLE trapped AS SELECT * FROM pg_temp.outcomes();

SELECT results_eq(
    $$SELECT left(outcome, 12) FROM clean WHERE call NOT LIKE 'SELECT count(*)::text FROM %' ORDER BY call COLLATE "C"$$,
    $$VALUES ('answer: {"ok'), ('answer: {"un'), ('answer: {"un'), ('answer: 200 '), ('answer: 200 '), ('answer: 200 '),
             ('answer: 200 '), ('answer: 200 '), ('answer: 200 '), ('answer: 200 '), ('answer: test')$$,
    'every real call answered before the traps were set (so the comparison is not vacuous)');
SELECT is_empty(
    $$SELECT c.call, c.outcome AS before, t.outcome AS after
        FROM clean AS c FULL JOIN trapped AS t USING (call)
       WHERE c.outcome IS DISTINCT FROM t.outcome$$,
    'with the traps set, every real call and every SECURITY DEFINER function called with NULL arguments answers exactly as before');

SELECT * FROM finish();
ROLLBACK;
