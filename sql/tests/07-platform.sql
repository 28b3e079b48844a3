-- The platform schema (docs/reference/sql-interfaces.md), called as role platform_service:
-- operator_create, operator_set_status, user_upsert, member_set. Every refusal is PT422
-- invalid_parameter naming the parameter, except a media folder already taken: PT409 conflict,
-- p_media_folder.
BEGIN;
SELECT plan(64);
SELECT tests.lend_temporary_to_project_roles();

-- Results are read back as the superuser: platform_service cannot read a table.
CREATE FUNCTION pg_temp.operator(p_id uuid) RETURNS app.operators LANGUAGE sql
AS $$ SELECT * FROM app.operators WHERE id = p_id $$;
CREATE FUNCTION pg_temp.app_user(p_id uuid) RETURNS app.users LANGUAGE sql
AS $$ SELECT * FROM app.users WHERE id = p_id $$;
CREATE FUNCTION pg_temp.membership(p_operator uuid, p_user uuid) RETURNS app.memberships LANGUAGE sql
AS $$ SELECT * FROM app.memberships WHERE operator_id = p_operator AND user_id = p_user $$;

-- operator_create ------------------------------------------------------------------------------------

SET LOCAL ROLE platform_service;
CREATE TEMP TABLE made AS
SELECT platform.operator_create('Harbour Parking', ' eur ') AS plain,
       platform.operator_create('Airport Parks', 'gbp', 'airport-parks_01') AS foldered;
RESET ROLE;

SELECT is((pg_temp.operator(plain)).name, 'Harbour Parking', 'operator_create stores the name') FROM made;
SELECT is((pg_temp.operator(plain)).status, 'active', 'a new operator is active') FROM made;
SELECT is((pg_temp.operator(plain)).settlement_currency, 'EUR',
          'the settlement currency is trimmed and upper-cased ('' eur '' is EUR)') FROM made;
SELECT is((pg_temp.operator(plain)).media_folder, plain::text,
          'the media folder defaults to the operator id as text') FROM made;
SELECT is((pg_temp.operator(plain)).can_pay_out, false, 'a new operator cannot pay out until the provider says so') FROM made;
SELECT is((pg_temp.operator(plain)).listing_agreement_accepted_at, NULL, 'a new operator has not accepted the listing agreement') FROM made;
SELECT is((pg_temp.operator(foldered)).media_folder, 'airport-parks_01', 'an explicit media folder is stored') FROM made;
SELECT is((pg_temp.operator(foldered)).settlement_currency, 'GBP', 'gbp is GBP') FROM made;
SELECT isnt((SELECT plain FROM made), (SELECT foldered FROM made), 'every operator gets its own id');

SET LOCAL ROLE platform_service;
SELECT lives_ok($$SELECT platform.operator_create(repeat('n', 200), 'EUR')$$, 'a name of 200 characters is accepted');
SELECT lives_ok($$SELECT platform.operator_create('F', 'USD', repeat('f', 100))$$, 'a media folder of 100 characters is accepted');
SELECT lives_ok($$SELECT platform.operator_create('F', 'USD', '0')$$, 'a media folder of one character is accepted');

SELECT tests.refuses($$SELECT platform.operator_create(NULL, 'EUR')$$, 'PT422', 'invalid_parameter', 'p_name', 'a null name is refused');
SELECT tests.refuses($$SELECT platform.operator_create('', 'EUR')$$, 'PT422', 'invalid_parameter', 'p_name', 'an empty name is refused');
SELECT tests.refuses($$SELECT platform.operator_create('   ', 'EUR')$$, 'PT422', 'invalid_parameter', 'p_name', 'a blank name is refused');
SELECT tests.refuses($$SELECT platform.operator_create(E'\t', 'EUR')$$, 'PT422', 'invalid_parameter', 'p_name', 'a name of only a tab is refused');
SELECT tests.refuses($$SELECT platform.operator_create(repeat('n', 201), 'EUR')$$, 'PT422', 'invalid_parameter', 'p_name', 'a name of 201 characters is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', NULL)$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'a null currency is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', '')$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'an empty currency is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'ABC')$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'an unknown currency code is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'XAU')$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'gold (XAU) is not a settlement currency');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EU')$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'a two-letter currency is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EURO')$$, 'PT422', 'invalid_parameter', 'p_settlement_currency', 'a four-letter currency is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', '../x')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder ../x is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', 'a/b')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder with a slash is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', 'a\b')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder with a backslash is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', '.')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder . is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', '..')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder .. is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', '')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'an empty media folder is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', 'a%2Fb')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a percent-encoded media folder is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', 'a b')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder with a space is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', '-a')$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder starting with a hyphen is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', repeat('f', 101))$$, 'PT422', 'invalid_parameter', 'p_media_folder', 'a media folder of 101 characters is refused');
SELECT tests.refuses($$SELECT platform.operator_create('X', 'EUR', 'airport-parks_01')$$, 'PT409', 'conflict', 'p_media_folder', 'a media folder already taken is a conflict');
SELECT tests.refuses(format('SELECT platform.operator_create(%L, %L, %L)', 'X', 'EUR', (SELECT plain FROM made)),
                     'PT409', 'conflict', 'p_media_folder', 'a media folder equal to another operator''s default folder is a conflict');
RESET ROLE;
SELECT is((SELECT count(*) FROM app.operators), 5::bigint, 'refused calls made no operator: five exist');

-- operator_set_status ---------------------------------------------------------------------------------

SET LOCAL ROLE platform_service;
SELECT lives_ok(format('SELECT platform.operator_set_status(%L, %L)', (SELECT plain FROM made), 'suspended'),
                'an operator can be suspended');
RESET ROLE;
SELECT is((pg_temp.operator(plain)).status, 'suspended', 'the operator is suspended') FROM made;
SET LOCAL ROLE platform_service;
SELECT lives_ok(format('SELECT platform.operator_set_status(%L, %L)', (SELECT plain FROM made), 'active'),
                'a suspended operator can be made active again');
RESET ROLE;
SELECT is((pg_temp.operator(plain)).status, 'active', 'the operator is active again') FROM made;
SET LOCAL ROLE platform_service;
SELECT tests.refuses(format('SELECT platform.operator_set_status(%L, %L)', (SELECT plain FROM made), 'closed'),
                     'PT422', 'invalid_parameter', 'p_status', 'an unknown status is refused');
SELECT tests.refuses(format('SELECT platform.operator_set_status(%L, NULL)', (SELECT plain FROM made)),
                     'PT422', 'invalid_parameter', 'p_status', 'a null status is refused');
SELECT tests.refuses(format('SELECT platform.operator_set_status(%L, %L)', gen_random_uuid(), 'suspended'),
                     'PT422', 'invalid_parameter', 'p_operator_id', 'an unknown operator is refused');
SELECT tests.refuses($$SELECT platform.operator_set_status(NULL, 'suspended')$$,
                     'PT422', 'invalid_parameter', 'p_operator_id', 'a null operator is refused');

-- user_upsert -------------------------------------------------------------------------------------------

CREATE TEMP TABLE person AS SELECT gen_random_uuid() AS id;
SELECT lives_ok(format('SELECT platform.user_upsert(%L, %L, false)', (SELECT id FROM person), 'ana@example.test'),
                'user_upsert creates a user');
SELECT lives_ok(format('SELECT platform.user_upsert(%L, %L, true)', (SELECT id FROM person), 'ana@new.example.test'),
                'user_upsert of the same id updates it');
RESET ROLE;
SELECT is(((pg_temp.app_user(id)).email, (pg_temp.app_user(id)).two_step)::text, '(ana@new.example.test,t)',
          'the update changed the email and turned two-step sign-in on') FROM person;
SELECT is((SELECT count(*) FROM app.users WHERE id = (SELECT id FROM person)), 1::bigint, 'the update made no second user');
SET LOCAL ROLE platform_service;
SELECT tests.refuses($$SELECT platform.user_upsert(NULL, 'a@b', false)$$, 'PT422', 'invalid_parameter', 'p_user_id', 'a null user id is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, NULL, false)', gen_random_uuid()), 'PT422', 'invalid_parameter', 'p_email', 'a null email is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, %L, false)', gen_random_uuid(), 'no-at-sign'), 'PT422', 'invalid_parameter', 'p_email', 'an email without @ is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, %L, false)', gen_random_uuid(), 'a@b@c'), 'PT422', 'invalid_parameter', 'p_email', 'an email with two @ is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, %L, false)', gen_random_uuid(), 'a b@c'), 'PT422', 'invalid_parameter', 'p_email', 'an email with a space is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, %L, false)', gen_random_uuid(), repeat('a', 315) || '@b.test'), 'PT422', 'invalid_parameter', 'p_email', 'an email over 320 characters is refused');
SELECT tests.refuses(format('SELECT platform.user_upsert(%L, %L, NULL)', gen_random_uuid(), 'a@b'), 'PT422', 'invalid_parameter', 'p_two_step', 'a null two-step flag is refused');

-- member_set ------------------------------------------------------------------------------------------

SELECT lives_ok(format('SELECT platform.member_set(%L, %L, %L)', (SELECT foldered FROM made), (SELECT id FROM person), 'manager'),
                'member_set makes a user a member');
RESET ROLE;
SELECT is(((pg_temp.membership(foldered, id)).role, (pg_temp.membership(foldered, id)).accepted)::text, '(manager,t)',
          'a new membership has the role given and is accepted by default') FROM made, person;
SET LOCAL ROLE platform_service;
SELECT lives_ok(format('SELECT platform.member_set(%L, %L, %L, false)', (SELECT foldered FROM made), (SELECT id FROM person), 'staff'),
                'member_set changes the role and acceptance of an existing membership');
RESET ROLE;
SELECT is(((pg_temp.membership(foldered, id)).role, (pg_temp.membership(foldered, id)).accepted)::text, '(staff,f)',
          'the membership now has the new role and is not accepted') FROM made, person;
SET LOCAL ROLE platform_service;
SELECT tests.refuses(format('SELECT platform.member_set(%L, %L, %L)', (SELECT foldered FROM made), (SELECT id FROM person), 'admin'),
                     'PT422', 'invalid_parameter', 'p_role', 'an unknown role is refused');
SELECT tests.refuses(format('SELECT platform.member_set(%L, %L, NULL)', (SELECT foldered FROM made), (SELECT id FROM person)),
                     'PT422', 'invalid_parameter', 'p_role', 'a null role is refused');
SELECT tests.refuses(format('SELECT platform.member_set(%L, %L, %L, NULL)', (SELECT foldered FROM made), (SELECT id FROM person), 'owner'),
                     'PT422', 'invalid_parameter', 'p_accepted', 'a null acceptance is refused');
SELECT tests.refuses(format('SELECT platform.member_set(%L, %L, %L)', (SELECT foldered FROM made), gen_random_uuid(), 'owner'),
                     'PT422', 'invalid_parameter', 'p_user_id', 'an unknown user is refused');
SELECT tests.refuses(format('SELECT platform.member_set(%L, %L, %L)', gen_random_uuid(), (SELECT id FROM person), 'owner'),
                     'PT422', 'invalid_parameter', 'p_operator_id', 'an unknown operator is refused');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
