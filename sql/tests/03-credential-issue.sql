-- console.api_credential_issue, called the PostgREST way: what an owner or manager gets back, what
-- is stored (never the secret), and every parameter refusal (PT422 invalid_parameter, DETAIL the
-- parameter). Who may call it is 04-credential-manager-check.sql.
BEGIN;
SELECT plan(48);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, tests.make_member(o, 'owner') AS owner, tests.make_member(o, 'manager') AS manager
  FROM tests.make_operator() AS o;
GRANT SELECT ON fx TO PUBLIC;

-- The answer ---------------------------------------------------------------------------------------

SELECT is(
    tests.result_columns('console.api_credential_issue(text, text[], integer)'),
    ARRAY['credential_id', 'key_id', 'secret', 'label', 'scopes', 'created_at', 'expires_at'],
    'the answer''s columns are credential_id, key_id, secret, label, scopes, created_at, expires_at');

SELECT tests.act_as_console_user(owner, operator) FROM fx;
CREATE TEMP TABLE issued AS
SELECT 'owner' AS who, * FROM console.api_credential_issue('Booking sync', ARRAY['read_bookings', 'read_supply'], 30);
SELECT tests.act_as_console_user(manager, operator) FROM fx;
INSERT INTO issued
SELECT 'manager', * FROM console.api_credential_issue('Supply push', ARRAY['write_supply']);
SELECT tests.act_as_superuser();

SELECT is((SELECT count(*) FROM issued WHERE who = 'owner'), 1::bigint,
          'an owner can issue a credential, and gets one row');
SELECT is((SELECT count(*) FROM issued WHERE who = 'manager'), 1::bigint,
          'a manager can issue a credential, and gets one row');
SELECT is_empty($$SELECT key_id FROM issued WHERE key_id !~ '^pk_api_[0-9a-f]{32}$'$$,
                'key_id is pk_api_ followed by 32 lower-case hex characters');
SELECT is_empty($$SELECT secret FROM issued WHERE secret !~ '^pk_sec_[0-9a-f]{64}$'$$,
                'secret is pk_sec_ followed by 64 lower-case hex characters');
SELECT is((SELECT label FROM issued WHERE who = 'owner'), 'Booking sync', 'the answer carries the label');
SELECT is((SELECT scopes FROM issued WHERE who = 'owner'), ARRAY['read_supply', 'read_bookings'],
          'the answer carries the scopes, in the enumeration''s order whatever order they were sent in');
SELECT is((SELECT created_at FROM issued WHERE who = 'owner'), now(), 'created_at is the server''s time of issue');
SELECT is((SELECT expires_at FROM issued WHERE who = 'owner'),
          (SELECT created_at + interval '30 days' FROM issued WHERE who = 'owner'),
          'expires_at is created_at plus the day count, by the server clock');
SELECT is((SELECT expires_at FROM issued WHERE who = 'manager'), NULL,
          'expires_at is null when no day count is given (no expiry)');
SELECT isnt((SELECT key_id FROM issued WHERE who = 'owner'), (SELECT key_id FROM issued WHERE who = 'manager'),
            'two issues give different key ids');
SELECT isnt((SELECT secret FROM issued WHERE who = 'owner'), (SELECT secret FROM issued WHERE who = 'manager'),
            'two issues give different secrets');

-- What is stored -----------------------------------------------------------------------------------

SELECT results_eq(
    $$SELECT c.operator_id, c.key_id, c.label, c.scopes, c.created_by, c.created_at, c.expires_at,
             c.last_used_at, c.revoked_at, c.revoked_by
        FROM app.api_credentials AS c JOIN issued AS i ON i.credential_id = c.id
       WHERE i.who = 'owner'$$,
    $$SELECT f.operator, i.key_id, i.label, ARRAY['read_supply', 'read_bookings'], f.owner, now(),
             now() + interval '30 days', NULL::timestamptz, NULL::timestamptz, NULL::uuid
        FROM issued AS i, fx AS f
       WHERE i.who = 'owner'$$,
    'the stored credential is the operator''s, made by the caller, unused and not revoked');
SELECT is_empty(
    (SELECT string_agg(format(
                $$SELECT %1$L::text AS tbl FROM %1$s AS r, issued AS i
                   WHERE strpos(r::text, substr(i.secret, 8)) > 0
                      OR strpos(r::text, encode(convert_to(i.secret, 'UTF8'), 'hex')) > 0
                      OR strpos(r::text, encode(convert_to(i.secret, 'UTF8'), 'base64')) > 0$$, c.oid::regclass),
            ' UNION ALL ')
       FROM pg_class AS c WHERE c.relnamespace = 'app'::regnamespace AND c.relkind IN ('r', 'p')),
    'the secret is stored nowhere: no row of any app table holds it, its hex part or its bytes');
SELECT is_empty(
    $$SELECT c.key_id
        FROM app.api_credentials AS c JOIN issued AS i ON i.credential_id = c.id
       WHERE c.secret_hash IN (extensions.digest(i.secret, 'sha256'),
                               extensions.digest(substr(i.secret, 8), 'sha256'),
                               extensions.digest(c.secret_salt || convert_to(i.secret, 'UTF8'), 'sha256'))$$,
    'the stored hash is not a plain (or merely salted) sha256 of the secret');
SELECT is_empty(
    $$SELECT c.key_id
        FROM app.api_credentials AS c JOIN issued AS i ON i.credential_id = c.id
       WHERE c.secret_hash IS DISTINCT FROM extensions.hmac(
                 c.secret_salt || convert_to(i.secret, 'UTF8'),
                 (SELECT value FROM app.server_secrets WHERE name = 'credential_pepper'),
                 'sha256')$$,
    'the stored hash is HMAC-SHA256 keyed with the server pepper over salt || secret');
SELECT is(
    (SELECT count(DISTINCT c.secret_salt) FROM app.api_credentials AS c JOIN issued AS i ON i.credential_id = c.id),
    2::bigint,
    'every credential has its own salt');
SELECT is(
    (SELECT scopes FROM app.api_credentials WHERE label = 'Supply push'), ARRAY['write_supply'],
    'a single scope is stored as sent');

-- Accepted boundaries ------------------------------------------------------------------------------

SELECT tests.act_as_console_user(owner, operator) FROM fx;
SELECT lives_ok($$SELECT console.api_credential_issue(repeat('x', 80), ARRAY['read_supply'])$$,
                'a label of 80 characters is accepted');
SELECT lives_ok($$SELECT console.api_credential_issue(repeat('é', 80), ARRAY['read_supply'])$$,
                'a label of 80 two-byte characters is accepted (characters, not bytes)');
SELECT lives_ok($$SELECT console.api_credential_issue('x', ARRAY['read_supply'])$$,
                'a label of 1 character is accepted');
SELECT is((SELECT expires_at - created_at FROM console.api_credential_issue('one day', ARRAY['read_supply'], 1)),
          interval '1 day', 'an expiry of 1 day is accepted');
SELECT is((SELECT expires_at - created_at FROM console.api_credential_issue('ten years', ARRAY['read_supply'], 3650)),
          interval '3650 days', 'an expiry of 3650 days is accepted');
SELECT is((SELECT expires_at FROM console.api_credential_issue('no expiry', ARRAY['read_supply'], NULL)), NULL,
          'an explicit null expiry is accepted and means no expiry');
SELECT is((SELECT scopes FROM console.api_credential_issue('all', ARRAY['read_bookings', 'write_supply', 'read_supply'])),
          ARRAY['read_supply', 'write_supply', 'read_bookings'],
          'all three scopes are accepted and returned in the enumeration''s order');

-- Parameter refusals -------------------------------------------------------------------------------

SELECT tests.refuses($$SELECT console.api_credential_issue(NULL, ARRAY['read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_label', 'a null label is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('', ARRAY['read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_label', 'an empty label is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('   ', ARRAY['read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_label', 'a blank label is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue(repeat('x', 81), ARRAY['read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_label', 'a label of 81 characters is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', NULL)$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'null scopes are refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY[]::text[])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'an empty scope list is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['write_bookings'])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'an unknown scope is refused (there is no booking-write scope)');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply', 'admin'])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'a known scope beside an unknown one is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['READ_SUPPLY'])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'scope names are case-sensitive');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply', 'read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'a duplicated scope is refused (a set of distinct scopes)');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply', NULL])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'a scope list containing null is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY[NULL]::text[])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'a scope list of only null is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY[ARRAY['read_supply'], ARRAY['write_supply']])$$,
                     'PT422', 'invalid_parameter', 'p_scopes', 'a two-dimensional scope array is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply'], 0)$$,
                     'PT422', 'invalid_parameter', 'p_expires_in_days', 'an expiry of 0 days is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply'], -1)$$,
                     'PT422', 'invalid_parameter', 'p_expires_in_days', 'a negative expiry is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply'], 3651)$$,
                     'PT422', 'invalid_parameter', 'p_expires_in_days', 'an expiry of 3651 days is refused');
SELECT tests.refuses($$SELECT console.api_credential_issue('k', ARRAY['read_supply'], 2147483647)$$,
                     'PT422', 'invalid_parameter', 'p_expires_in_days', 'the largest integer expiry is refused, not an overflow');
SELECT is(tests.error_detail($$SELECT console.api_credential_issue('', ARRAY['admin'], 0)$$), 'p_label',
          'with several bad parameters the first one (p_label) is named');
SELECT tests.act_as_superuser();

SELECT is((SELECT count(*) FROM app.api_credentials WHERE operator_id = (SELECT operator FROM fx)), 9::bigint,
          'a refused issue stores nothing: only the nine accepted credentials exist');

-- The console's JSON reaches the same checks --------------------------------------------------------
-- PostgREST passes a JSON array for p_scopes; it arrives as text[] whatever JSON strings it holds.

SELECT tests.act_as_console_user(owner, operator) FROM fx;
SELECT tests.refuses(
    $$SELECT console.api_credential_issue('k', ARRAY(SELECT jsonb_array_elements_text('["read_supply", ""]')))$$,
    'PT422', 'invalid_parameter', 'p_scopes', 'an empty-string scope is refused');
SELECT tests.refuses(
    $$SELECT console.api_credential_issue('k', ARRAY(SELECT jsonb_array_elements_text('[" read_supply"]')))$$,
    'PT422', 'invalid_parameter', 'p_scopes', 'a scope with surrounding whitespace is refused, not trimmed');
SELECT tests.refuses($$SELECT console.api_credential_issue(E'\t\n', ARRAY['read_supply'])$$,
                     'PT422', 'invalid_parameter', 'p_label', 'a label of only tab and newline is refused as blank');

-- Some of these day counts cross a daylight-saving change in the session's zone: a day is still 24 hours.
SET LOCAL TIME ZONE 'America/New_York';
SELECT is_empty(
    $$SELECT n FROM generate_series(30, 390, 30) AS n
       CROSS JOIN LATERAL console.api_credential_issue('dst ' || n, ARRAY['read_supply'], n) AS c
       WHERE extract(epoch FROM c.expires_at) - extract(epoch FROM c.created_at) <> n * 86400$$,
    'a day count is whole days of 24 hours on the server clock, whatever the session time zone');
SET LOCAL TIME ZONE 'UTC';
SELECT tests.act_as_superuser();

SELECT * FROM finish();
ROLLBACK;
