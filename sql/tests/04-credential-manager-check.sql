-- Who may manage credentials (spec: Credential management; docs/reference/sql-interfaces.md). Issue
-- and revoke refuse with PT403 api_credential_requires_manager, and list (any member) with PT403
-- forbidden, in every case: no or garbled x-tenant-id header, garbled or missing claims, not an
-- accepted member, staff (issue and revoke only), operator not active, two-step user whose token's
-- aal is not aal2. Each call is made the PostgREST way: role authenticated, request.jwt.claims,
-- request.headers.
BEGIN;
SELECT plan(77);

CREATE TEMP TABLE fx AS
SELECT o AS operator,
       other,
       suspended,
       tests.make_member(o, 'owner') AS owner,
       tests.make_member(o, 'manager') AS manager,
       tests.make_member(o, 'staff') AS staff,
       tests.make_member(o, 'owner', p_accepted => false) AS invited_owner,
       tests.make_member(o, 'manager', p_accepted => false) AS invited_manager,
       tests.make_member(o, 'owner', p_two_step => true) AS two_step_owner,
       tests.make_member(o, 'manager', p_two_step => true) AS two_step_manager,
       tests.make_user() AS outsider,
       tests.make_member(other, 'owner') AS other_owner,
       tests.make_member(suspended, 'owner') AS suspended_owner,
       tests.key_id(tests.issue_credential(o)) AS key_id
  FROM tests.make_operator('Managed') AS o,
       tests.make_operator('Other') AS other,
       tests.make_operator('Suspended') AS suspended;
ALTER TABLE fx ADD COLUMN credential uuid;
UPDATE fx SET credential = (SELECT id FROM app.api_credentials AS c WHERE c.key_id = fx.key_id);
GRANT SELECT ON fx TO PUBLIC;
SELECT platform.operator_set_status(suspended, 'suspended') FROM fx;

-- The three calls as whoever the test acts as: each refused, or (p_list_allowed) list answering.
CREATE FUNCTION pg_temp.refused(p_case text, p_list_allowed boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql
AS $$
BEGIN
    RETURN NEXT tests.refuses(
        $q$SELECT console.api_credential_issue('k', ARRAY['read_supply'])$q$,
        'PT403', 'api_credential_requires_manager', NULL, 'issue is refused ' || p_case);
    RETURN NEXT tests.refuses(
        format('SELECT console.api_credential_revoke(%L)', (SELECT credential FROM fx)),
        'PT403', 'api_credential_requires_manager', NULL, 'revoke is refused ' || p_case);
    IF p_list_allowed THEN
        RETURN NEXT lives_ok('SELECT console.api_credential_list()', 'list answers ' || p_case);
    ELSE
        RETURN NEXT tests.refuses(
            'SELECT console.api_credential_list()', 'PT403', 'forbidden', NULL, 'list is refused ' || p_case);
    END IF;
END
$$;

-- The x-tenant-id header ---------------------------------------------------------------------------

SELECT tests.act_as_console_user(owner, NULL) FROM fx;
SELECT * FROM pg_temp.refused('for an owner without an x-tenant-id header');

SELECT tests.act_as_console_raw(
    json_build_object('sub', owner, 'role', 'authenticated')::text, '{"x-tenant-id": "not-a-uuid"}') FROM fx;
SELECT * FROM pg_temp.refused('for an owner whose x-tenant-id is not a uuid');

SELECT tests.act_as_console_raw(
    json_build_object('sub', owner, 'role', 'authenticated')::text,
    json_build_object('x-tenant-id', operator::text || ' ')::text) FROM fx;
SELECT * FROM pg_temp.refused('for an owner whose x-tenant-id has a trailing space');

SELECT tests.act_as_console_raw(
    json_build_object('sub', owner, 'role', 'authenticated')::text,
    json_build_object('x-tenant-id', json_build_array(operator))::text) FROM fx;
SELECT * FROM pg_temp.refused('for an owner whose x-tenant-id is a JSON array');

SELECT tests.act_as_console_raw(json_build_object('sub', owner, 'role', 'authenticated')::text, NULL) FROM fx;
SELECT * FROM pg_temp.refused('for an owner when request.headers is absent');

SELECT tests.act_as_console_raw(json_build_object('sub', owner, 'role', 'authenticated')::text, 'x-tenant-id: garbled') FROM fx;
SELECT * FROM pg_temp.refused('for an owner when request.headers is not JSON');

SELECT tests.act_as_console_raw(json_build_object('sub', owner, 'role', 'authenticated')::text,
                                json_build_array(json_build_object('x-tenant-id', operator))::text) FROM fx;
SELECT * FROM pg_temp.refused('for an owner when request.headers is a JSON array, not an object');

SELECT tests.act_as_console_user(owner, gen_random_uuid()) FROM fx;
SELECT * FROM pg_temp.refused('for an owner whose x-tenant-id names no operator');

SELECT tests.act_as_console_user(owner, other) FROM fx;
SELECT * FROM pg_temp.refused('for an owner whose x-tenant-id names an operator they are not a member of');

-- The JWT claims -----------------------------------------------------------------------------------

SELECT tests.act_as_console_raw(NULL, json_build_object('x-tenant-id', operator)::text) FROM fx;
SELECT * FROM pg_temp.refused('when request.jwt.claims is absent');

SELECT tests.act_as_console_raw('{"sub": garbled', json_build_object('x-tenant-id', operator)::text) FROM fx;
SELECT * FROM pg_temp.refused('when request.jwt.claims is not JSON');

SELECT tests.act_as_console_raw('{"role": "authenticated", "aal": "aal2"}', json_build_object('x-tenant-id', operator)::text) FROM fx;
SELECT * FROM pg_temp.refused('when the claims have no sub');

SELECT tests.act_as_console_raw('{"sub": "owner", "role": "authenticated"}', json_build_object('x-tenant-id', operator)::text) FROM fx;
SELECT * FROM pg_temp.refused('when sub is not a uuid');

SELECT tests.act_as_console_user(gen_random_uuid(), operator) FROM fx;
SELECT * FROM pg_temp.refused('when sub names no user');

-- Membership -----------------------------------------------------------------------------------------

SELECT tests.act_as_console_user(outsider, operator) FROM fx;
SELECT * FROM pg_temp.refused('for a user who is not a member of the operator');

SELECT tests.act_as_console_user(invited_owner, operator) FROM fx;
SELECT * FROM pg_temp.refused('for an owner who has not accepted the membership');

SELECT tests.act_as_console_user(invited_manager, operator) FROM fx;
SELECT * FROM pg_temp.refused('for a manager who has not accepted the membership');

SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT * FROM pg_temp.refused('for a staff login', p_list_allowed => true);

SELECT tests.act_as_console_user(suspended_owner, suspended) FROM fx;
SELECT * FROM pg_temp.refused('for an owner of a suspended operator');

-- Two-step sign-in -----------------------------------------------------------------------------------

SELECT tests.act_as_console_user(two_step_owner, operator, 'aal1') FROM fx;
SELECT * FROM pg_temp.refused('for a two-step owner whose token has aal1');

SELECT tests.act_as_console_user(two_step_owner, operator, NULL) FROM fx;
SELECT * FROM pg_temp.refused('for a two-step owner whose token has no aal');

SELECT tests.act_as_console_user(two_step_owner, operator, 'AAL2') FROM fx;
SELECT * FROM pg_temp.refused('for a two-step owner whose token has aal AAL2 (not aal2)');

SELECT tests.act_as_console_user(two_step_manager, operator, 'aal1') FROM fx;
SELECT * FROM pg_temp.refused('for a two-step manager whose token has aal1');

SELECT tests.act_as_console_user(two_step_owner, operator, 'aal2') FROM fx;
SELECT lives_ok($$SELECT console.api_credential_issue('k', ARRAY['read_supply'])$$,
                'a two-step owner whose token has aal2 can issue');
SELECT lives_ok($$SELECT console.api_credential_list()$$, 'a two-step owner whose token has aal2 can list');
SELECT tests.act_as_console_user(two_step_manager, operator, 'aal2') FROM fx;
SELECT lives_ok($$SELECT console.api_credential_issue('k', ARRAY['read_supply'])$$,
                'a two-step manager whose token has aal2 can issue');
SELECT tests.act_as_console_user(owner, operator, NULL) FROM fx;
SELECT lives_ok($$SELECT console.api_credential_issue('k', ARRAY['read_supply'])$$,
                'an owner without two-step sign-in needs no aal claim');

-- Refusal comes first ----------------------------------------------------------------------------------

SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT tests.refuses($$SELECT console.api_credential_issue(NULL, NULL, 0)$$,
                     'PT403', 'api_credential_requires_manager', NULL,
                     'a staff login with bad parameters is told it is not a manager, nothing about the parameters');
SELECT tests.refuses($$SELECT console.api_credential_revoke(NULL)$$,
                     'PT403', 'api_credential_requires_manager', NULL,
                     'a staff login revoking a null id is told it is not a manager');

-- Nothing was changed by a refused call -----------------------------------------------------------------

SELECT tests.act_as_superuser();
SELECT is((SELECT revoked_at FROM app.api_credentials WHERE id = (SELECT credential FROM fx)), NULL,
          'the credential every refused revoke named is still not revoked');
SELECT is((SELECT count(*) FROM app.api_credentials WHERE operator_id = (SELECT operator FROM fx)), 4::bigint,
          'only the fixture''s credential and the three allowed issues exist');

SELECT * FROM finish();
ROLLBACK;
