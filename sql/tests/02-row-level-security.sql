-- Row-level security: enabled and FORCED on every tenant table, so even the owner role (as which
-- every function runs) sees and writes only the rows of the operator in context. The checks run over
-- tests.tenant_tables(), so a new tenant table without RLS, or without fixture rows here, fails.
BEGIN;
SELECT plan(28);

-- Fixture: operators A and B, each with members of every role, two credentials, a webhook endpoint
-- and two lots, each lot with a price envelope, a closure and a booking (which leaves a hint) ------

CREATE TEMP TABLE fx AS
SELECT tests.make_operator('Operator A') AS a, tests.make_operator('Operator B') AS b;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.register_webhook(a), tests.register_webhook(b) FROM fx;
CREATE TEMP TABLE fixture AS
SELECT o AS operator, tests.make_member(o, r) AS member, tests.issue_credential(o) AS bearer,
       tests.issue_credential(o, ARRAY['read_bookings'], 30) AS read_only_bearer
  FROM fx CROSS JOIN LATERAL (VALUES (fx.a), (fx.b)) AS x(o) CROSS JOIN (VALUES ('manager'), ('staff')) AS y(r);
CREATE TEMP TABLE lots_made AS
SELECT (tests.put_lot(bearer, 'lot ' || md5(bearer), tests.lot_body())).status FROM fixture;
CREATE TEMP TABLE lot_parts_made AS
SELECT (tests.put_rates(bearer, 'lot ' || md5(bearer), tests.rates_body())).status AS rates,
       (tests.put_blocked_periods(bearer, 'lot ' || md5(bearer),
                                  '{"blocked_periods": [{"starts_on": "2026-03-01", "ends_on": "2026-03-31"}]}')).status AS closures,
       tests.record_booking(operator, tests.booking_body('lot ' || md5(bearer))) AS booking
  FROM fixture;
CREATE TEMP TABLE b_key AS
SELECT min(key_id) AS key_id FROM app.api_credentials WHERE operator_id = (SELECT b FROM fx);
GRANT SELECT ON b_key TO PUBLIC;

-- One query over every tenant table: p_template is a format() string where %1$s is the table, %2$I
-- its operator column and %3$s a name made of the table's (for CTE names); joined with p_glue.
CREATE FUNCTION pg_temp.over_tenant_tables(p_template text, p_glue text DEFAULT ' UNION ALL ')
RETURNS text
LANGUAGE sql
AS $$
    SELECT string_agg(format(p_template, t, tests.operator_column(t), replace(t::text, '.', '_')), p_glue ORDER BY t::text)
      FROM tests.tenant_tables() AS t;
$$;

-- A copy of one row of B from every tenant table, taken while nothing hides it (superuser).
CREATE TEMP TABLE b_copy (tbl regclass, copy jsonb);
GRANT SELECT ON b_copy TO PUBLIC;
DO $$
DECLARE
    t regclass;
BEGIN
    FOR t IN SELECT * FROM tests.tenant_tables() LOOP
        EXECUTE format('INSERT INTO b_copy SELECT %L, to_jsonb(r) FROM %s AS r WHERE r.%I = (SELECT b FROM fx) LIMIT 1',
                       t, t, tests.operator_column(t));
    END LOOP;
END
$$;

SELECT is((SELECT array_agg(status) FROM lots_made), ARRAY[201, 201, 201, 201], 'the fixture: each operator''s two lots are created');
SELECT is((SELECT array_agg(ARRAY[rates, closures] ORDER BY booking) FROM lot_parts_made), ARRAY[ARRAY[201, 201], ARRAY[201, 201], ARRAY[201, 201], ARRAY[201, 201]],
          'the fixture: each lot gets a price envelope and a closure list (both created)');
SELECT is((SELECT count(DISTINCT booking) FROM lot_parts_made), 4::bigint, 'the fixture: each lot takes a booking');

-- Every tenant table is protected --------------------------------------------------------------------

SELECT isnt_empty('SELECT * FROM tests.tenant_tables()', 'there are tenant tables');
SELECT is_empty(
    'SELECT t FROM tests.tenant_tables() AS t WHERE NOT tests.rls_forced(t)',
    'every tenant table has row-level security enabled and forced');
SELECT is_empty(
    $$SELECT c.oid::regclass FROM pg_class AS c
       WHERE c.relnamespace = 'app'::regnamespace AND c.relkind IN ('r', 'p')
         AND c.oid NOT IN (SELECT * FROM tests.tenant_tables())
         AND c.oid::regclass::text NOT IN
             ('app.users', 'app.server_secrets', 'app.settings', 'app.iana_zones', 'app.iso_countries', 'app.iso_currencies',
              'app.deployed_rules', 'app.booking_writers_published')$$,
    'every app table is a tenant table (it has operator_id) or one of the known global tables');

-- Who sets the operator context (read from the function sources) -----------------------------------

SELECT is_empty(
    $$SELECT p.oid::regprocedure FROM pg_proc AS p
       WHERE p.pronamespace = ANY (tests.project_schemas())
         AND p.prosrc ~ 'app\.operator_id'
         AND p.oid <> 'app.set_operator_context(uuid)'::regprocedure$$,
    'only app.set_operator_context touches the setting app.operator_id');
SELECT is_empty(
    $$SELECT p.oid::regprocedure FROM pg_proc AS p
       WHERE p.pronamespace = ANY (tests.project_schemas())
         AND p.prosrc ~ 'app\.set_operator_context\((?!NULL\))'
         AND p.pronamespace <> 'platform'::regnamespace
         AND p.oid NOT IN ('app.authenticate(text, text, boolean)'::regprocedure, 'app.console_caller(text[], text)'::regprocedure,
                           'app.read_assertion_operator(text)'::regprocedure)$$,
    'the operator context is entered only by app.authenticate, app.console_caller, app.read_assertion_operator (a standby''s) and the platform functions');
SELECT is_empty(
    $$SELECT p.oid::regprocedure FROM pg_proc AS p
       WHERE p.pronamespace = ANY (tests.project_schemas())
         AND p.prosrc ~ 'app\.authenticating_key_id'
         AND p.oid NOT IN ('app.authenticate(text, text, boolean)'::regprocedure, 'app.set_operator_context(uuid)'::regprocedure)$$,
    'only app.authenticate sets the key id readable during authentication (and app.set_operator_context clears it)');

-- What entering and leaving an operator clear ---------------------------------------------------------

SELECT set_config('app.authenticating_key_id', (SELECT key_id FROM b_key), true), set_config('app.webhook_sweep', 'on', true);
SELECT is(app.set_operator_context((SELECT a FROM fx)), (SELECT a::text FROM fx),
          'entering an operator answers the context now in force: its id');
SELECT is(current_setting('app.authenticating_key_id') || current_setting('app.webhook_sweep'), '',
          'entering an operator clears a key id and a sweep flag set by hand');
SELECT set_config('app.authenticating_key_id', (SELECT key_id FROM b_key), true), set_config('app.webhook_sweep', 'on', true);
SELECT is(app.set_operator_context(NULL), '', 'leaving answers the context now in force: none');
SELECT is(current_setting('app.operator_id') || current_setting('app.authenticating_key_id') || current_setting('app.webhook_sweep'), '',
          'leaving clears the operator, a key id and a sweep flag set by hand');

-- The fixture reaches every tenant table -------------------------------------------------------------

SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text WHERE NOT EXISTS (SELECT FROM %1$s WHERE %2$I = (SELECT b FROM fx))'),
    'the fixture holds rows of B in every tenant table');
SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text WHERE NOT EXISTS (SELECT FROM %1$s WHERE %2$I = (SELECT a FROM fx))'),
    'the fixture holds rows of A in every tenant table');

-- As the owner in operator A's context ---------------------------------------------------------------
-- (the superuser bypasses row-level security; the owner does not, because it is FORCED)

SET LOCAL ROLE ingest_owner;
SELECT set_config('app.operator_id', a::text, true) FROM fx;

SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text WHERE NOT EXISTS (SELECT FROM %1$s WHERE %2$I = (SELECT a FROM fx))'),
    'in A''s context the owner sees A''s rows in every tenant table');
SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text, %2$I FROM %1$s WHERE %2$I IS DISTINCT FROM (SELECT a FROM fx)'),
    'in A''s context no row of B (nor of any other operator) is visible in any tenant table');
SELECT is_empty(
    'WITH ' || pg_temp.over_tenant_tables(
        'u_%3$s AS (UPDATE %1$s SET %2$I = %2$I WHERE %2$I = (SELECT b FROM fx) RETURNING %1$L::text AS t)', ', ')
    || ' ' || pg_temp.over_tenant_tables('SELECT t FROM u_%3$s'),
    'in A''s context an UPDATE of B''s rows changes no row of any tenant table');
SELECT is_empty(
    'WITH ' || pg_temp.over_tenant_tables(
        'd_%3$s AS (DELETE FROM %1$s WHERE %2$I = (SELECT b FROM fx) RETURNING %1$L::text AS t)', ', ')
    || ' ' || pg_temp.over_tenant_tables('SELECT t FROM d_%3$s'),
    'in A''s context a DELETE of B''s rows removes no row of any tenant table');
SELECT is(
    (SELECT array_agg(tbl::text ORDER BY tbl::text) FROM b_copy),
    (SELECT array_agg(t::text ORDER BY t::text) FROM tests.tenant_tables() AS t),
    'there is a copy of a row of B from every tenant table');
SELECT is_empty(
    $$SELECT tbl, e.code, e.message
        FROM b_copy
       CROSS JOIN LATERAL tests.error_of(
             format('INSERT INTO %s SELECT * FROM jsonb_populate_record(NULL::%s, %L)', tbl, tbl, copy)) AS e
       WHERE e.code IS DISTINCT FROM '42501'
          OR e.message NOT LIKE 'new row violates row-level security policy for table %'$$,
    'in A''s context inserting a row of B into any tenant table is refused (42501, row-level security)');
SELECT is_empty(
    $$SELECT t, e.code, e.message
        FROM tests.tenant_tables() AS t
       CROSS JOIN LATERAL tests.error_of(
             format('UPDATE %s SET %I = (SELECT b FROM fx) WHERE %2$I = (SELECT a FROM fx)', t, tests.operator_column(t))) AS e
       WHERE e.code IS DISTINCT FROM '42501'
          OR e.message NOT LIKE 'new row violates row-level security policy for table %'$$,
    'in A''s context moving a row of A to B in any tenant table is refused (42501, row-level security)');

-- A key id set by hand inside an operator context widens nothing: the authentication policy holds
-- only while no operator is entered (a console or platform caller always has one).

SELECT set_config('app.authenticating_key_id', key_id, true) FROM b_key;
SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text, %2$I FROM %1$s WHERE %2$I IS DISTINCT FROM (SELECT a FROM fx)'),
    'in A''s context, with B''s key id forged as the one being authenticated, still no row of B is visible');
SELECT set_config('app.authenticating_key_id', '', true);

-- With no operator context at all, nothing is visible ------------------------------------------------

SELECT set_config('app.operator_id', '', true);
SELECT is_empty(
    pg_temp.over_tenant_tables('SELECT %1$L::text, %2$I FROM %1$s'),
    'with no operator context no row of any tenant table is visible');
SELECT is_empty(
    'WITH ' || pg_temp.over_tenant_tables(
        'u_%3$s AS (UPDATE %1$s SET %2$I = %2$I RETURNING %1$L::text AS t)', ', ')
    || ' ' || pg_temp.over_tenant_tables('SELECT t FROM u_%3$s'),
    'with no operator context an UPDATE changes no row of any tenant table');

-- The one exception: while authenticating (no operator context) the credential named by its key id
-- is readable -------------------------------------------------------------------------------------

SELECT set_config('app.authenticating_key_id', key_id, true) FROM b_key;
SELECT is(
    ARRAY(SELECT key_id FROM app.api_credentials WHERE operator_id = (SELECT b FROM fx)),
    ARRAY(SELECT key_id FROM b_key),
    'with B''s key id being authenticated, that one credential of B is readable, and no other');
SELECT is_empty(
    $$WITH u AS (UPDATE app.api_credentials SET revoked_at = now() WHERE key_id = (SELECT key_id FROM b_key) RETURNING 1),
           d AS (DELETE FROM app.api_credentials WHERE key_id = (SELECT key_id FROM b_key) RETURNING 1)
      SELECT * FROM u UNION ALL SELECT * FROM d$$,
    'the credential readable during authentication can be neither updated nor deleted');
SELECT is_empty(
    pg_temp.over_tenant_tables(
        'SELECT %1$L::text FROM %1$s WHERE %2$I = (SELECT b FROM fx) AND %1$L::regclass <> ''app.api_credentials''::regclass'),
    'the key id being authenticated makes nothing else of B visible');
SELECT set_config('app.authenticating_key_id', '', true);
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
