-- Schemas, roles and privileges (docs/reference/sql-interfaces.md): the owner is a NOLOGIN role
-- that does not bypass row-level security; every role reaches exactly its own schema's functions
-- and nothing else; no role but the owner touches a table; every function has a fixed search_path.
BEGIN;
SELECT plan(33);

-- The API roles and the schema whose functions each may call (NULL: none yet).
CREATE TEMP TABLE api_roles (role name PRIMARY KEY, schema name) ON COMMIT DROP;
INSERT INTO api_roles VALUES
    ('ingest_gateway', 'api'),
    ('authenticated', 'console'),
    ('platform_service', 'platform'),
    ('authenticator', NULL),
    ('anon', NULL),
    ('webhook_worker', 'webhook');

-- Every function of the project's four schemas.
CREATE TEMP VIEW project_functions AS
SELECT p.oid, p.oid::regprocedure AS function, n.nspname AS schema, p.prosecdef, p.proowner, p.proconfig
  FROM pg_proc AS p
  JOIN pg_namespace AS n ON n.oid = p.pronamespace
 WHERE n.oid = ANY (tests.project_schemas());

-- Schemas --------------------------------------------------------------------------------------

SELECT has_schema('app', 'schema app (private: tables and internal functions) exists');
SELECT has_schema('api', 'schema api (the gateway) exists');
SELECT has_schema('console', 'schema console (PostgREST) exists');
SELECT has_schema('platform', 'schema platform (platform services) exists');
SELECT is_empty(
    $$SELECT nspname FROM pg_namespace
       WHERE nspname IN ('app', 'api', 'console', 'platform', 'webhook') AND nspowner <> 'ingest_owner'::regrole$$,
    'the five schemas are owned by ingest_owner');

-- Roles ----------------------------------------------------------------------------------------

SELECT results_eq(
    $$SELECT rolname::text COLLATE "default", rolcanlogin FROM pg_roles
       WHERE rolname IN ('ingest_owner', 'ingest_gateway', 'authenticator', 'anon', 'authenticated',
                         'platform_service', 'webhook_worker')
       ORDER BY rolname$$,
    $$VALUES ('anon', false), ('authenticated', false), ('authenticator', true), ('ingest_gateway', true),
             ('ingest_owner', false), ('platform_service', false), ('webhook_worker', true)$$,
    'the seven roles exist; ingest_gateway, authenticator and webhook_worker log in, the others cannot');
SELECT is_member_of('anon', ARRAY['authenticator'], 'authenticator may switch to anon (PostgREST)');
SELECT is_member_of('authenticated', ARRAY['authenticator'], 'authenticator may switch to authenticated (PostgREST)');
SELECT is(
    (SELECT rolinherit FROM pg_roles WHERE rolname = 'authenticator'), false,
    'authenticator is NOINHERIT: it holds nothing until PostgREST switches role');
SELECT is(
    (SELECT (rolsuper, rolbypassrls, rolcanlogin)::text FROM pg_roles WHERE rolname = 'ingest_owner'),
    '(f,f,f)',
    'the owner ingest_owner is not a superuser, does not bypass row-level security and cannot log in');
SELECT is_empty(
    $$SELECT rolname FROM pg_roles
       WHERE rolname IN (SELECT role FROM api_roles) AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb)$$,
    'no API role is a superuser, bypasses row-level security or may create roles or databases');
SELECT is_empty(
    $$SELECT r.role, g.rolname
        FROM api_roles AS r
        JOIN pg_roles AS g ON pg_has_role(r.role, g.oid, 'MEMBER')
       WHERE g.rolname <> r.role
         AND NOT (r.role = 'authenticator' AND g.rolname IN ('anon', 'authenticated'))$$,
    'no API role is a member of another role (the owner, pg_read_all_data, …), but authenticator of anon and authenticated');

-- Functions ------------------------------------------------------------------------------------

SELECT is_empty(
    $$SELECT function FROM project_functions WHERE schema <> 'app' AND NOT prosecdef$$,
    'every function of api, console and platform is SECURITY DEFINER');
SELECT is_empty(
    $$SELECT function FROM project_functions WHERE proowner <> 'ingest_owner'::regrole$$,
    'every function of the project''s schemas is owned by ingest_owner');
SELECT is_empty(
    $$SELECT function FROM project_functions
       WHERE NOT EXISTS (SELECT FROM unnest(proconfig) AS c WHERE c LIKE 'search_path=%')$$,
    'every function of the project''s schemas has a fixed search_path');
SELECT is_empty(
    $$SELECT function FROM project_functions WHERE has_function_privilege('public', oid, 'EXECUTE')$$,
    'no function of the project''s schemas is executable by PUBLIC');
SELECT isnt_empty(
    $$SELECT function FROM project_functions WHERE schema = 'api'$$,
    'schema api has functions (so the checks below are not vacuous)');
SELECT is_empty(
    $$SELECT f.function, r.role
        FROM project_functions AS f JOIN api_roles AS r ON r.schema = f.schema
       WHERE NOT has_function_privilege(r.role, f.oid, 'EXECUTE')$$,
    'every function of api, console and platform is executable by its schema''s role');
SELECT is_empty(
    $$SELECT f.function, r.role
        FROM project_functions AS f CROSS JOIN api_roles AS r
       WHERE r.schema IS DISTINCT FROM f.schema
         AND has_function_privilege(r.role, f.oid, 'EXECUTE')$$,
    'no API role may execute a function of another schema, nor of app');
SELECT is_empty(
    $$SELECT r.role, n.nspname,
             has_schema_privilege(r.role, n.oid, 'USAGE') AS usage, has_schema_privilege(r.role, n.oid, 'CREATE') AS "create"
        FROM api_roles AS r
       CROSS JOIN pg_namespace AS n
       WHERE (n.oid = ANY (tests.project_schemas()) OR n.nspname = 'extensions')
         AND (has_schema_privilege(r.role, n.oid, 'CREATE')
              OR has_schema_privilege(r.role, n.oid, 'USAGE') <> (n.nspname = r.schema))$$,
    'each API role may use exactly its own schema (not app, not extensions) and create in none');

-- A function the owner creates later is not executable by PUBLIC either (default privileges).
SET LOCAL ROLE ingest_owner;
CREATE FUNCTION app.tests_probe() RETURNS integer LANGUAGE sql AS 'SELECT 1';
RESET ROLE;
SELECT is(
    has_function_privilege('public', 'app.tests_probe()', 'EXECUTE'), false,
    'a function ingest_owner creates is not executable by PUBLIC by default');

-- Tables ---------------------------------------------------------------------------------------

SELECT is_empty(
    $$SELECT oid::regclass FROM pg_class
       WHERE relnamespace = 'app'::regnamespace AND relowner <> 'ingest_owner'::regrole$$,
    'every relation of app is owned by ingest_owner');
SELECT is_empty(
    $$SELECT c.oid::regclass, r.rolname
        FROM pg_class AS c
       CROSS JOIN (SELECT rolname FROM pg_roles
                    WHERE NOT rolsuper AND rolname <> 'ingest_owner' AND rolname !~ '^pg_'
                   UNION ALL SELECT 'public') AS r
       WHERE c.relnamespace = ANY (tests.project_schemas())
         AND CASE WHEN c.relkind = 'S'
                  THEN has_sequence_privilege(r.rolname, c.oid, 'USAGE, SELECT, UPDATE')
                  WHEN c.relkind IN ('r', 'p', 'v', 'm', 'f')
                  THEN has_table_privilege(r.rolname, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                       OR has_any_column_privilege(r.rolname, c.oid, 'SELECT, INSERT, UPDATE, REFERENCES')
                  ELSE false
              END$$,
    'no role but ingest_owner (and PUBLIC neither) has any privilege on any table, view or sequence');
SELECT isnt_empty(
    $$SELECT FROM pg_class WHERE relnamespace = 'app'::regnamespace AND relkind = 'r'$$,
    'schema app has tables (so the check above is not vacuous)');

-- The server secrets (the credential pepper) are out of reach of every API and console role.
SET LOCAL ROLE ingest_gateway;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'ingest_gateway cannot read app.server_secrets');
SET LOCAL ROLE authenticated;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'authenticated cannot read app.server_secrets');
SET LOCAL ROLE anon;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'anon cannot read app.server_secrets');
SET LOCAL ROLE authenticator;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'authenticator cannot read app.server_secrets');
SET LOCAL ROLE platform_service;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'platform_service cannot read app.server_secrets');
SET LOCAL ROLE webhook_worker;
SELECT throws_ok('SELECT * FROM app.server_secrets', '42501', 'permission denied for schema app',
                 'webhook_worker cannot read app.server_secrets');
-- Even with USAGE on app, no API role could read the table itself.
RESET ROLE;
SELECT is_empty(
    $$SELECT role FROM api_roles WHERE has_table_privilege(role, 'app.server_secrets', 'SELECT')$$,
    'no API role holds SELECT on app.server_secrets');

-- An API role calling an internal function directly is refused.
SET LOCAL ROLE ingest_gateway;
SELECT throws_ok($$SELECT * FROM app.authenticate('Bearer x.y', NULL, true)$$, '42501', 'permission denied for schema app',
                 'ingest_gateway cannot call app.authenticate directly');
SET LOCAL ROLE authenticated;
SELECT throws_ok($$SELECT * FROM api.ping('Bearer x.y')$$, '42501', 'permission denied for schema api',
                 'authenticated cannot call the gateway''s api.ping');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
