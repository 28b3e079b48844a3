-- Webhook hints (spec: States and transitions → Webhook hint, Events; docs/design.md): a booking
-- created or changed while an endpoint is armed leaves one waiting hint; changes while it waits
-- merge into it (the first occurred_at stays); a change while it is in flight leaves a successor.
-- The worker claims due hints under a lease, records each attempt's outcome, retries after 1 min, 5
-- min, 30 min and 2 h, and the fifth failure or a disarmed endpoint makes the hint dead.
BEGIN;
SELECT plan(49);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, other, tests.issue_credential(o) AS bearer, tests.make_member(o, 'owner') AS owner
  FROM tests.make_operator('Webhook hints') AS o, tests.make_operator('Webhook hints, other') AS other;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.put_lot(bearer, 'lot-1', tests.lot_body()) FROM fx;

-- The worker's calls, as its login role; each restores the superuser.
CREATE FUNCTION pg_temp.claim(p_limit integer DEFAULT 10, p_per_operator integer DEFAULT 10, p_lease integer DEFAULT 60)
RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN
    PERFORM tests.act_as_superuser(), set_config('role', 'webhook_worker', true);
    RETURN QUERY SELECT c.operator_id, c.hint_id, c.lease_token, c.attempt, c.url, c.host, c.secret, c.body
                   FROM webhook.claim_due_hints(p_limit, p_per_operator, p_lease) AS c;
    -- (booking_reference, the last column, is for the worker's log line only)
    PERFORM tests.act_as_superuser();
END
$$;
CREATE TEMP TABLE claims (operator_id uuid, hint_id bigint, lease_token uuid, attempt integer, url text, host text, secret text, body text);
GRANT ALL ON claims TO PUBLIC;
CREATE FUNCTION pg_temp.claim_into_claims(p_limit integer DEFAULT 10, p_per_operator integer DEFAULT 10, p_lease integer DEFAULT 60)
RETURNS bigint LANGUAGE sql AS $$
    DELETE FROM claims;
    INSERT INTO claims SELECT * FROM pg_temp.claim(p_limit, p_per_operator, p_lease)
        AS c(operator_id uuid, hint_id bigint, lease_token uuid, attempt integer, url text, host text, secret text, body text);
    SELECT count(*) FROM claims;
$$;
CREATE FUNCTION pg_temp.record(p_hint_id bigint, p_status integer, p_failure text, p_token uuid DEFAULT NULL)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_state text;
BEGIN
    PERFORM tests.act_as_superuser(), set_config('role', 'webhook_worker', true);
    SELECT webhook.record_attempt(c.operator_id, c.hint_id, coalesce(p_token, c.lease_token), p_status, p_failure)
      INTO v_state FROM claims AS c WHERE c.hint_id = p_hint_id;
    PERFORM tests.act_as_superuser();
    RETURN v_state;
END
$$;
-- Every hint of one booking, oldest first, as the superuser reads it.
CREATE FUNCTION pg_temp.hints(p_reference text)
RETURNS SETOF app.webhook_hints LANGUAGE sql AS $$
    SELECT * FROM app.webhook_hints WHERE booking_reference = p_reference ORDER BY id;
$$;
-- Make every waiting hint due now (the clock of these tests).
CREATE FUNCTION pg_temp.all_due() RETURNS void LANGUAGE sql AS $$
    UPDATE app.webhook_hints SET next_attempt_at = now() - interval '1 second' WHERE state = 'undelivered' AND NOT in_flight;
$$;

-- No endpoint, no hint -------------------------------------------------------------------------------

CREATE TEMP TABLE refs (name text PRIMARY KEY, reference text);
GRANT SELECT ON refs TO PUBLIC;
INSERT INTO refs SELECT 'before', tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx;
SELECT is((SELECT count(*) FROM app.webhook_hints), 0::bigint, 'a booking recorded while no endpoint is armed leaves no hint');

-- A change leaves one waiting hint; further changes merge into it ------------------------------------------

SELECT tests.register_webhook(operator, 'https://hooks.example.test/in?op=1', 'whsec_' || repeat('5c', 32)) FROM fx;
INSERT INTO refs SELECT 'a', tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx;
SELECT results_eq(
    $$SELECT state, in_flight, attempts, occurred_at = b.changed_at, next_attempt_at <= now()
        FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a')) AS h
        JOIN app.bookings AS b ON b.operator_id = h.operator_id AND b.reference = h.booking_reference$$,
    $$VALUES ('undelivered', false, 0, true, true)$$,
    'a booking recorded while an endpoint is armed leaves one undelivered hint, due now, occurred_at = the change''s stamp');
CREATE TEMP TABLE first_occurred AS SELECT occurred_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'));
SELECT tests.update_booking(operator, (SELECT reference FROM refs WHERE name = 'a'), '{"status": "checked_in"}') FROM fx;
SELECT tests.update_booking(operator, (SELECT reference FROM refs WHERE name = 'a'), '{"flight_number": "LH400"}') FROM fx;
SELECT results_eq(
    $$SELECT count(*), min(occurred_at) FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$SELECT 1::bigint, occurred_at FROM first_occurred$$,
    'two more changes while the hint waits merge into it; it keeps its first occurred_at');
INSERT INTO refs SELECT 'b', tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx;
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state = 'undelivered'), 2::bigint, 'another booking has a hint of its own');
SELECT tests.update_booking(operator, (SELECT reference FROM refs WHERE name = 'b'), '{"status": "confirmed"}') FROM fx;
SELECT is((SELECT count(*) FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'b'))), 1::bigint,
          'an update that changes nothing of the booking leaves no further hint');

-- The claim ---------------------------------------------------------------------------------------------

SELECT is(pg_temp.claim_into_claims(), 2::bigint, 'the worker claims both due hints');
SELECT results_eq(
    $$SELECT attempt, url, host, secret, body FROM claims WHERE hint_id = (SELECT id FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a')))$$,
    $$SELECT 1, 'https://hooks.example.test/in?op=1', 'hooks.example.test', 'whsec_' || repeat('5c', 32),
             '{"event":"booking.changed","booking_reference":"' || (SELECT reference FROM refs WHERE name = 'a')
             || '","occurred_at":"' || app.utc_text(occurred_at) || '"}'
        FROM first_occurred$$,
    'a claim hands the worker the attempt number, URL, host, secret and the exact body');
SELECT matches((SELECT body FROM claims LIMIT 1), '"occurred_at":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z"}$',
            'occurred_at is UTC with fractional seconds and Z');
SELECT results_eq(
    $$SELECT in_flight, lease_until > now() FROM app.webhook_hints ORDER BY id$$,
    $$VALUES (true, true), (true, true)$$,
    'claimed hints are in flight under a lease');
CREATE TEMP TABLE claimed AS SELECT * FROM claims;
SELECT is(pg_temp.claim_into_claims(), 0::bigint, 'a second claim finds nothing: in-flight hints under a live lease are not claimed again');

-- A change while in flight leaves a successor ---------------------------------------------------------

SELECT tests.update_booking(operator, (SELECT reference FROM refs WHERE name = 'a'), '{"status": "completed"}') FROM fx;
SELECT results_eq(
    $$SELECT state, in_flight FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$VALUES ('undelivered', true), ('undelivered', false)$$,
    'a change while the hint is in flight leaves a waiting successor behind it');

-- Outcomes ---------------------------------------------------------------------------------------------

DELETE FROM claims; INSERT INTO claims SELECT * FROM claimed;
SELECT is(pg_temp.record(hint_id, 500, NULL), 'undelivered', 'a 500 is a failure: the hint waits for its next attempt')
  FROM claims WHERE hint_id = (SELECT min(id) FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a')));
SELECT results_eq(
    $$SELECT state, in_flight, attempts, last_status, last_failure, next_attempt_at - last_attempt_at, occurred_at = (SELECT occurred_at FROM first_occurred)
        FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$VALUES ('undelivered', false, 1, 500, 'http_status', interval '1 minute', true)$$,
    'the failed hint took in its successor (one hint left, its first occurred_at kept), next attempt 1 minute later');
SELECT is(pg_temp.record(hint_id, 204, NULL), 'delivered', 'a 204 is delivered')
  FROM claims WHERE hint_id = (SELECT id FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'b')));
SELECT results_eq(
    $$SELECT state, attempts, last_status, last_failure, delivered_at IS NOT NULL, next_attempt_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'b'))$$,
    $$VALUES ('delivered', 1, 204, NULL::text, true, NULL::timestamptz)$$,
    'a delivered hint records its status and time');
SELECT is(pg_temp.record(hint_id, 204, NULL), 'lease_lost', 'recording twice: the lease is gone, nothing changes')
  FROM claims WHERE hint_id = (SELECT id FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'b')));

-- The retry schedule and death after five ---------------------------------------------------------------

SELECT pg_temp.all_due();
SELECT is(pg_temp.claim_into_claims(), 1::bigint, 'once due again, the failed hint is claimed');
SELECT is((SELECT attempt FROM claims), 2, 'as its second attempt');
SELECT is(pg_temp.record(hint_id, NULL, 'timeout'), 'undelivered', 'a timeout is a failure') FROM claims;
SELECT is((SELECT next_attempt_at - last_attempt_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))),
          interval '5 minutes', 'after 2 failures the next attempt is 5 minutes later');
SELECT pg_temp.all_due(), pg_temp.claim_into_claims();
SELECT is(pg_temp.record(hint_id, 302, NULL), 'undelivered', 'a 302 is a failure: redirects are never followed') FROM claims;
SELECT results_eq(
    $$SELECT last_status, last_failure, next_attempt_at - last_attempt_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$VALUES (302, 'redirect', interval '30 minutes')$$,
    'recorded as redirect; after 3 failures the next attempt is 30 minutes later');
SELECT pg_temp.all_due(), pg_temp.claim_into_claims();
SELECT is(pg_temp.record(hint_id, NULL, 'private_address'), 'undelivered', 'a private address is a failure') FROM claims;
SELECT results_eq(
    $$SELECT last_status, last_failure, next_attempt_at - last_attempt_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$VALUES (NULL::integer, 'private_address', interval '2 hours')$$,
    'recorded without a status; after 4 failures the next attempt is 2 hours later');
SELECT pg_temp.all_due(), pg_temp.claim_into_claims();
SELECT is((SELECT attempt FROM claims), 5, 'the fifth attempt');
SELECT is(pg_temp.record(hint_id, NULL, 'dns_failed'), 'dead', 'the fifth failure makes the hint dead') FROM claims;
SELECT results_eq(
    $$SELECT state, attempts, last_failure, next_attempt_at FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'a'))$$,
    $$VALUES ('dead', 5, 'dns_failed', NULL::timestamptz)$$,
    'a dead hint keeps its last failure and has no next attempt');
SELECT pg_temp.all_due();
SELECT is(pg_temp.claim_into_claims(), 0::bigint, 'a dead hint is never claimed again');

-- The console sees it -------------------------------------------------------------------------------------

SELECT tests.act_as_console_user(owner, operator) FROM fx;
SELECT results_eq(
    $$SELECT booking_reference, state, attempts, last_status, last_failure, next_attempt_at IS NULL FROM console.webhook_deliveries()$$,
    $$SELECT (SELECT reference FROM refs WHERE name = 'b'), 'delivered', 1, 204, NULL::text, true
      UNION ALL
      SELECT (SELECT reference FROM refs WHERE name = 'a'), 'dead', 5, NULL::integer, 'dns_failed', true$$,
    'console.webhook_deliveries lists the hints newest first, with state, attempts, last status and failure');
SELECT tests.act_as_console_user(owner, operator) FROM fx;
SELECT is((SELECT count(*) FROM console.webhook_deliveries(1)), 1::bigint, 'p_limit bounds the list');
SELECT tests.act_as_superuser();

-- Leases ---------------------------------------------------------------------------------------------

SELECT tests.update_booking(operator, (SELECT reference FROM refs WHERE name = 'b'), '{"status": "cancelled"}') FROM fx;
SELECT is(pg_temp.claim_into_claims(10, 10, 30), 1::bigint, 'a new change of a delivered booking leaves a new hint, claimed');
CREATE TEMP TABLE first_claim AS SELECT * FROM claims;
UPDATE app.webhook_hints SET lease_until = now() - interval '1 second' WHERE in_flight;
SELECT is(pg_temp.claim_into_claims(), 1::bigint, 'a hint whose lease ran out (its worker died) is claimed again');
SELECT isnt((SELECT lease_token FROM claims), (SELECT lease_token FROM first_claim), '… under a new lease');
SELECT is(pg_temp.record(hint_id, 200, NULL, (SELECT lease_token FROM first_claim)), 'lease_lost',
          'the first worker''s late outcome is refused as lease_lost') FROM claims;
SELECT is((SELECT in_flight FROM app.webhook_hints WHERE id = (SELECT hint_id FROM claims)), true, '… and changed nothing');
SELECT is(pg_temp.record(hint_id, 200, NULL), 'delivered', 'the new lease holder records delivery') FROM claims;

-- At most p_per_operator in flight per operator --------------------------------------------------------------

INSERT INTO refs SELECT 'c' || i, tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx, generate_series(1, 3) AS i;
SELECT tests.put_lot(tests.issue_credential(other), 'other-lot', tests.lot_body()) FROM fx;
SELECT tests.register_webhook(other) FROM fx;
INSERT INTO refs SELECT 'other', tests.record_booking(other, tests.booking_body('other-lot')) FROM fx;
SELECT is(pg_temp.claim_into_claims(10, 2), 3::bigint, 'with 2 per operator: two of the busy operator''s three, and the other''s one');
SELECT is((SELECT count(*) FROM claims WHERE operator_id = (SELECT other FROM fx)), 1::bigint, '… the other operator is not held back');
SELECT is(pg_temp.claim_into_claims(10, 2), 0::bigint, 'while two are in flight the busy operator gets no more');
SELECT is(pg_temp.claim_into_claims(10, 3), 1::bigint, 'a higher cap lets its third through');

-- Disarming ---------------------------------------------------------------------------------------------

SELECT tests.update_booking(operator, reference, '{"status": "cancelled"}') FROM fx, refs WHERE name = 'c1';
SELECT tests.act_as_console_user(owner, operator) FROM fx;
SELECT is((SELECT count(*) FROM console.webhook_endpoint_disarm()), 1::bigint, 'the endpoint is disarmed');
SELECT tests.act_as_superuser();
SELECT results_eq(
    $$SELECT state, last_failure FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'c1')) ORDER BY id$$,
    $$VALUES ('undelivered', NULL::text), ('dead', 'endpoint_disarmed')$$,
    'disarming: the waiting hint is dead at once; the one in flight finishes its attempt');
SELECT is(pg_temp.record(hint_id, 503, NULL), 'dead', 'an in-flight attempt of a disarmed endpoint that fails is dead, not retried')
  FROM claims WHERE hint_id = (SELECT min(id) FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'c1')));
UPDATE app.webhook_hints SET lease_until = now() - interval '1 second' WHERE in_flight AND operator_id = (SELECT operator FROM fx);
SELECT pg_temp.claim_into_claims();
SELECT is((SELECT count(*) FROM claims WHERE operator_id = (SELECT operator FROM fx)), 0::bigint,
          'no hint of a disarmed endpoint is claimed, not even one whose lease ran out');
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE operator_id = (SELECT operator FROM fx) AND state = 'undelivered'), 0::bigint,
          'the sweep made every remaining hint of the disarmed endpoint dead');
INSERT INTO refs SELECT 'after', tests.record_booking(operator, tests.booking_body('lot-1')) FROM fx;
SELECT is((SELECT count(*) FROM pg_temp.hints((SELECT reference FROM refs WHERE name = 'after'))), 0::bigint,
          'a booking recorded after disarming leaves no hint');

-- The worker's parameters ----------------------------------------------------------------------------------

SET LOCAL ROLE webhook_worker;
SELECT tests.refuses('SELECT * FROM webhook.claim_due_hints(0, 1, 60)', 'PT422', 'invalid_parameter', NULL, 'a claim of 0 hints is refused');
SELECT tests.refuses($$SELECT webhook.record_attempt(gen_random_uuid(), 1, gen_random_uuid(), 200, 'timeout')$$,
                     'PT422', 'invalid_parameter', 'p_failure', 'an outcome with both a status and a failure is refused');
SELECT tests.refuses($$SELECT webhook.record_attempt(gen_random_uuid(), 1, gen_random_uuid(), NULL, 'lost')$$,
                     'PT422', 'invalid_parameter', 'p_failure', 'an unknown failure reason is refused');
SELECT is(webhook.record_attempt(gen_random_uuid(), 1, gen_random_uuid(), 200, NULL), 'lease_lost', 'an outcome for no held lease changes nothing');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
