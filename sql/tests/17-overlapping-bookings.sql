-- overlapping_bookings (spec: GET /lots/{external_id}/blocked-periods): each closure's count of the
-- lot's bookings, of every channel and every status but cancelled (a completed stay counts), whose
-- stay touches the period, inclusive on the lot's own calendar dates (the bookings' wall-clock
-- check-in and check-out dates): checking out on the first day or in on the last day counts. Only a
-- count: no reference, name, plate or date. Bookings are recorded through platform.booking_record and
-- each case is undone before the next (bookings cannot be deleted).
BEGIN;
SELECT plan(63);

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
          'a stay of two years checking out on the first day counts, however long ago it checked in');
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

-- The counts come from per-day counts kept by the bookings' triggers (V12): every kind of write moves them --------------------

SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.bearer, 'closed',
              '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-20", "reason": "Works"}, {"starts_on": "2026-03-01", "ends_on": "2026-03-05"},
                                    {"starts_on": "2026-06-01", "ends_on": "2026-06-30"}]}') AS p), 200,
          'the fixture: the three closures again (the kept booking, 03-12 to 03-14, touches the second)');

-- A booking of A recorded with this body, then changed by each change in turn; its reference.
CREATE FUNCTION pg_temp.record_then(p_booking jsonb, VARIADIC p_changes jsonb[] DEFAULT '{}')
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_reference text := (SELECT tests.record_booking(a, p_booking) FROM fx);
    v_change jsonb;
BEGIN
    FOREACH v_change IN ARRAY p_changes LOOP
        PERFORM tests.update_booking(a, v_reference, v_change) FROM fx;
    END LOOP;
    RETURN v_reference;
END
$$;

-- The counts of A's lot closed after recording this booking and making these changes.
CREATE FUNCTION pg_temp.counts_with(p_booking jsonb, VARIADIC p_changes jsonb[] DEFAULT '{}')
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT pg_temp.counts_after(format('SELECT pg_temp.record_then(%L, VARIADIC %L::jsonb[])', p_booking, p_changes));
$$;

SELECT is(pg_temp.counts_after('SELECT 1'), '[0, 1, 0]'::jsonb, 'before each case: the kept booking counts in the second closure');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-10T08:00:00', '2026-03-10T20:00:00')), '[0, 2, 0]'::jsonb,
          'a stay within the first day of a closure (in and out the same day) counts once');
SELECT is(pg_temp.counts_after(format($$SELECT tests.record_booking(a, %L), tests.record_booking(a, %L), tests.record_booking(a, %L) FROM fx$$,
              pg_temp.stay('2026-03-15T08:00:00', '2026-03-16T08:00:00'), pg_temp.stay('2026-03-15T09:00:00', '2026-03-17T08:00:00'),
              pg_temp.stay('2026-03-15T10:00:00', '2026-03-15T11:00:00'))),
          '[0, 4, 0]'::jsonb, 'three bookings checking in the same day each count');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-01T08:00:00', '2026-03-02T08:00:00'), '{"check_out_local": "2026-03-10T07:00:00"}'),
          '[1, 2, 0]'::jsonb, 'a stay in the first closure whose check-out moves to the first day of the second counts in both');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-06T08:00:00', '2026-03-09T20:00:00')), '[0, 1, 0]'::jsonb,
          'a stay between two closures counts in neither');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-06T08:00:00', '2026-03-09T20:00:00'), '{"check_out_local": "2026-03-10T07:00:00"}'),
          '[0, 2, 0]'::jsonb, 'the same stay with its check-out moved onto the first day of the next closure counts there');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-04-01T08:00:00', '2026-04-02T08:00:00'),
                              '{"check_in_local": "2026-03-15T08:00:00", "check_out_local": "2026-03-16T08:00:00"}'),
          '[0, 2, 0]'::jsonb, 'a booking moved into a closure counts');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-15T08:00:00', '2026-03-16T08:00:00'), '{"check_in_local": "2026-03-15T23:00:00"}'),
          '[0, 2, 0]'::jsonb, 'a check-in moved within its day changes nothing');
SELECT is(pg_temp.counts_with(tests.booking_body('other', '{"check_in_local": "2026-03-15T08:00:00", "check_out_local": "2026-03-16T08:00:00"}'),
                              '{"lot_external_id": "closed"}'),
          '[0, 2, 0]'::jsonb, 'a booking moved from another lot onto this one counts here');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-04-01T08:00:00', '2026-04-02T08:00:00', '{"status": "cancelled"}'),
                              '{"check_in_local": "2026-03-15T08:00:00", "check_out_local": "2026-03-16T08:00:00"}'),
          '[0, 1, 0]'::jsonb, 'a cancelled booking moved into a closure still does not count');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-04-01T08:00:00', '2026-04-02T08:00:00', '{"status": "cancelled"}'),
                              '{"check_in_local": "2026-03-15T08:00:00", "check_out_local": "2026-03-16T08:00:00"}', '{"status": "pending"}'),
          '[0, 2, 0]'::jsonb, 'a cancelled booking moved while cancelled, then un-cancelled, counts at its new days');
SELECT is(pg_temp.counts_with(pg_temp.stay('2026-03-15T08:00:00', '2026-03-16T08:00:00', '{"status": "pending"}'), '{"status": "completed"}'),
          '[0, 2, 0]'::jsonb, 'a status change between statuses that count keeps the count');
SELECT is(pg_temp.counts_with(pg_temp.stay('2025-12-01T08:00:00', '2026-07-15T08:00:00')), '[1, 2, 1]'::jsonb,
          'a stay of seven months counts in every closure it spans');
SELECT is(pg_temp.counts_with(pg_temp.stay('2025-12-01T08:00:00', '2026-07-15T08:00:00'), '{"status": "cancelled"}'), '[0, 1, 0]'::jsonb,
          'the same stay cancelled counts nowhere');
SELECT is(pg_temp.counts_after(format($$SELECT tests.record_booking(a, %L), tests.record_booking(a, %L) FROM fx$$,
              pg_temp.stay('2026-02-20T08:00:00', '2026-03-01T00:00:00'), pg_temp.stay('2026-06-30T23:59:59', '2026-07-02T08:00:00'))),
          '[1, 1, 1]'::jsonb, 'a stay checking out on the first closure''s first day and one checking in on the last closure''s last day count');
-- A plain UPDATE of A's booking p_reference (as the superuser, not through the platform's function): SET p_set.
CREATE FUNCTION pg_temp.plain_update(p_reference text, p_set text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format('UPDATE app.bookings AS b SET %s FROM fx WHERE b.operator_id = fx.a AND b.reference = %L', p_set, p_reference);
END
$$;
SELECT is(pg_temp.counts_after(format($$SELECT pg_temp.plain_update(pg_temp.record_then(%L),
                                          'lot_id = (SELECT o.id FROM app.lots AS o WHERE o.operator_id = fx.a AND o.external_id = ''other'')')$$,
                                      pg_temp.stay('2026-03-15T08:00:00', '2026-03-16T08:00:00'))),
          '[0, 1, 0]'::jsonb, 'a booking moved to another lot by a plain UPDATE (not the platform''s function) no longer counts');
SELECT is(pg_temp.counts_after($$SELECT pg_temp.plain_update(reference, 'status = ''cancelled'', cancelled_at = now()') FROM kept$$),
          '[0, 0, 0]'::jsonb, 'the kept booking cancelled by a plain UPDATE no longer counts');

-- After a series of writes of every kind on A's two lots, the day counts are those of the bookings themselves,
-- and each closure's count is the spec's definition read from the bookings directly.
SELECT pg_temp.record_then(tests.booking_body(lot, jsonb_build_object(
           'check_in_local', to_char(timestamp '2026-02-20 06:00' + make_interval(hours => 7 * i), 'YYYY-MM-DD"T"HH24:MI:SS'),
           'check_out_local', to_char(timestamp '2026-02-20 06:00' + make_interval(hours => 7 * i + 1 + (i * 37) % (24 * 20)), 'YYYY-MM-DD"T"HH24:MI:SS'),
           'status', (ARRAY['pending', 'confirmed', 'checked_in', 'completed', 'cancelled'])[1 + i % 5])),
       VARIADIC CASE i % 6
           WHEN 0 THEN ARRAY['{"status": "cancelled"}'::jsonb]
           WHEN 1 THEN ARRAY[jsonb_build_object('lot_external_id', CASE lot WHEN 'closed' THEN 'other' ELSE 'closed' END)]
           WHEN 2 THEN ARRAY[jsonb_build_object('check_out_local', to_char(timestamp '2026-02-20 07:00' + make_interval(days => i % 30, hours => 7 * i), 'YYYY-MM-DD"T"HH24:MI:SS'))]
           WHEN 3 THEN ARRAY['{"status": "confirmed"}'::jsonb, '{"lot_external_id": "closed"}'::jsonb]
           ELSE '{}'::jsonb[]
       END)
  FROM generate_series(1, 240) AS i, LATERAL (SELECT CASE WHEN i % 3 = 0 THEN 'other' ELSE 'closed' END AS lot) AS l;
SELECT is_empty(
    $$WITH recount AS (
          SELECT e.operator_id, e.lot_id, e.day, sum(e.check_ins) AS check_ins, sum(e.check_outs) AS check_outs
            FROM (SELECT b.operator_id, b.lot_id, b.check_in_local::date AS day, 1 AS check_ins, 0 AS check_outs
                    FROM app.bookings AS b WHERE b.status <> 'cancelled'
                  UNION ALL
                  SELECT b.operator_id, b.lot_id, b.check_out_local::date, 0, 1
                    FROM app.bookings AS b WHERE b.status <> 'cancelled') AS e
           GROUP BY 1, 2, 3)
      SELECT operator_id, lot_id, day, r.check_ins, r.check_outs, d.check_ins, d.check_outs
        FROM recount AS r
        FULL JOIN (SELECT k.operator_id, k.lot_id, k.day, sum(k.check_ins) AS check_ins, sum(k.check_outs) AS check_outs
                     FROM app.lot_booking_days AS k GROUP BY 1, 2, 3) AS d USING (operator_id, lot_id, day)
       WHERE coalesce(r.check_ins, 0) <> coalesce(d.check_ins, 0) OR coalesce(r.check_outs, 0) <> coalesce(d.check_outs, 0)$$,
    'after 240 bookings recorded, cancelled, moved between lots and in time, the day counts equal a recount of the bookings');
SELECT is(pg_temp.get('closed') -> 'blocked_periods',
          (SELECT jsonb_agg(jsonb_build_object('starts_on', p.starts_on, 'ends_on', p.ends_on, 'reason', p.reason,
                                               'overlapping_bookings', (SELECT count(*) FROM app.bookings AS b
                                                                         WHERE b.operator_id = p.operator_id AND b.lot_id = p.lot_id AND b.status <> 'cancelled'
                                                                           AND b.check_in_local::date <= p.ends_on AND b.check_out_local::date >= p.starts_on))
                            ORDER BY p.starts_on)
             FROM app.lot_blocked_periods AS p JOIN app.lots AS l ON l.operator_id = p.operator_id AND l.id = p.lot_id, fx
            WHERE l.operator_id = fx.a AND l.external_id = 'closed'),
          'and GET answers, for each closure, the count of the spec''s definition read from the bookings');
SELECT cmp_ok((pg_temp.get('closed') -> 'blocked_periods' -> 1 ->> 'overlapping_bookings')::integer, '>', 20,
              '(the comparison is not vacuous: the second closure counts more than 20 of them)');

SELECT * FROM finish();
ROLLBACK;
