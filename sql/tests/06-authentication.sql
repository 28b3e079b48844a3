-- Authentication (spec: Authentication; docs/integrating.md, credentials): `Authorization: Bearer
-- <key_id>.<secret>`, split at the first dot, scheme case-insensitive. Every failure is the same
-- PT401 unauthorized without DETAIL: no or unparseable header, unknown key id, wrong secret, revoked,
-- expired, operator suspended, missing scope. GET /ping (api.ping, as the gateway's role) answers
-- ok, key_id, scopes, server_time and leaves no operator context behind.
BEGIN;
SELECT plan(73);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT a, s,
       tests.issue_credential(a) AS full_bearer,
       tests.issue_credential(a, ARRAY['read_supply']) AS read_bearer,
       tests.issue_credential(a) AS revoked_bearer,
       tests.issue_credential(a, p_expires_in_days => 1) AS expired_bearer,
       tests.issue_credential(a, p_expires_in_days => 1) AS expiring_bearer,
       tests.issue_credential(a) AS usage_bearer,
       tests.issue_credential(s) AS suspended_bearer
  FROM tests.make_operator('A') AS a, tests.make_operator('Suspended') AS s;
-- A credential with a secret containing dots, and one whose header is exactly 1024 and 1025 bytes
-- long: issue never makes such secrets, so they are written directly, as the superuser.
ALTER TABLE fx ADD dotted_bearer text, ADD long_bearer text, ADD too_long_bearer text;
UPDATE fx SET dotted_bearer = 'Bearer pk_api_' || md5('dotted') || '.pk_sec_one.two.three',
              long_bearer = 'Bearer pk_api_' || md5('long') || '.pk_sec_' || repeat('a', 1024 - 54),
              too_long_bearer = 'Bearer pk_api_' || md5('too long') || '.pk_sec_' || repeat('a', 1025 - 54);
INSERT INTO app.api_credentials (operator_id, key_id, secret_salt, secret_hash, label, scopes)
SELECT a, tests.key_id(b), salt, app.credential_secret_hash(salt, substr(b, length(tests.key_id(b)) + 9)),
       'crafted', ARRAY['read_supply']
  FROM fx, LATERAL (VALUES (dotted_bearer), (long_bearer), (too_long_bearer)) AS v(b),
       LATERAL (SELECT '\x00112233445566778899aabbccddeeff'::bytea AS salt) AS x;
GRANT SELECT ON fx TO PUBLIC;

UPDATE app.api_credentials SET revoked_at = now() - interval '1 day'
 WHERE key_id = (SELECT tests.key_id(revoked_bearer) FROM fx);
UPDATE app.api_credentials SET expires_at = now() - interval '1 second'
 WHERE key_id = (SELECT tests.key_id(expired_bearer) FROM fx);
SELECT platform.operator_set_status(s, 'suspended') FROM fx;

-- The fixture is sound: the crafted credentials hold what the headers carry.
SELECT is(length((SELECT long_bearer FROM fx)), 1024, 'the long header is 1024 bytes');

-- GET /ping as the gateway ---------------------------------------------------------------------------

SELECT tests.act_as_gateway();
CREATE TEMP TABLE pinged AS SELECT * FROM api.ping((SELECT full_bearer FROM fx));

SELECT is((SELECT status FROM pinged), 200, 'ping with a valid credential answers 200');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM pinged),
          ARRAY['key_id', 'ok', 'scopes', 'server_time'],
          'the ping body has exactly the keys ok, key_id, scopes, server_time');
SELECT is((SELECT body -> 'ok' FROM pinged), 'true'::jsonb, 'ok is the constant true');
SELECT is((SELECT body ->> 'key_id' FROM pinged), (SELECT tests.key_id(full_bearer) FROM fx), 'key_id is the credential''s');
SELECT is((SELECT body -> 'scopes' FROM pinged), '["read_supply", "write_supply", "read_bookings"]'::jsonb,
          'scopes are the credential''s, in the enumeration''s order');
SELECT matches((SELECT body ->> 'server_time' FROM pinged), '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$',
               'server_time is a UTC date-time YYYY-MM-DDTHH:MM:SS.ffffffZ');
SELECT is((SELECT (body ->> 'server_time')::timestamptz FROM pinged), now(), 'server_time is the server''s time');
SELECT is(coalesce(current_setting('app.operator_id', true), ''), '', 'after ping no operator context remains');
SELECT is(coalesce(current_setting('app.authenticating_key_id', true), ''), '',
          'after ping no key id is left readable for authentication');

SET LOCAL TimeZone = 'America/New_York';
SELECT is((SELECT (body ->> 'server_time')::timestamptz FROM api.ping((SELECT full_bearer FROM fx))), now(),
          'server_time is UTC whatever the session''s time zone');
SELECT matches((SELECT body ->> 'server_time' FROM api.ping((SELECT full_bearer FROM fx))), 'Z$',
               'server_time ends in Z whatever the session''s time zone');
RESET TimeZone;

SELECT is((SELECT body -> 'scopes' FROM api.ping((SELECT read_bearer FROM fx))), '["read_supply"]'::jsonb,
          'ping accepts a credential with any one scope and lists just it');
SELECT is((SELECT status FROM api.ping(replace((SELECT full_bearer FROM fx), 'Bearer ', 'bearer '))), 200,
          'the scheme is case-insensitive: bearer');
SELECT is((SELECT status FROM api.ping(replace((SELECT full_bearer FROM fx), 'Bearer ', 'BEARER '))), 200,
          'the scheme is case-insensitive: BEARER');
SELECT is((SELECT status FROM api.ping(replace((SELECT full_bearer FROM fx), 'Bearer ', 'Bearer   '))), 200,
          'several spaces may follow the scheme');
SELECT is((SELECT body ->> 'key_id' FROM api.ping((SELECT dotted_bearer FROM fx))), 'pk_api_' || md5('dotted'),
          'the first dot splits: a secret containing dots is accepted');
SELECT is((SELECT status FROM api.ping((SELECT long_bearer FROM fx))), 200,
          'an Authorization value of 1024 bytes is read');
SELECT is((SELECT status FROM api.ping((SELECT expiring_bearer FROM fx))), 200,
          'a credential not yet at its expiry passes');

-- Every failure is the one uniform 401 ------------------------------------------------------------------

CREATE FUNCTION pg_temp.ping_refused(p_authorization text, p_case text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT api.ping(%L)', p_authorization), 'PT401', 'unauthorized', NULL,
                         'ping answers the uniform 401: ' || p_case);
$$;

SELECT pg_temp.ping_refused(NULL, 'no Authorization header');
SELECT pg_temp.ping_refused('', 'an empty header');
SELECT pg_temp.ping_refused('Bearer', 'the scheme alone');
SELECT pg_temp.ping_refused('Bearer ', 'the scheme and a space');
SELECT pg_temp.ping_refused(replace(full_bearer, '.', ''), 'no dot between key id and secret') FROM fx;
SELECT pg_temp.ping_refused(split_part(full_bearer, '.', 1), 'the key id alone') FROM fx;
SELECT pg_temp.ping_refused(split_part(full_bearer, '.', 1) || '.', 'an empty secret') FROM fx;
SELECT pg_temp.ping_refused('Bearer .' || split_part(full_bearer, '.', 2), 'an empty key id') FROM fx;
SELECT pg_temp.ping_refused('Bearer   .' || split_part(full_bearer, '.', 2), 'spaces alone before the dot') FROM fx;
SELECT pg_temp.ping_refused(replace(full_bearer, 'Bearer ', 'Bearer ' || E'\n'), 'a line break before the key id') FROM fx;
SELECT pg_temp.ping_refused(replace(full_bearer, 'Bearer ', 'Beärer '), 'a letter outside ASCII in the scheme') FROM fx;
SELECT pg_temp.ping_refused(replace(full_bearer, 'Bearer ', 'Basic '), 'the Basic scheme') FROM fx;
SELECT pg_temp.ping_refused(replace(full_bearer, 'Bearer ', ''), 'no scheme') FROM fx;
SELECT pg_temp.ping_refused(replace(full_bearer, 'Bearer ', E'Bearer\t'), 'a tab after the scheme') FROM fx;
SELECT pg_temp.ping_refused('Bearer pk_api_00000000000000000000000000000000.' || split_part(full_bearer, '.', 2),
                            'an unknown key id') FROM fx;
SELECT pg_temp.ping_refused(split_part(full_bearer, '.', 1) || '.pk_sec_' || repeat('0', 64), 'a wrong secret') FROM fx;
SELECT pg_temp.ping_refused(full_bearer || 'x', 'the secret with an extra character') FROM fx;
SELECT pg_temp.ping_refused(left(full_bearer, -1), 'the secret without its last character') FROM fx;
SELECT pg_temp.ping_refused(split_part(full_bearer, '.', 1) || '.' || upper(split_part(full_bearer, '.', 2)),
                            'the secret in upper case') FROM fx;
SELECT pg_temp.ping_refused(full_bearer || '.x', 'the secret followed by a dot and more') FROM fx;
SELECT pg_temp.ping_refused(split_part(read_bearer, '.', 1) || '.' || split_part(full_bearer, '.', 2),
                            'the key id of another credential with this secret') FROM fx;
SELECT pg_temp.ping_refused(revoked_bearer, 'a revoked credential') FROM fx;
SELECT pg_temp.ping_refused(expired_bearer, 'an expired credential') FROM fx;
SELECT pg_temp.ping_refused(suspended_bearer, 'a credential of a suspended operator') FROM fx;
SELECT pg_temp.ping_refused(too_long_bearer, 'an Authorization value over 1024 bytes') FROM fx;
SELECT tests.act_as_superuser();

UPDATE app.api_credentials SET expires_at = now() WHERE key_id = (SELECT tests.key_id(expiring_bearer) FROM fx);
SELECT tests.act_as_gateway();
SELECT pg_temp.ping_refused(expiring_bearer, 'a credential whose expiry is now') FROM fx;
SELECT tests.act_as_superuser();

SELECT platform.operator_set_status(s, 'active') FROM fx;
SELECT tests.act_as_gateway();
SELECT is((SELECT status FROM api.ping((SELECT suspended_bearer FROM fx))), 200,
          'a credential of a suspended operator passes again once the operator is active');
SELECT tests.act_as_superuser();

-- app.authenticate, as the owner role every API function runs as ---------------------------------------

SET LOCAL ROLE ingest_owner;
SELECT is((SELECT key_id FROM app.authenticate((SELECT dotted_bearer FROM fx), NULL, false)), 'pk_api_' || md5('dotted'),
          'app.authenticate splits at the first dot: key id before it, the rest (dots included) is the secret');
SELECT tests.refuses(format('SELECT app.authenticate(%L, %L, false)', (SELECT read_bearer FROM fx), 'write_supply'),
                     'PT401', 'unauthorized', NULL, 'a credential without the scope asked for is the uniform 401');
SELECT tests.refuses(format('SELECT app.authenticate(%L, %L, false)', (SELECT read_bearer FROM fx), 'read_bookings'),
                     'PT401', 'unauthorized', NULL, 'read_supply does not admit read_bookings');
SELECT tests.refuses(format('SELECT app.authenticate(%L, %L, false)', (SELECT full_bearer FROM fx), 'admin'),
                     'PT401', 'unauthorized', NULL, 'an unknown scope admits no credential');
SELECT tests.refuses(format('SELECT app.authenticate(%L, %L, false)', (SELECT revoked_bearer FROM fx), 'read_supply'),
                     'PT401', 'unauthorized', NULL, 'a revoked credential is refused whatever the scope');
SELECT is((SELECT key_id FROM app.authenticate((SELECT read_bearer FROM fx), 'read_supply', false)),
          (SELECT tests.key_id(read_bearer) FROM fx), 'a credential with the scope asked for passes');
SELECT is((SELECT scopes FROM app.authenticate((SELECT full_bearer FROM fx), 'write_supply', false)),
          ARRAY['read_supply', 'write_supply', 'read_bookings'], 'a credential holding every scope passes for write_supply');
SELECT is(current_setting('app.operator_id'), '', 'without p_enter_operator no operator context is left');

SELECT results_eq(
    $$SELECT credential_id, operator_id, key_id, scopes FROM app.authenticate((SELECT read_bearer FROM fx), 'read_supply', true)$$,
    $$SELECT c.id, c.operator_id, c.key_id, c.scopes FROM app.api_credentials AS c, fx
       WHERE c.key_id = tests.key_id(fx.read_bearer)$$,
    'app.authenticate answers the credential''s id, operator, key id and scopes');
SELECT is(current_setting('app.operator_id'), (SELECT a::text FROM fx),
          'with p_enter_operator the operator context stays set for the transaction');
SELECT is(current_setting('app.authenticating_key_id'), '', 'no key id is left readable after authentication');
SELECT is((SELECT count(*) FROM app.api_credentials), 9::bigint,
          'in the context entered, the operator''s own rows are visible (nine credentials of A)');
RESET ROLE;

-- last_used_at: on first use, then at most once a minute ------------------------------------------------

SELECT tests.act_as_superuser();
CREATE FUNCTION pg_temp.last_used() RETURNS timestamptz LANGUAGE sql
AS $$ SELECT last_used_at FROM app.api_credentials WHERE key_id = (SELECT tests.key_id(usage_bearer) FROM fx) $$;
CREATE FUNCTION pg_temp.set_last_used(p_at timestamptz) RETURNS void LANGUAGE sql
AS $$ UPDATE app.api_credentials SET last_used_at = p_at WHERE key_id = (SELECT tests.key_id(usage_bearer) FROM fx) $$;
CREATE FUNCTION pg_temp.ping_usage() RETURNS integer LANGUAGE plpgsql
AS $$
DECLARE
    v_status integer;
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT status INTO v_status FROM api.ping((SELECT usage_bearer FROM fx));
    PERFORM tests.act_as_superuser();
    RETURN v_status;
END
$$;

SELECT is(pg_temp.last_used(), NULL, 'a new credential has no last_used_at');
SELECT tests.act_as_gateway();
SELECT tests.refuses(format('SELECT api.ping(%L)', (SELECT left(usage_bearer, -1) FROM fx)), 'PT401', 'unauthorized', NULL,
                     'a wrong secret for the usage credential is refused');
SELECT tests.act_as_superuser();
SELECT is(pg_temp.last_used(), NULL, 'a refused request records no use');
SELECT is(pg_temp.ping_usage(), 200, 'the first use answers 200');
SELECT is(pg_temp.last_used(), now(), 'the first use is recorded');

SELECT pg_temp.set_last_used(now() - interval '30 seconds');
SELECT is(pg_temp.ping_usage(), 200, 'a use 30 seconds later answers 200');
SELECT is(pg_temp.last_used(), now() - interval '30 seconds', 'a use within a minute of the recorded one is not rewritten');

SELECT pg_temp.set_last_used(now() - interval '59.999999 seconds');
SELECT is(pg_temp.ping_usage(), 200, 'a use just under a minute later answers 200');
SELECT is(pg_temp.last_used(), now() - interval '59.999999 seconds', 'a use just under a minute later is not rewritten');

SELECT pg_temp.set_last_used(now() - interval '1 minute');
SELECT is(pg_temp.ping_usage(), 200, 'a use a minute later answers 200');
SELECT is(pg_temp.last_used(), now(), 'a use a full minute after the recorded one is recorded');

SELECT pg_temp.set_last_used(now() - interval '2 hours');
SELECT is(pg_temp.ping_usage(), 200, 'a use hours later answers 200');
SELECT is(pg_temp.last_used(), now(), 'a use hours after the recorded one is recorded');

-- The constant-time compare -----------------------------------------------------------------------------

SELECT is_empty(
    $$SELECT x, y, expected, app.constant_time_equals(x, y)
        FROM (VALUES ('\x'::bytea, '\x'::bytea, true),
                     ('\x01', '\x01', true),
                     (sha256('a'), sha256('a'), true),
                     ('\x0102', '\x0103', false),
                     ('\x0102', '\x0202', false),
                     (sha256('a'), sha256('b'), false),
                     ('\x01', '\x0100', false),
                     ('\x0100', '\x01', false),
                     ('\x', '\x00', false),
                     ('\x00', '\x', false),
                     ('\x0000', '\x00', false)) AS t(x, y, expected)
       WHERE app.constant_time_equals(x, y) IS DISTINCT FROM expected$$,
    'constant_time_equals: equal strings are equal; a difference at the first or last byte, or in length, is not');
SELECT is(app.constant_time_equals(NULL, '\x01'), NULL, 'constant_time_equals of NULL is NULL (strict)');

SELECT * FROM finish();
ROLLBACK;
