-- overlapping_bookings (spec: GET /lots/{external_id}/blocked-periods): each closure's count of the
-- lot's bookings, of every channel and every status but cancelled (a completed stay counts), whose
-- stay touches the period, inclusive on the lot's own calendar dates (the bookings' wall-clock
-- check-in and check-out dates): checking out on the first day or in on the last day counts. Only a
-- count: no reference, name, plate or date. Bookings are recorded through platform.booking_record and
-- each case is undone before the next (bookings cannot be deleted).
BEGIN;
SELECT plan(42);

CREATE TEMP TABLE fx AS
SELECT a, b, tests.issue_credential(a, ARRAY['read_supply', 'write_supply']) AS bearer,
       tests.issue_credential(b, ARRAY['read_supply', 'write_supply']) AS b_bearer
  FROM tests.make_operator('Harbour Parking') AS a, tests.make_operator('Quay Parking') AS b;
GRANT SELECT ON fx TO PUBLIC;

SELECT is_empty(
    $$SELECT l.id FROM fx, (VALUES ('closed'), ('other')) AS l(id), tests.put_lot(fx.bearer, l.id, tests.lot_body()) AS p WHERE p.status <> 201$$,
    'the fixture: A''s lots closed and other');
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'closed', tests.lot_body()) AS p), 201,
          'the fixture: B''s own lot closed (the same external id)');
SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20", "reason": "Works"}]}') AS p), 201,
          'the fixture: A''s lot closed is closed 2026-03-10 to 2026-03-20, both inclusive');
SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.bearer, 'other',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20"}]}') AS p), 201,
          'the fixture: A''s lot other is closed the same days');
SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.b_bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20"}]}') AS p), 201,
          'the fixture: B''s lot closed is closed the same days');

-- GET the closures of a lot of A; the body.
CREATE FUNCTION pg_temp.get(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT g.body FROM fx, tests.get_blocked_periods(fx.bearer, p_external_id) AS g;
$$;

-- The overlapping_bookings of A's lot closed, one per closure earliest first, after p_sql ran (as the
-- superuser); p_sql's work is undone before returning.
CREATE FUNCTION pg_temp.counts_after(p_sql text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_counts jsonb;
BEGIN
    EXECUTE p_sql;
    v_counts := (SELECT jsonb_agg(e -> 'overlapping_bookings') FROM jsonb_array_elements(pg_temp.get('closed') -> 'blocked_periods') AS e);
    RAISE EXCEPTION USING ERRCODE = 'PUNDO', MESSAGE = v_counts::text;
EXCEPTION
    WHEN SQLSTATE 'PUNDO' THEN
        RETURN SQLERRM::jsonb;
END
$$;

-- A booking of A's lot closed for this stay (local wall-clock date-times), with p_more merged over it.
CREATE FUNCTION pg_temp.stay(p_in text, p_out text, p_more jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT tests.booking_body('closed', jsonb_build_object('check_in_local', p_in, 'check_out_local', p_out) || p_more);
$$;

-- The count of A's closure 2026-03-10..2026-03-20 with one booking of this stay recorded.
CREATE FUNCTION pg_temp.count_for(p_in text, p_out text, p_more jsonb DEFAULT '{}')
RETURNS integer
LANGUAGE sql
AS $$
    SELECT (pg_temp.counts_after(format('SELECT tests.record_booking(a, %L) FROM fx', pg_temp.stay(p_in, p_out, p_more))) ->> 0)::integer;
$$;

-- The edges, inclusive on calendar dates --------------------------------------------------------------------------------

SELECT is(pg_temp.counts_after('SELECT 1'), '[0]'::jsonb, 'without bookings the count is 0');
SELECT is(pg_temp.count_for('2026-03-05T10:00:00', '2026-03-10T00:00:00'), 1, 'a stay checking out at midnight starting the first day counts');
SELECT is(pg_temp.count_for('2026-03-05T10:00:00', '2026-03-10T09:00:00'), 1, 'a stay checking out on the first day counts');
SELECT is(pg_temp.count_for('2026-03-05T10:00:00', '2026-03-09T23:59:59'), 0, 'a stay checking out the day before (23:59:59) does not count');
SELECT is(pg_temp.count_for('2026-03-20T23:59:59', '2026-03-22T08:00:00'), 1, 'a stay checking in on the last day (23:59:59) counts');
SELECT is(pg_temp.count_for('2026-03-20T00:00:00', '2026-03-22T08:00:00'), 1, 'a stay checking in at the start of the last day counts');
SELECT is(pg_temp.count_for('2026-03-21T00:00:00', '2026-03-22T08:00:00'), 0, 'a stay checking in the day after does not count');
SELECT is(pg_temp.count_for('2026-03-01T08:00:00', '2026-03-31T08:00:00'), 1, 'a stay spanning the whole period counts');
SELECT is(pg_temp.count_for('2026-03-12T08:00:00', '2026-03-14T08:00:00'), 1, 'a stay inside the period counts');
SELECT is(pg_temp.count_for('2026-03-15T08:00:00', '2026-03-15T09:00:00'), 1, 'a stay of an hour inside the period counts');
SELECT is(pg_temp.count_for('2026-03-01T08:00:00', '2026-03-02T08:00:00'), 0, 'a stay well before the period does not count');
SELECT is(pg_temp.count_for('2026-04-01T08:00:00', '2026-04-02T08:00:00'), 0, 'a stay well after the period does not count');
SELECT is(pg_temp.count_for('2024-03-01T08:00:00', '2026-03-10T08:00:00'), 1,
          'a stay of two years checking out on the first day counts (the index range reaches back the longest stay)');
SELECT is(pg_temp.counts_after(format($$SELECT tests.record_booking(a, %L), tests.record_booking(a, %L), tests.record_booking(a, %L) FROM fx$$,
              pg_temp.stay('2025-01-01T08:00:00', '2026-03-20T08:00:00'), pg_temp.stay('2026-03-08T08:00:00', '2026-03-09T08:00:00'),
              pg_temp.stay('2026-03-01T08:00:00', '2026-03-02T08:00:00'))),
          '[1]'::jsonb, 'beside short stays, a long one that checked in 14 months before the period counts and the short ones before it do not');

-- Statuses and channels ----------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE statuses (n integer, status text, counted integer);
INSERT INTO statuses VALUES (1, 'pending', 1), (2, 'confirmed', 1), (3, 'checked_in', 1), (4, 'completed', 1), (5, 'cancelled', 0);
SELECT is(pg_temp.count_for('2026-03-12T08:00:00', '2026-03-14T08:00:00', jsonb_build_object('status', status)), counted,
          format('a booking with status %s %s', status, CASE WHEN counted = 1 THEN 'counts' ELSE 'does not count' END))
  FROM statuses ORDER BY n;
SELECT is(pg_temp.count_for('2026-03-12T08:00:00', '2026-03-14T08:00:00', '{"channel": "direct", "payment_status": "not_required"}'), 1,
          'a booking of another channel (the operator''s own direct sale) counts');
SELECT is(pg_temp.count_for('2026-03-12T08:00:00', '2026-03-14T08:00:00', '{"channel": "phone", "payment_status": "pending"}'), 1,
          'a booking of any channel counts');
SELECT is(pg_temp.count_for('2026-03-12T08:00:00', '2026-03-14T08:00:00', '{"payment_status": "refunded"}'), 1,
          'the payment status does not matter (refunded but not cancelled counts)');

-- Only this lot's bookings, and each one ------------------------------------------------------------------------------------------

SELECT is(pg_temp.counts_after($$SELECT tests.record_booking(a, tests.booking_body('other')) FROM fx$$), '[0]'::jsonb,
          'a booking of another lot of the operator over the same days does not count');
SELECT is(pg_temp.counts_after($$SELECT tests.record_booking(b, tests.booking_body('closed')) FROM fx$$), '[0]'::jsonb,
          'a booking of another operator''s lot with the same external id does not count');
SELECT is(pg_temp.counts_after(format($$SELECT tests.record_booking(a, %L), tests.record_booking(a, %L), tests.record_booking(a, %L) FROM fx$$,
                                      pg_temp.stay('2026-03-09T08:00:00', '2026-03-10T08:00:00'),
                                      pg_temp.stay('2026-03-20T08:00:00', '2026-03-25T08:00:00'),
                                      pg_temp.stay('2026-03-12T08:00:00', '2026-03-13T08:00:00', '{"status": "cancelled"}'))),
          '[2]'::jsonb, 'three bookings, one cancelled: the count is 2 (a count, not a flag)');

-- A status change moves the count -----------------------------------------------------------------------------------------------------

SELECT is(pg_temp.counts_after(format($$SELECT tests.update_booking(a, tests.record_booking(a, %L), '{"status": "confirmed"}') FROM fx$$,
                                      pg_temp.stay('2026-03-12T08:00:00', '2026-03-13T08:00:00', '{"status": "cancelled"}'))),
          '[1]'::jsonb, 'a cancelled booking un-cancelled counts again');
SELECT is(pg_temp.counts_after(format($$SELECT tests.update_booking(a, tests.record_booking(a, %L), '{"status": "cancelled"}') FROM fx$$,
                                      pg_temp.stay('2026-03-12T08:00:00', '2026-03-13T08:00:00'))),
          '[0]'::jsonb, 'a confirmed booking then cancelled no longer counts');
SELECT is(pg_temp.counts_after(format($$SELECT tests.update_booking(a, tests.record_booking(a, %L), '{"check_in_local": "2026-04-01T08:00:00", "check_out_local": "2026-04-02T08:00:00"}') FROM fx$$,
                                      pg_temp.stay('2026-03-12T08:00:00', '2026-03-13T08:00:00'))),
          '[0]'::jsonb, 'a booking moved out of the period no longer counts');
SELECT is(pg_temp.counts_after(format($$SELECT tests.update_booking(a, tests.record_booking(a, %L), '{"lot_external_id": "other"}') FROM fx$$,
                                      pg_temp.stay('2026-03-12T08:00:00', '2026-03-13T08:00:00'))),
          '[0]'::jsonb, 'a booking moved to another lot no longer counts here');

-- Several closures: each has its own count ---------------------------------------------------------------------------------------------

SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20", "reason": "Works"}, {"starts_on": "2026-03-01", "ends_on": "2026-03-05"},
                                    {"starts_on": "2026-06-01", "ends_on": "2026-06-30"}]}') AS p), 200,
          'the fixture: two more closures, 2026-03-01..05 and 2026-06-01..30');
SELECT is(pg_temp.counts_after(format($$SELECT tests.record_booking(a, %L), tests.record_booking(a, %L) FROM fx$$,
                                      pg_temp.stay('2026-03-04T08:00:00', '2026-03-11T08:00:00'), pg_temp.stay('2026-03-06T08:00:00', '2026-03-09T20:00:00'))),
          '[1, 1, 0]'::jsonb, 'a stay touching two closures counts in both; a stay between them in neither (earliest first)');

-- The count carries nothing else, and is fresh on every read ------------------------------------------------------------------------------

CREATE TEMP TABLE kept AS
SELECT tests.record_booking(a, pg_temp.stay('2026-03-12T08:00:00', '2026-03-14T08:00:00', '{"external_reference": "OPS-77"}')) AS reference FROM fx;
CREATE TEMP TABLE got AS SELECT pg_temp.get('closed') AS body;
SELECT is((SELECT body -> 'blocked_periods' FROM got),
          '[{"starts_on": "2026-03-01", "ends_on": "2026-03-05", "reason": null, "overlapping_bookings": 0},
            {"starts_on": "2026-03-10", "ends_on": "2026-03-20", "reason": "Works", "overlapping_bookings": 1},
            {"starts_on": "2026-06-01", "ends_on": "2026-06-30", "reason": null, "overlapping_bookings": 0}]'::jsonb,
          'with a booking kept, GET counts it in the one closure its stay touches');
SELECT is_empty(
    $$SELECT e FROM got, jsonb_array_elements(body -> 'blocked_periods') AS e
       WHERE ARRAY(SELECT jsonb_object_keys(e) ORDER BY 1) <> ARRAY['ends_on', 'overlapping_bookings', 'reason', 'starts_on']
          OR jsonb_typeof(e -> 'overlapping_bookings') <> 'number'$$,
    'each entry has exactly starts_on, ends_on, reason, overlapping_bookings, the count a JSON number');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM got), ARRAY['blocked_periods', 'external_id'],
          'the answer has exactly external_id and blocked_periods');
SELECT is_empty(
    $$SELECT w FROM got, kept, unnest(ARRAY[kept.reference, 'OPS-77', 'AB12 CDE', 'Lovelace', 'Ada', 'ada@example.test', 'BA1234', '2026-03-12', '2026-03-14']) AS w
       WHERE strpos(got.body::text, w) > 0$$,
    'the answer carries no reference, external reference, plate, name, email, flight or stay date of the booking');
SELECT is((SELECT p.body -> 'blocked_periods' FROM fx, tests.put_blocked_periods(fx.bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20", "reason": "Works"}, {"starts_on": "2026-03-01", "ends_on": "2026-03-05"},
                                    {"starts_on": "2026-06-01", "ends_on": "2026-06-30"}]}') AS p),
          (SELECT body -> 'blocked_periods' FROM got), 'an unchanged PUT reads the list back with the fresh counts too');
SELECT is((SELECT p.body -> 'blocked_periods' -> 0 ->> 'overlapping_bookings' FROM fx, tests.put_blocked_periods(fx.bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-14", "ends_on": "2026-03-14"}]}') AS p),
          '1', 'a changed PUT reads back the fresh count of the new closure (the kept booking checks out on its day)');

SELECT * FROM finish();
ROLLBACK;
