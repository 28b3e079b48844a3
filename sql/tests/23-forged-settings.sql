-- Tenant rules never trust what a caller can set. Any connection may set any `app.*`
-- setting with set_config before it calls a function. A member of operator B who forges every such
-- setting with operator A's values, then calls every console function (and a platform service that
-- does the same for B, every platform function that reads or writes operator data), sees nothing of
-- A and changes nothing of A: each function derives its operator from the verified caller alone.
BEGIN;
SELECT plan(36);
SELECT tests.lend_temporary_to_project_roles();

-- The settings a caller could forge: every `app.*` setting any function or policy of the project names.
SELECT is(
    ARRAY(SELECT DISTINCT m[1] FROM (
              SELECT p.prosrc AS src FROM pg_proc AS p
               WHERE p.pronamespace = ANY (tests.project_schemas())
              UNION ALL
              SELECT coalesce(pg_get_expr(pol.polqual, pol.polrelid), '') || coalesce(pg_get_expr(pol.polwithcheck, pol.polrelid), '')
                FROM pg_policy AS pol) AS s
            CROSS JOIN LATERAL regexp_matches(s.src, '(?:current_setting|set_config)\(''(app\.[a-z_]+)''', 'g') AS m
           ORDER BY 1),
    ARRAY['app.authenticating_key_id', 'app.operator_id', 'app.webhook_sweep'],
    'the app.* settings the project reads are app.authenticating_key_id, app.operator_id and app.webhook_sweep (forge each below)');

-- A and B hold the same lot id `shared`; A alone holds `a-only`. A's `shared` is pending review, B's
-- is a draft. Each has a credential, a webhook endpoint, a booking (and its hint), and A has rates
-- and a closure.
CREATE TEMP TABLE fx AS
SELECT a, b,
       tests.issue_credential(a) AS a_bearer, tests.issue_credential(b) AS b_bearer,
       tests.make_member(a, 'owner') AS a_owner, tests.make_member(b, 'owner') AS b_owner
  FROM tests.make_operator('Forged A') AS a, tests.make_operator('Forged B') AS b;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.register_webhook(a), tests.register_webhook(b) FROM fx;
SELECT tests.put_lot(a_bearer, 'shared', tests.lot_body()), tests.put_lot(a_bearer, 'a-only', tests.lot_body()),
       tests.put_lot(b_bearer, 'shared', tests.lot_body())
  FROM fx;
SELECT tests.put_rates(a_bearer, 'shared', tests.rates_body()),
       tests.put_blocked_periods(a_bearer, 'shared', '{"blocked_periods": [{"starts_on": "2026-05-01", "ends_on": "2026-05-03"}]}'),
       tests.submit_lot(a, 'shared')
  FROM fx;
ALTER TABLE fx ADD a_booking text, ADD b_booking text, ADD a_credential uuid;
UPDATE fx SET a_booking = tests.record_booking(a, tests.booking_body('shared')),
              b_booking = tests.record_booking(b, tests.booking_body('shared')),
              a_credential = (SELECT id FROM app.api_credentials WHERE key_id = tests.key_id(a_bearer));

-- Everything of one operator in every tenant table, as text (read as the superuser).
CREATE FUNCTION pg_temp.everything_of(p_operator uuid)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_table regclass;
    v_rows text;
    v_all text := '';
BEGIN
    FOR v_table IN SELECT * FROM tests.tenant_tables() LOOP
        EXECUTE format('SELECT string_agg(t::text, E''\n'' ORDER BY t::text COLLATE "C") FROM %s AS t WHERE %I = $1',
                       v_table, tests.operator_column(v_table))
           INTO v_rows USING p_operator;
        v_all := v_all || v_table::text || E':\n' || coalesce(v_rows, '') || E'\n';
    END LOOP;
    RETURN v_all;
END
$$;
CREATE TEMP TABLE a_before AS SELECT pg_temp.everything_of(a) AS rows FROM fx;
SELECT isnt((SELECT rows FROM a_before), NULL, 'A''s rows are read for the comparison at the end');

-- Act as B's owner through PostgREST, then forge every app.* setting with A's values.
CREATE FUNCTION pg_temp.as_b_owner_forging_a()
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_console_user(b_owner, b) FROM fx;
    SELECT set_config('app.operator_id', a::text, true),
           set_config('app.authenticating_key_id', tests.key_id(a_bearer), true),
           set_config('app.webhook_sweep', 'on', true)
      FROM fx;
$$;
-- Act as a platform service, with every app.* setting forged with A's values.
CREATE FUNCTION pg_temp.as_platform_forging_a()
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_superuser(), set_config('role', 'platform_service', true);
    SELECT set_config('app.operator_id', a::text, true),
           set_config('app.authenticating_key_id', tests.key_id(a_bearer), true),
           set_config('app.webhook_sweep', 'on', true)
      FROM fx;
$$;

-- The console, as B's owner with A's values forged -------------------------------------------------------

SELECT pg_temp.as_b_owner_forging_a();
SELECT results_eq(
    $$SELECT key_id FROM console.api_credential_list() ORDER BY key_id COLLATE "C"$$,
    $$SELECT tests.key_id(b_bearer) FROM fx$$,
    'api_credential_list lists B''s credential alone, not the one of A whose key id was forged');

SELECT pg_temp.as_b_owner_forging_a();
SELECT is_empty(
    $$SELECT * FROM console.api_credential_revoke((SELECT a_credential FROM fx))$$,
    'api_credential_revoke of A''s credential answers nothing');

SELECT pg_temp.as_b_owner_forging_a();
SELECT is(
    (SELECT count(*) FROM console.api_credential_issue('forged', ARRAY['read_supply'])), 1::bigint,
    'api_credential_issue issues a credential');
SELECT tests.act_as_superuser();
SELECT is(
    (SELECT operator_id FROM app.api_credentials WHERE label = 'forged'), (SELECT b FROM fx),
    '… and it is B''s');

SELECT pg_temp.as_b_owner_forging_a();
SELECT tests.refuses($$SELECT console.lot_listing_status('a-only')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'lot_listing_status of a lot only A holds is refused as unknown');
SELECT pg_temp.as_b_owner_forging_a();
SELECT is(console.lot_listing_status('shared') ->> 'review_state', 'draft',
          'lot_listing_status of `shared` answers B''s lot (draft), not A''s (pending)');

SELECT pg_temp.as_b_owner_forging_a();
SELECT tests.refuses($$SELECT console.lot_confirm_timezone('a-only')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'lot_confirm_timezone of a lot only A holds is refused as unknown');
SELECT pg_temp.as_b_owner_forging_a();
SELECT is(console.lot_confirm_timezone('shared') ->> 'timezone_confirmed', 'true',
          'lot_confirm_timezone of `shared` confirms B''s lot');

SELECT pg_temp.as_b_owner_forging_a();
SELECT tests.refuses($$SELECT console.lot_submit_for_review('a-only')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'lot_submit_for_review of a lot only A holds is refused as unknown');

SELECT pg_temp.as_b_owner_forging_a();
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('a-only', '[]')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'lot_blocked_periods_put of a lot only A holds is refused as unknown');
SELECT pg_temp.as_b_owner_forging_a();
SELECT is(console.lot_blocked_periods_put('shared', '[]') ->> 'result', 'unchanged',
          'lot_blocked_periods_put of `shared` with an empty list finds B''s empty list, not A''s closure');

SELECT pg_temp.as_b_owner_forging_a();
SELECT isnt(console.account_accept_listing_agreement() ->> 'accepted_at', NULL,
            'account_accept_listing_agreement accepts for B');
SELECT tests.act_as_superuser();
SELECT is(
    (SELECT listing_agreement_accepted_at FROM app.operators WHERE id = (SELECT a FROM fx)), NULL,
    '… and not for A');

SELECT pg_temp.as_b_owner_forging_a();
SELECT results_eq(
    $$SELECT booking_reference FROM console.webhook_deliveries()$$,
    $$SELECT b_booking FROM fx$$,
    'webhook_deliveries lists B''s hint alone');
SELECT pg_temp.as_b_owner_forging_a();
SELECT is((SELECT count(*) FROM console.webhook_endpoint_disarm()), 1::bigint, 'webhook_endpoint_disarm disarms one endpoint');
SELECT pg_temp.as_b_owner_forging_a();
SELECT is((SELECT count(*) FROM console.webhook_endpoint_register('https://b.example.test/hook', 'whsec_' || repeat('cd', 32))),
          1::bigint, 'webhook_endpoint_register registers an endpoint');
SELECT tests.act_as_superuser();
SELECT results_eq(
    $$SELECT operator_id, disarmed_at IS NULL FROM app.webhook_endpoints WHERE operator_id IN (SELECT b FROM fx) ORDER BY created_at, disarmed_at NULLS LAST$$,
    $$SELECT b, false FROM fx UNION ALL SELECT b, true FROM fx$$,
    '… both were B''s: its first endpoint disarmed, the new one armed');

-- A staff member of B (who may list, not issue) forging A's values is still B's staff -------------------

SELECT tests.act_as_console_user(tests.make_member(b, 'staff'), b) FROM fx;
SELECT set_config('app.operator_id', a::text, true), set_config('app.authenticating_key_id', tests.key_id(a_bearer), true),
       set_config('app.webhook_sweep', 'on', true) FROM fx;
SELECT tests.refuses($$SELECT * FROM console.api_credential_issue('staff', ARRAY['read_supply'])$$,
                     'PT403', 'api_credential_requires_manager', NULL,
                     'a staff member of B forging A''s values still may not issue');

-- The platform, acting for B with A's values forged -------------------------------------------------------

SELECT pg_temp.as_platform_forging_a();
SELECT tests.refuses($$SELECT platform.lot_listing_status((SELECT b FROM fx), 'a-only')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'platform.lot_listing_status for B of a lot only A holds is refused as unknown');
SELECT pg_temp.as_platform_forging_a();
SELECT is(platform.lot_listing_status(b, 'shared') ->> 'review_state', 'draft',
          'platform.lot_listing_status for B of `shared` answers B''s lot') FROM fx;

SELECT pg_temp.as_platform_forging_a();
SELECT tests.refuses($$SELECT platform.lot_review_approve((SELECT b FROM fx), 'shared')$$, 'PT409', 'review_not_pending', 'p_external_id',
                     'platform.lot_review_approve for B of `shared` finds B''s draft, not A''s pending review');
SELECT pg_temp.as_platform_forging_a();
SELECT tests.refuses($$SELECT platform.lot_review_approve((SELECT b FROM fx), 'a-only')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'platform.lot_review_approve for B of a lot only A holds is refused as unknown');

SELECT pg_temp.as_platform_forging_a();
SELECT tests.refuses($$SELECT platform.booking_record((SELECT b FROM fx), tests.booking_body('a-only'))$$, 'PT422', 'invalid_body', 'lot_external_id',
                     'platform.booking_record for B on a lot only A holds is refused');
SELECT pg_temp.as_platform_forging_a();
SELECT isnt(platform.booking_record(b, tests.booking_body('shared', '{"external_reference": "forged"}')), NULL,
            'platform.booking_record for B on `shared` records a booking') FROM fx;
SELECT tests.act_as_superuser();
SELECT is(
    (SELECT l.operator_id FROM app.bookings AS bk JOIN app.lots AS l ON l.operator_id = bk.operator_id AND l.id = bk.lot_id
      WHERE bk.external_reference = 'forged'),
    (SELECT b FROM fx),
    '… on B''s lot `shared`');

SELECT pg_temp.as_platform_forging_a();
SELECT tests.refuses($$SELECT platform.booking_update((SELECT b FROM fx), (SELECT a_booking FROM fx), '{"status": "cancelled"}')$$,
                     'PT422', 'invalid_parameter', 'p_reference',
                     'platform.booking_update for B of A''s booking reference is refused as unknown');
SELECT pg_temp.as_platform_forging_a();
SELECT lives_ok($$SELECT platform.booking_update((SELECT b FROM fx), (SELECT b_booking FROM fx), '{"status": "cancelled"}')$$,
                'platform.booking_update for B of B''s booking works');

SELECT pg_temp.as_platform_forging_a();
SELECT lives_ok($$SELECT platform.operator_set_status((SELECT b FROM fx), 'active'),
                         platform.payouts_set((SELECT b FROM fx), true),
                         platform.member_set((SELECT b FROM fx), tests.make_user(), 'staff')$$,
                'operator_set_status, payouts_set and member_set for B work');
SELECT tests.act_as_superuser();
SELECT is((SELECT can_pay_out FROM app.operators WHERE id = (SELECT b FROM fx)), true, '… payouts_set changed B');

-- Nothing of A changed, and the gateway's path cannot be forged either ---------------------------------------

SELECT tests.act_as_superuser();
SELECT is(pg_temp.everything_of(a), (SELECT rows FROM a_before), 'not one row of A changed in any tenant table') FROM fx;
SELECT isnt(pg_temp.everything_of(b), '', 'B''s rows did change (so the calls above did their work)') FROM fx;

SELECT tests.act_as_gateway();
SELECT set_config('app.operator_id', a::text, true), set_config('app.authenticating_key_id', tests.key_id(a_bearer), true),
       set_config('app.webhook_sweep', 'on', true) FROM fx;
SELECT is(
    (SELECT jsonb_path_query_array(body, '$.lots[*].external_id') FROM api.lots_get((SELECT b_bearer FROM fx), NULL, 50)),
    '["shared"]'::jsonb,
    'GET /lots with B''s credential and A''s values forged lists B''s one lot');
SELECT set_config('app.operator_id', a::text, true), set_config('app.authenticating_key_id', tests.key_id(a_bearer), true),
       set_config('app.webhook_sweep', 'on', true) FROM fx;
SELECT tests.refuses($$SELECT * FROM api.ping('Bearer ' || (SELECT tests.key_id(a_bearer) FROM fx) || '.pk_sec_wrong')$$,
                     'PT401', 'unauthorized', NULL,
                     'forging A''s key id as the one being authenticated does not make a wrong secret pass');

-- Only PostgREST's login may become a console caller ------------------------------------------------------

SELECT tests.act_as_superuser();
SELECT is_empty(
    $$SELECT rolname FROM pg_roles
       WHERE rolcanlogin AND NOT rolsuper AND rolname <> 'authenticator'
         AND pg_has_role(oid, 'authenticated', 'MEMBER')$$,
    'no login but PostgREST''s authenticator is a member of authenticated');

SELECT * FROM finish();
ROLLBACK;
