-- A booking's stamp never goes back for its operator (app.booking_stamp_change; docs/design.md,
-- the feed's guarantee): a change is stamped with the clock, or just after the operator's latest
-- stamp when that is later. After a failover, a promoted node whose clock is behind the old
-- primary's would otherwise stamp changes before cursors the old primary handed out, and they
-- would be skipped. The old primary's clock is played here by a booking placed an hour ahead of
-- this server's. (A cursor cannot point past this transaction's own start, which holds the
-- watermark: the cursor across a real failover is the integration test `failover`.)
BEGIN;
SELECT plan(7);

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

SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-0"}')) FROM fx;
SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-1"}')) FROM fx;
SELECT ok(tests.restamp_booking(op, 'C-1', now() + interval '1 hour'), 'C-1 stamped by a clock an hour ahead') FROM fx;

SELECT tests.record_booking(op, tests.booking_body('l1', '{"reference": "C-2"}')) FROM fx;
SELECT is(pg_temp.stamp(op, 'C-2'), pg_temp.stamp(op, 'C-1') + interval '1 microsecond',
          'a booking recorded after it is stamped just after C-1, not by the clock behind it') FROM fx;
SELECT tests.update_booking(op, 'C-0', '{"status": "cancelled"}') FROM fx;
SELECT is(pg_temp.stamp(op, 'C-0'), pg_temp.stamp(op, 'C-2') + interval '1 microsecond',
          'a change to an older booking is stamped after the latest stamp too') FROM fx;

SELECT is(ARRAY(SELECT e ->> 'reference'
                  FROM fx, tests.get_bookings(tests.issue_credential(fx.op, ARRAY['read_bookings']), NULL, 500) AS g,
                       jsonb_array_elements(g.body -> 'bookings') AS e),
          ARRAY['C-1', 'C-2', 'C-0'],
          'the feed delivers both after C-1: a cursor handed out at C-1 would not pass them');

SELECT tests.record_booking(other, tests.booking_body('l1', '{"reference": "O-1"}')) FROM fx;
SELECT cmp_ok(pg_temp.stamp(other, 'O-1'), '<', now() + interval '1 hour',
              'another operator''s stamps follow its own latest stamp and the clock, not this one''s') FROM fx;
SELECT cmp_ok(pg_temp.stamp(other, 'O-1'), '>=', now(), 'and are the clock when nothing of its own is later') FROM fx;

SELECT * FROM finish();
ROLLBACK;
