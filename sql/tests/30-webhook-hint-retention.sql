-- Retention of webhook hints: webhook.expire_hints deletes delivered and dead hints that
-- occurred before now() less `webhook_hint_retention` (30 days by default), at most p_limit a call,
-- oldest first; undelivered hints stay whatever their age, and so do other operators' recent ones.
-- The setting takes whole days only. console.webhook_delivery_retention says how far back the
-- delivery log reaches.
BEGIN;
SELECT plan(12);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, other, tests.make_member(o, 'staff') AS staff
  FROM tests.make_operator('Hint retention') AS o, tests.make_operator('Hint retention, other') AS other;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.put_lot(tests.issue_credential(operator), 'lot-1', tests.lot_body()) FROM fx;
SELECT tests.put_lot(tests.issue_credential(other), 'lot-1', tests.lot_body()) FROM fx;
SELECT tests.register_webhook(operator, 'https://hooks.example.test/in', 'whsec_' || repeat('5c', 32)) FROM fx;
SELECT tests.register_webhook(other, 'https://hooks.example.test/other', 'whsec_' || repeat('5d', 32)) FROM fx;

-- Ten bookings of each operator leave ten waiting hints each; then, as the superuser, each hint is
-- given its age and its end: the hint of booking i occurred 25 + i days ago (26 to 35), and is
-- delivered (odd i), dead (even i) or, for i = 10, still undelivered.
CREATE TEMP TABLE made AS
SELECT o.operator_id, i, tests.record_booking(o.operator_id, tests.booking_body('lot-1')) AS reference
  FROM fx, LATERAL (VALUES (fx.operator), (fx.other)) AS o (operator_id), generate_series(1, 10) AS i;
UPDATE app.webhook_hints AS h
   SET occurred_at = now() - make_interval(days => 25 + m.i),
       state = CASE WHEN m.i = 10 THEN 'undelivered' WHEN m.i % 2 = 1 THEN 'delivered' ELSE 'dead' END,
       delivered_at = CASE WHEN m.i < 10 AND m.i % 2 = 1 THEN now() - make_interval(days => 25 + m.i) END,
       last_attempt_at = now() - make_interval(days => 25 + m.i),
       next_attempt_at = CASE WHEN m.i = 10 THEN now() END,
       attempts = 1
  FROM made AS m
 WHERE h.operator_id = m.operator_id AND h.booking_reference = m.reference;

CREATE FUNCTION pg_temp.expire(p_limit integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_deleted integer;
BEGIN
    PERFORM tests.act_as_superuser(), set_config('role', 'webhook_worker', true);
    v_deleted := webhook.expire_hints(p_limit);
    PERFORM tests.act_as_superuser();
    RETURN v_deleted;
END
$$;
-- Past 30 days: the finished hints of 31 to 34 days, four of each operator.
SELECT is(pg_temp.expire(3), 3, 'a call deletes at most its limit');
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state <> 'undelivered' AND occurred_at < now() - interval '32 days 12 hours'),
    1::bigint, '… oldest first: of the four finished hints 33 and 34 days old, one is left');
SELECT is(pg_temp.expire(1000), 5, 'the next call deletes the rest past 30 days, and stops there');
SELECT is(pg_temp.expire(1000), 0, 'a call with nothing past the retention deletes nothing');
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state <> 'undelivered' AND occurred_at < now() - interval '30 days'),
    0::bigint, 'no delivered or dead hint older than 30 days is left');
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state <> 'undelivered'), 10::bigint,
    'the delivered and dead hints of 26 to 30 days are kept, both operators'' (2 × 5)');
SELECT is((SELECT count(*) FROM app.webhook_hints WHERE state = 'undelivered'), 2::bigint,
    'undelivered hints are kept, 35 days old or not');

UPDATE app.settings SET value = '27 days' WHERE name = 'webhook_hint_retention';
SELECT is(pg_temp.expire(1000), 6, 'a shorter retention deletes the hints of 28 to 30 days next');

SELECT tests.refuses($$SELECT pg_temp.expire(0)$$, 'PT422', 'invalid_parameter', 'p_limit', 'a limit of 0 is refused');
SELECT throws_ok($$UPDATE app.settings SET value = '12 hours' WHERE name = 'webhook_hint_retention'$$, '23514', NULL,
    'a retention that is not whole days is refused when it is set');

-- How far back the delivery log reaches, for any member.
SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT results_eq(
    $$SELECT retention, kept_since FROM console.webhook_delivery_retention()$$,
    $$VALUES (interval '27 days', now() - interval '27 days')$$,
    'the console says how far back the delivery log reaches: the retention, and now less it');
SELECT tests.act_as_superuser();
SELECT tests.act_as_console_user(tests.make_user(), (SELECT operator FROM fx));
SELECT tests.refuses($$SELECT * FROM console.webhook_delivery_retention()$$, 'PT403', 'forbidden', NULL,
    'a user who is not a member is refused');
SELECT tests.act_as_superuser();

SELECT * FROM finish();
ROLLBACK;
