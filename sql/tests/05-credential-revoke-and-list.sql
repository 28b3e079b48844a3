-- console.api_credential_revoke and console.api_credential_list, called the PostgREST way by members
-- allowed to call them. Revocation is immediate and permanent; revoking twice returns the same row
-- with the ORIGINAL revoked_at; another operator's id or an unknown id returns no row. The list shows
-- the operator's credentials only, never a secret, with state active/revoked/expired.
-- The refusals (staff, non-members, …) are 04-credential-manager-check.sql.
BEGIN;
SELECT plan(34);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT a, b,
       tests.make_member(a, 'owner') AS owner,
       tests.make_member(a, 'manager') AS manager,
       tests.make_member(a, 'staff') AS staff,
       tests.make_member(b, 'owner') AS b_owner,
       tests.key_id(tests.issue_credential(a, ARRAY['read_supply'])) AS active_key,
       tests.issue_credential(a) AS revoke_bearer,
       tests.key_id(tests.issue_credential(a)) AS second_key,
       tests.key_id(tests.issue_credential(a, ARRAY['read_bookings'], 10)) AS expired_key,
       tests.key_id(tests.issue_credential(a, ARRAY['read_bookings'], 10)) AS expiring_now_key,
       tests.key_id(tests.issue_credential(b)) AS b_key
  FROM tests.make_operator('A') AS a, tests.make_operator('B') AS b;
ALTER TABLE fx ADD COLUMN revoke_key text;
UPDATE fx SET revoke_key = tests.key_id(revoke_bearer);
GRANT SELECT ON fx TO PUBLIC;
-- Credential ids by key id, for the calls below.
CREATE TEMP TABLE ids AS SELECT key_id, id FROM app.api_credentials;
GRANT SELECT ON ids TO PUBLIC;
CREATE FUNCTION pg_temp.id_of(p_key_id text) RETURNS uuid LANGUAGE sql
AS $$ SELECT id FROM ids WHERE key_id = p_key_id $$;
-- Expiry is reached by moving the clock of the stored row, as the superuser.
UPDATE app.api_credentials SET expires_at = now() - interval '1 second' WHERE key_id = (SELECT expired_key FROM fx);
UPDATE app.api_credentials SET expires_at = now() WHERE key_id = (SELECT expiring_now_key FROM fx);

-- Revoke -------------------------------------------------------------------------------------------

SELECT is(
    tests.result_columns('console.api_credential_revoke(uuid)'),
    ARRAY['credential_id', 'key_id', 'label', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at', 'state'],
    'revoke answers the list''s columns: no secret, salt or hash');

SELECT tests.act_as_console_user(owner, a) FROM fx;
CREATE TEMP TABLE first_revoke AS
SELECT * FROM console.api_credential_revoke(pg_temp.id_of((SELECT revoke_key FROM fx)));
SELECT tests.act_as_superuser();

SELECT is((SELECT count(*) FROM first_revoke), 1::bigint, 'an owner revoking their operator''s credential gets one row');
SELECT is((SELECT (credential_id, key_id)::text FROM first_revoke),
          (SELECT (id, key_id)::text FROM ids WHERE key_id = (SELECT revoke_key FROM fx)),
          'the row is the credential revoked');
SELECT is((SELECT state FROM first_revoke), 'revoked', 'its state is revoked');
SELECT is((SELECT revoked_at FROM first_revoke), now(), 'its revoked_at is the time of revocation');
SELECT is((SELECT (revoked_at, revoked_by)::text FROM app.api_credentials WHERE key_id = (SELECT revoke_key FROM fx)),
          (SELECT (now(), owner)::text FROM fx),
          'the stored credential records when and by whom it was revoked');

-- A later transaction revokes again: make the first revocation an hour old, as the superuser.
UPDATE app.api_credentials SET revoked_at = now() - interval '1 hour' WHERE key_id = (SELECT revoke_key FROM fx);
SELECT tests.act_as_console_user(manager, a) FROM fx;
CREATE TEMP TABLE second_revoke AS
SELECT * FROM console.api_credential_revoke(pg_temp.id_of((SELECT revoke_key FROM fx)));
SELECT tests.act_as_superuser();

SELECT is((SELECT count(*) FROM second_revoke), 1::bigint, 'revoking twice returns the row again');
SELECT is((SELECT revoked_at FROM second_revoke), now() - interval '1 hour',
          'revoking twice returns the ORIGINAL revoked_at');
SELECT is((SELECT (credential_id, key_id, state)::text FROM second_revoke),
          (SELECT (credential_id, key_id, state)::text FROM first_revoke),
          'revoking twice returns the same credential, still revoked');
SELECT is((SELECT (revoked_at, revoked_by)::text FROM app.api_credentials WHERE key_id = (SELECT revoke_key FROM fx)),
          (SELECT (now() - interval '1 hour', owner)::text FROM fx),
          'revoking twice changes nothing stored: not the time, not who revoked');

SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT is((SELECT state FROM console.api_credential_revoke(pg_temp.id_of((SELECT second_key FROM fx)))), 'revoked',
          'a manager can revoke');
SELECT is((SELECT state FROM console.api_credential_revoke(pg_temp.id_of((SELECT expired_key FROM fx)))), 'revoked',
          'an expired credential can be revoked, and then shows as revoked');
SELECT is_empty(format('SELECT * FROM console.api_credential_revoke(%L)', pg_temp.id_of((SELECT b_key FROM fx))),
                'revoking another operator''s credential returns no row');
SELECT is_empty(format('SELECT * FROM console.api_credential_revoke(%L)', gen_random_uuid()),
                'revoking an id that never existed returns no row');
SELECT tests.refuses('SELECT console.api_credential_revoke(NULL)', 'PT422', 'invalid_parameter', 'p_credential_id',
                     'revoking a null id is refused, naming p_credential_id');
SELECT tests.act_as_superuser();

SELECT is((SELECT revoked_at FROM app.api_credentials WHERE key_id = (SELECT b_key FROM fx)), NULL,
          'the other operator''s credential was not revoked');
SELECT is((SELECT (revoked_at, revoked_by)::text FROM app.api_credentials WHERE key_id = (SELECT second_key FROM fx)),
          (SELECT (now(), manager)::text FROM fx),
          'the manager''s revocation is recorded with the manager');
SELECT is((SELECT revoked_at FROM app.api_credentials WHERE key_id = (SELECT active_key FROM fx)), NULL,
          'revoking one credential leaves the others alone');

-- Revocation is immediate: the gateway refuses the credential in the same transaction.
SELECT tests.act_as_gateway();
SELECT tests.refuses(format('SELECT api.ping(%L)', (SELECT revoke_bearer FROM fx)),
                     'PT401', 'unauthorized', NULL, 'a revoked credential is refused by the gateway at once');
SELECT tests.act_as_superuser();

-- List -----------------------------------------------------------------------------------------------

SELECT is(
    tests.result_columns('console.api_credential_list()'),
    ARRAY['credential_id', 'key_id', 'label', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'revoked_at', 'state'],
    'list answers credential_id, key_id, label, scopes, created_at, expires_at, last_used_at, revoked_at, state: no secret, salt or hash');

-- The last use and an older creation time, set as the superuser, must show in the list.
UPDATE app.api_credentials SET last_used_at = now() - interval '5 minutes', created_at = now() - interval '1 day'
 WHERE key_id = (SELECT active_key FROM fx);
CREATE TEMP TABLE stored AS
SELECT c.id, c.key_id, c.label, c.scopes, c.created_at, c.expires_at, c.last_used_at, c.revoked_at,
       CASE WHEN c.revoked_at IS NOT NULL THEN 'revoked' WHEN c.expires_at <= now() THEN 'expired' ELSE 'active' END AS state
  FROM app.api_credentials AS c
 WHERE c.operator_id = (SELECT a FROM fx)
 ORDER BY c.created_at DESC, c.id;
GRANT SELECT ON stored TO PUBLIC;

SELECT tests.act_as_console_user(staff, a) FROM fx;
SELECT results_eq(
    'SELECT * FROM console.api_credential_list()',
    'SELECT * FROM stored',
    'a staff member lists every credential of their operator, newest first, as stored');
SELECT is(
    ARRAY(SELECT key_id FROM console.api_credential_list() WHERE key_id = (SELECT b_key FROM fx)), '{}'::text[],
    'the list holds no credential of another operator');
SELECT is((SELECT state FROM console.api_credential_list() WHERE key_id = (SELECT active_key FROM fx)), 'active',
          'a credential neither revoked nor expired is active');
SELECT is((SELECT state FROM console.api_credential_list() WHERE key_id = (SELECT revoke_key FROM fx)), 'revoked',
          'a revoked credential is revoked');
SELECT is((SELECT state FROM console.api_credential_list() WHERE key_id = (SELECT expiring_now_key FROM fx)), 'expired',
          'a credential whose expires_at is now is expired');
SELECT is((SELECT state FROM console.api_credential_list() WHERE key_id = (SELECT expired_key FROM fx)), 'revoked',
          'an expired credential that was revoked is revoked');
SELECT is((SELECT last_used_at FROM console.api_credential_list() WHERE key_id = (SELECT active_key FROM fx)),
          now() - interval '5 minutes', 'the list shows last_used_at');
SELECT is((SELECT key_id FROM console.api_credential_list() OFFSET 4), (SELECT active_key FROM fx),
          'the oldest credential comes last');

SELECT tests.act_as_console_user(owner, a) FROM fx;
SELECT results_eq('SELECT * FROM console.api_credential_list()', 'SELECT * FROM stored',
                  'an owner lists the same rows');
SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT results_eq('SELECT * FROM console.api_credential_list()', 'SELECT * FROM stored',
                  'a manager lists the same rows');

SELECT tests.act_as_console_user(b_owner, b) FROM fx;
SELECT results_eq(
    'SELECT key_id FROM console.api_credential_list()',
    'SELECT b_key FROM fx',
    'the other operator''s owner lists only that operator''s credential');

-- An expiring credential is active until its time.
SELECT tests.act_as_superuser();
UPDATE app.api_credentials SET expires_at = now() + interval '1 second' WHERE key_id = (SELECT expiring_now_key FROM fx);
SELECT tests.act_as_console_user(staff, a) FROM fx;
SELECT is((SELECT state FROM console.api_credential_list() WHERE key_id = (SELECT expiring_now_key FROM fx)), 'active',
          'a credential expiring a second from now is still active');
SELECT is((SELECT expires_at FROM console.api_credential_list() WHERE key_id = (SELECT expiring_now_key FROM fx)),
          now() + interval '1 second', 'the list shows expires_at');

-- The list reads, it never writes.
SELECT tests.act_as_superuser();
SELECT is((SELECT count(*) FROM app.api_credentials WHERE operator_id = (SELECT a FROM fx) AND revoked_at IS NULL), 2::bigint,
          'listing changed nothing: two of the five credentials are still unrevoked');

SELECT * FROM finish();
ROLLBACK;
