-- A booking's stamp (app.booking_stamp_change; docs/design.md, the feed's guarantee): the clock, or
-- just after the operator's latest stamp when that is later, but never past the clock plus
-- `bookings_watermark_lag`.
--
-- Never going back: after a failover, a promoted node whose clock is behind the old primary's
-- would otherwise stamp changes before cursors the old primary handed out, and they would be
-- skipped. The old primary's clock is played here by a booking placed two minutes ahead of this
-- server's (within the lag). (A cursor cannot point past this transaction's own start, which holds
-- the watermark: the cursor across a real failover is the integration test `failover`.)
--
-- Capped: a stamp a day ahead (a clock stepped back) would otherwise carry every later change of
-- the operator a day ahead, past the watermark, and a feed page full of them would stall the feed.
-- The changes after it are stamped at the clock plus the lag, before it in the feed, each counted.
-- (That they then reach a client following `next` as the clock passes them is the integration test
-- `bookings_feed::a_stamp_a_day_ahead_delays_later_changes_by_at_most_twice_the_lag_and_stalls_nothing`.)
BEGIN;
SELECT plan(13);
SET LOCAL client_min_messages = error;  -- (the capped stamps' warnings)

CREATE TEMP TABLE fx AS
SELECT tests.make_operator('Clock Parking') AS op, tests.make_operator('Other Clock Parking') AS other;
SELECT is_empty(
    $$SELECT 1 FROM fx, LATERAL (VALUES (fx.op), (fx.other)) AS o(id),
                    tests.put_lot(tests.issue_credential(o.id, ARRAY['write_supply']), 'l1', tests.lot_body()) AS p
       WHERE p.status <> 201$$,
    'the fixture: each operator''s lot l1');

-- A booking's stamp.
CREATE FUNCTION pg_temp.stamp(p_operator uuid, p_reference text)
RETURNS timestamptz
LANGUAGE sql
AS $$
    SELECT changed_at FROM app.bookings WHERE operator_id = p_operator AND reference = p_reference;
$$;
-- The references of one feed page.
CREATE FUNCTION pg_temp.page(p_reader text, p_since text, p_limit integer)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'reference'
                   FROM tests.get_bookings(p_reader, p_since, p_limit) AS g,
                        jsonb_array_elements(g.body -> 'bookings') AS e);
$$;

-- Never going back.
SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-0"}')) FROM fx;
SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-1"}')) FROM fx;
SELECT ok(tests.restamp_booking(op, 'C-1', now() + interval '2 minutes'), 'C-1 stamped by a clock two minutes ahead') FROM fx;

SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-2"}')) FROM fx;
SELECT is(pg_temp.stamp(op, 'C-2'), pg_temp.stamp(op, 'C-1') + interval '1 microsecond',
          'a booking recorded after it is stamped just after C-1, not by the clock behind it') FROM fx;
SELECT tests.update_booking(op, 'C-0', '{"status": "cancelled"}') FROM fx;
SELECT is(pg_temp.stamp(op, 'C-0'), pg_temp.stamp(op, 'C-2') + interval '1 microsecond',
          'a change to an older booking is stamped after the latest stamp too') FROM fx;
SELECT is(pg_temp.page(tests.issue_credential(op, ARRAY['read_bookings']), NULL, 500), ARRAY['C-1', 'C-2', 'C-0'],
          'the feed delivers both after C-1: a cursor handed out at C-1 would not pass them') FROM fx;

SELECT tests.record_booking(other, tests.booking_body('l1', '{"reference": "O-1"}')) FROM fx;
SELECT cmp_ok(pg_temp.stamp(other, 'O-1'), '<', now() + interval '2 minutes',
              'another operator''s stamps follow its own latest stamp and the clock, not this one''s') FROM fx;
SELECT cmp_ok(pg_temp.stamp(other, 'O-1'), '>=', now(), 'and are the clock when nothing of its own is later') FROM fx;

-- Capped: the other operator's A-0 to A-2 recorded, A-2 stamped a day ahead, then A-3 to A-9
-- recorded with the clock right.
SELECT tests.set_bookings_watermark_lag('1 second');
CREATE TEMP TABLE capped AS SELECT webhook.booking_stamps_capped() AS before;
SELECT tests.record_booking(other, tests.booking_body('l1', format('{"reference": "A-%s"}', n)::jsonb))
  FROM fx, generate_series(0, 2) AS n;
SELECT ok(tests.restamp_booking(other, 'A-2', now() + interval '1 day'), 'A-2 stamped a day ahead') FROM fx;
SELECT tests.record_booking(other, tests.booking_body('l1', format('{"reference": "A-%s"}', n)::jsonb))
  FROM fx, generate_series(3, 9) AS n;

SELECT is_empty(
    $$SELECT n FROM fx, generate_series(3, 9) AS n
       WHERE pg_temp.stamp(other, 'A-' || n) NOT BETWEEN now() + interval '1 second' AND clock_timestamp() + interval '1 second'$$,
    'A-3 to A-9 are stamped at the clock plus the lag, not carried a day ahead after A-2');
SELECT is(webhook.booking_stamps_capped() - capped.before, 7::bigint, 'each capped stamp is counted') FROM capped;
SELECT is(pg_temp.page(tests.issue_credential(other, ARRAY['read_bookings']), NULL, 10),
          ARRAY['O-1', 'A-0', 'A-1', 'A-3', 'A-4', 'A-5', 'A-6', 'A-7', 'A-8', 'A-9'],
          'the feed holds them in the order they were recorded, all before A-2: a page never fills with A-2''s followers')
  FROM fx;

-- A change to A-2 itself brings it back to the clock plus the lag: the recovery in
-- docs/operating.md (stamps ahead already stored).
SELECT tests.update_booking(other, 'A-2', '{"status": "cancelled"}') FROM fx;
SELECT cmp_ok(pg_temp.stamp(other, 'A-2'), '<=', clock_timestamp() + interval '1 second',
              'a change to the booking stamped ahead stamps it at the clock plus the lag') FROM fx;
SELECT is(webhook.booking_stamps_capped() - capped.before, 8::bigint, 'counted too') FROM capped;

SELECT * FROM finish();
ROLLBACK;
