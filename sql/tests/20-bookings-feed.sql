-- The bookings feed (spec: Booking, GET /bookings; docs/design.md, the feed's guarantee;
-- nullability: docs/integrating.md), through api.bookings_get as the gateway: each booking with exactly the spec's keys
-- and formats (money a two-decimal string, stays on the lot's wall clock, the lot's zone, UTC
-- timestamps with microseconds and Z, unknown values null, plates [] when none); only the caller's
-- operator's bookings, of every channel; order (change time, reference), so a change puts a booking
-- at the end and it is delivered again; `next` never passes the watermark (now minus the lag), rows
-- past it are returned but not committed to, and a token beyond it is clamped back; has_more only
-- when the page is full, next advanced to its last row and rows follow; following next visits every
-- booking. Open writers holding the watermark back: 21-bookings-open-writer.sql.
--
-- Bookings recorded in this transaction are stamped with the clock, after now(), so past any
-- watermark; tests.restamp_booking places them at chosen points an hour ago ("T0 + n seconds",
-- T0 = now() - 1 hour), before the watermark now() - 5 minutes of the default lag.
BEGIN;
SELECT plan(85);

-- The operators of this file, by letter: A (formats, scope), B (another operator), O (ordering),
-- W (watermark), H (has_more), V (walks). Each with a read_bookings credential and a lot l1.
CREATE TEMP TABLE ops (name text PRIMARY KEY, id uuid, bearer text);
INSERT INTO ops
SELECT v.name, o, tests.issue_credential(o, ARRAY['read_bookings'])
  FROM (VALUES ('A', 'Harbour Parking'), ('B', 'Quay Parking'), ('O', 'Order Parking'), ('W', 'Watermark Parking'),
               ('H', 'Paging Parking'), ('V', 'Walk Parking')) AS v(name, label),
       LATERAL tests.make_operator(v.label) AS o;
GRANT SELECT ON ops TO PUBLIC;

SELECT is_empty(
    $$SELECT ops.name FROM ops, tests.put_lot(tests.issue_credential(ops.id, ARRAY['write_supply']), 'l1', tests.lot_body()) AS p
       WHERE p.status <> 201$$,
    'the fixture: every operator''s lot l1 (Harbour Car Park, Europe/London)');
SELECT is((SELECT p.status FROM ops, tests.put_lot(tests.issue_credential(ops.id, ARRAY['write_supply']), 'pier',
                                                   tests.lot_body('{"name": "Pier Lot", "timezone": "America/New_York"}')) AS p
            WHERE ops.name = 'A'), 201,
          'the fixture: A''s lot pier (Pier Lot, America/New_York)');

-- An operator's id.
CREATE FUNCTION pg_temp.op(p_name text)
RETURNS uuid
LANGUAGE sql
AS $$
    SELECT id FROM ops WHERE name = p_name;
$$;

-- A booking of the operator recorded the platform's way: the test booking on lot p_lot with this
-- reference and p_overrides merged over it (keys in p_without removed); its reference.
CREATE FUNCTION pg_temp.record(p_name text, p_reference text, p_overrides jsonb DEFAULT '{}', p_lot text DEFAULT 'l1', p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.record_booking(pg_temp.op(p_name), tests.booking_body(p_lot, jsonb_build_object('reference', p_reference) || p_overrides, p_without));
$$;

-- The operator's booking placed in the feed at T0 + p_seconds (T0 = now() - 1 hour).
CREATE FUNCTION pg_temp.place(p_name text, p_reference text, p_seconds numeric)
RETURNS boolean
LANGUAGE sql
AS $$
    SELECT tests.restamp_booking(pg_temp.op(p_name), p_reference, now() - interval '1 hour' + p_seconds * interval '1 second');
$$;

-- One answer of GET /bookings for the operator: (status, body).
CREATE FUNCTION pg_temp.pull(p_name text, p_since text DEFAULT NULL, p_limit integer DEFAULT 500)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT g.status, g.body FROM ops, tests.get_bookings(ops.bearer, p_since, p_limit) AS g WHERE ops.name = p_name;
$$;

-- The references of one answer, in order.
CREATE FUNCTION pg_temp.refs(p_name text, p_since text DEFAULT NULL, p_limit integer DEFAULT 500)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'reference' FROM pg_temp.pull(p_name, p_since, p_limit) AS p, jsonb_array_elements(p.body -> 'bookings') AS e);
$$;

-- The position a token names, as text: a booking's reference, or `watermark` for the default lag's
-- watermark (now() - 5 minutes, before every reference), or the time and reference otherwise.
CREATE FUNCTION pg_temp.pos(p_token text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT CASE WHEN p.changed_at = now() - interval '5 minutes' AND p.reference = '' THEN 'watermark'
                WHEN EXISTS (SELECT FROM app.bookings AS bk WHERE bk.reference = p.reference AND bk.changed_at = p.changed_at) THEN p.reference
                ELSE format('%s|%s', p.changed_at, p.reference) END
      FROM tests.cursor_position(p_token) AS p;
$$;

-- One answer reduced to what paging is about: the references, has_more, and the position `next`
-- names (see pg_temp.pos).
CREATE FUNCTION pg_temp.page(p_name text, p_since text DEFAULT NULL, p_limit integer DEFAULT 500)
RETURNS text
LANGUAGE sql
AS $$
    SELECT format('%s has_more %s next %s',
                  ARRAY(SELECT e ->> 'reference' FROM jsonb_array_elements(p.body -> 'bookings') AS e),
                  p.body -> 'has_more', pg_temp.pos(p.body ->> 'next'))
      FROM pg_temp.pull(p_name, p_since, p_limit) AS p;
$$;

-- The `next` of one answer.
CREATE FUNCTION pg_temp.next(p_name text, p_since text DEFAULT NULL, p_limit integer DEFAULT 500)
RETURNS text
LANGUAGE sql
AS $$
    SELECT body ->> 'next' FROM pg_temp.pull(p_name, p_since, p_limit);
$$;

-- One booking as the operator's feed answers it (from the beginning, one page).
CREATE FUNCTION pg_temp.booking(p_name text, p_reference text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT e FROM pg_temp.pull(p_name) AS p, jsonb_array_elements(p.body -> 'bookings') AS e WHERE e ->> 'reference' = p_reference;
$$;

-- Every page from p_since with this limit, following next until has_more is false: the references
-- delivered, in order, and the last next.
CREATE FUNCTION pg_temp.walk(p_name text, p_since text, p_limit integer, OUT refs text[], OUT next text)
LANGUAGE plpgsql
AS $$
DECLARE
    v_body jsonb;
BEGIN
    refs := '{}';
    next := p_since;
    FOR i IN 1 .. 100 LOOP
        SELECT p.body INTO v_body FROM pg_temp.pull(p_name, next, p_limit) AS p;
        refs := refs || ARRAY(SELECT e ->> 'reference' FROM jsonb_array_elements(v_body -> 'bookings') AS e);
        next := v_body ->> 'next';
        EXIT WHEN NOT (v_body -> 'has_more')::boolean;
    END LOOP;
END
$$;

-- Field formats ---------------------------------------------------------------------------------------------------------

-- A's bookings, placed in this order, with B's interleaved.
SELECT is(ARRAY[
    pg_temp.record('A', 'FULL-1', '{"total": "40.5", "vehicle_plates": ["AB12 CDE", "XY 9"]}'),
    pg_temp.record('A', 'BARE-1', '{"total": 0, "channel": "direct", "check_in_local": "2026-11-01T01:30:00", "check_out_local": "2026-11-02T01:30:00",
                                   "parking_days": 1}', 'pier', ARRAY['external_reference', 'flight_number', 'customer', 'vehicle_plates']),
    pg_temp.record('A', 'GAP-1', '{"check_in_local": "2026-03-29T01:30:00", "check_out_local": "2026-03-30T01:30:00", "parking_days": 2, "channel": "phone"}'),
    pg_temp.record('A', 'CXL-1', '{"status": "cancelled", "payment_status": "refunded", "total": "9999999999.99"}'),
    pg_temp.record('A', 'PART-1', '{"customer": {"email": "x@example.test"}, "total": 48}'),
    pg_temp.record('B', 'FULL-1', '{"currency": "GBP"}'),
    pg_temp.record('B', 'QUAY-1')],
    ARRAY['FULL-1', 'BARE-1', 'GAP-1', 'CXL-1', 'PART-1', 'FULL-1', 'QUAY-1'],
    'the fixture: A''s bookings FULL-1, BARE-1, GAP-1, CXL-1, PART-1 and B''s FULL-1 and QUAY-1');
UPDATE app.bookings SET created_at = '2026-01-02 03:04:05+00', cancelled_at = '2026-01-02 03:04:05.5+02'
 WHERE operator_id = pg_temp.op('A') AND reference = 'CXL-1';
SELECT is(ARRAY[pg_temp.place('A', 'FULL-1', 1), pg_temp.place('B', 'FULL-1', 1.5), pg_temp.place('A', 'BARE-1', 2), pg_temp.place('A', 'GAP-1', 3),
                pg_temp.place('B', 'QUAY-1', 3.5), pg_temp.place('A', 'CXL-1', 4), pg_temp.place('A', 'PART-1', 5)],
          ARRAY[true, true, true, true, true, true, true],
          'the fixture: placed an hour ago in that order, B''s between A''s; CXL-1 created 2026-01-02 03:04:05 UTC, cancelled 01:04:05.5 UTC');

SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(pg_temp.booking('A', 'FULL-1')) ORDER BY 1)),
          ARRAY['cancelled_at', 'channel', 'check_in_local', 'check_out_local', 'created_at', 'currency', 'customer', 'external_reference',
                'flight_number', 'lot_external_id', 'lot_name', 'parking_days', 'payment_status', 'reference', 'status', 'timezone', 'total',
                'vehicle_plates'],
          'a booking has exactly the spec''s keys');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(pg_temp.booking('A', 'FULL-1')) ORDER BY 1)),
          ARRAY(SELECT name FROM app.booking_fields() ORDER BY 1),
          'the field registry (app.booking_fields, which the OpenAPI document reads) has exactly the feed''s keys');
SELECT is_empty(
    $$SELECT e ->> 'reference' FROM pg_temp.pull('A') AS p, jsonb_array_elements(p.body -> 'bookings') AS e
       WHERE ARRAY(SELECT jsonb_object_keys(e) ORDER BY 1) <> ARRAY(SELECT jsonb_object_keys(pg_temp.booking('A', 'FULL-1')) ORDER BY 1)
          OR ARRAY(SELECT jsonb_object_keys(e -> 'customer') ORDER BY 1) <> ARRAY['email', 'first_name', 'last_name', 'phone']$$,
    'every booking has all of them, whatever is unknown, and customer always has exactly first_name, last_name, email, phone');
SELECT is((SELECT jsonb_object_agg(k, jsonb_typeof(v)) FROM jsonb_each(pg_temp.booking('A', 'FULL-1')) AS x(k, v)),
          '{"reference": "string", "external_reference": "string", "lot_external_id": "string", "lot_name": "string", "timezone": "string",
            "check_in_local": "string", "check_out_local": "string", "parking_days": "number", "status": "string", "payment_status": "string",
            "currency": "string", "total": "string", "channel": "string", "flight_number": "string", "customer": "object",
            "vehicle_plates": "array", "created_at": "string", "cancelled_at": "null"}'::jsonb,
          'the JSON types: parking_days a number, total a string (never a float), customer an object, vehicle_plates an array');
SELECT is(pg_temp.booking('A', 'FULL-1') - 'created_at',
          '{"reference": "FULL-1", "external_reference": "OPS-1001", "lot_external_id": "l1", "lot_name": "Harbour Car Park",
            "timezone": "Europe/London", "check_in_local": "2026-03-10T08:00:00", "check_out_local": "2026-03-13T18:30:00", "parking_days": 4,
            "status": "confirmed", "payment_status": "paid", "currency": "EUR", "total": "40.50", "channel": "marketplace",
            "flight_number": "BA1234",
            "customer": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.test", "phone": "+44 20 7946 0000"},
            "vehicle_plates": ["AB12 CDE", "XY 9"], "cancelled_at": null}'::jsonb,
          'a complete booking reads back as recorded: total "40.50", stay on the wall clock, the lot''s name and zone, plates in order');
SELECT matches(pg_temp.booking('A', 'FULL-1') ->> 'created_at', '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$',
               'created_at is UTC with microseconds and Z (YYYY-MM-DDTHH:MM:SS.ffffffZ)');
SELECT is((pg_temp.booking('A', 'FULL-1') ->> 'created_at')::timestamptz, now(), 'created_at is when it was recorded');
SELECT is(pg_temp.booking('A', 'BARE-1') - ARRAY['reference', 'created_at', 'status', 'payment_status', 'currency'],
          '{"external_reference": null, "lot_external_id": "pier", "lot_name": "Pier Lot", "timezone": "America/New_York",
            "check_in_local": "2026-11-01T01:30:00", "check_out_local": "2026-11-02T01:30:00", "parking_days": 1, "total": "0.00",
            "channel": "direct", "flight_number": null,
            "customer": {"first_name": null, "last_name": null, "email": null, "phone": null},
            "vehicle_plates": [], "cancelled_at": null}'::jsonb,
          'a booking without them: external_reference, flight_number and every customer key null, plates [], total "0.00"; the pier lot''s zone');
SELECT is(pg_temp.booking('A', 'PART-1') -> 'customer', '{"first_name": null, "last_name": null, "email": "x@example.test", "phone": null}'::jsonb,
          'a customer with only an email: the other keys null');
SELECT is(pg_temp.booking('A', 'PART-1') -> 'total', '"48.00"'::jsonb, 'an integral total is "48.00"');
SELECT is(pg_temp.booking('A', 'CXL-1') -> 'total', '"9999999999.99"'::jsonb, 'the largest total is exact: "9999999999.99"');
SELECT is(pg_temp.booking('A', 'GAP-1') -> 'check_in_local', '"2026-03-29T01:30:00"'::jsonb,
          'a wall-clock time in the lot''s spring-forward gap is returned exactly as recorded, never converted');
SELECT is(pg_temp.booking('A', 'BARE-1') -> 'check_in_local', '"2026-11-01T01:30:00"'::jsonb,
          'and an ambiguous one (New York, fall back) likewise, with no offset');
SELECT is(ARRAY[pg_temp.booking('A', 'CXL-1') ->> 'status', pg_temp.booking('A', 'CXL-1') ->> 'payment_status'], ARRAY['cancelled', 'refunded'],
          'a cancelled booking reads status cancelled');

-- created_at and cancelled_at of CXL-1 read with the session in another zone.
CREATE FUNCTION pg_temp.cxl_times_in_chatham()
RETURNS text[]
LANGUAGE sql
SET TimeZone = 'Pacific/Chatham'
AS $$
    SELECT ARRAY[current_setting('TimeZone'), b ->> 'created_at', b ->> 'cancelled_at'] FROM pg_temp.booking('A', 'CXL-1') AS b;
$$;
SELECT is(pg_temp.cxl_times_in_chatham(), ARRAY['Pacific/Chatham', '2026-01-02T03:04:05.000000Z', '2026-01-02T01:04:05.500000Z'],
          'created_at and cancelled_at are UTC with six fractional digits and Z whatever the session''s zone');

-- Only the caller's operator's bookings, every channel ----------------------------------------------------------------

SELECT is(pg_temp.refs('A'), ARRAY['FULL-1', 'BARE-1', 'GAP-1', 'CXL-1', 'PART-1'], 'A reads its five bookings, in order, and none of B''s between them');
SELECT is(ARRAY(SELECT DISTINCT e ->> 'channel' FROM pg_temp.pull('A') AS p, jsonb_array_elements(p.body -> 'bookings') AS e ORDER BY 1),
          ARRAY['direct', 'marketplace', 'phone'], 'from every channel');
SELECT is(pg_temp.booking('A', 'FULL-1') ->> 'currency', 'EUR', 'A''s FULL-1 is A''s own (B holds a FULL-1 in GBP)');
SELECT is(pg_temp.refs('B'), ARRAY['FULL-1', 'QUAY-1'], 'B reads its own two');
SELECT is(pg_temp.booking('B', 'FULL-1') ->> 'currency', 'GBP', 'and its own FULL-1');
SELECT is(pg_temp.refs('O'), '{}'::text[], 'an operator without bookings reads none');

-- Order: (change time, reference); a change puts a booking at the end ----------------------------------------------------

SELECT is(ARRAY(SELECT pg_temp.record('O', r) FROM unnest(ARRAY['ORD-b', 'ORD-a', 'ORD-0', 'ORD-Z', 'ORD-B', 'ORD-1']) WITH ORDINALITY AS x(r, n) ORDER BY n),
          ARRAY['ORD-b', 'ORD-a', 'ORD-0', 'ORD-Z', 'ORD-B', 'ORD-1'], 'the fixture: O''s bookings, recorded in no order');
SELECT is(ARRAY[pg_temp.place('O', 'ORD-Z', 0), pg_temp.place('O', 'ORD-b', 1), pg_temp.place('O', 'ORD-a', 1), pg_temp.place('O', 'ORD-B', 1),
                pg_temp.place('O', 'ORD-1', 1), pg_temp.place('O', 'ORD-0', 2)], ARRAY[true, true, true, true, true, true],
          'the fixture: ORD-Z at T0, four changed at the same microsecond T0 + 1 s, ORD-0 at T0 + 2 s');
SELECT is(pg_temp.refs('O'), ARRAY['ORD-Z', 'ORD-1', 'ORD-B', 'ORD-a', 'ORD-b', 'ORD-0'],
          'bookings come in change order; a tie in byte order of the reference (digits, capitals, small letters)');
SELECT is((pg_temp.walk('O', NULL, 1)).refs, ARRAY['ORD-Z', 'ORD-1', 'ORD-B', 'ORD-a', 'ORD-b', 'ORD-0'],
          'one at a time through the tie, following next: each once, in the same order');
SELECT is((pg_temp.walk('O', NULL, 2)).refs, ARRAY['ORD-Z', 'ORD-1', 'ORD-B', 'ORD-a', 'ORD-b', 'ORD-0'], 'two at a time likewise');
CREATE TEMP TABLE o_saved AS SELECT (pg_temp.walk('O', NULL, 500)).next AS next;
GRANT SELECT ON o_saved TO PUBLIC;
SELECT is(pg_temp.pos(next), 'ORD-0', 'the saved next of the whole feed names its last booking (all before the watermark)') FROM o_saved;
SELECT tests.update_booking(pg_temp.op('O'), 'ORD-Z', '{"payment_status": "paid"}');
SELECT is(pg_temp.refs('O', next), '{}'::text[], 'an update that changes nothing does not put the booking back') FROM o_saved;
SELECT tests.update_booking(pg_temp.op('O'), 'ORD-1', '{"payment_status": "partial"}');
SELECT is(pg_temp.refs('O'), ARRAY['ORD-Z', 'ORD-B', 'ORD-a', 'ORD-b', 'ORD-0', 'ORD-1'], 'an update moves the booking to the end of the feed');
SELECT is(pg_temp.refs('O', next), ARRAY['ORD-1'], 'and the saved next delivers it again') FROM o_saved;
SELECT is((SELECT e ->> 'payment_status' FROM o_saved, pg_temp.pull('O', o_saved.next) AS p, jsonb_array_elements(p.body -> 'bookings') AS e),
          'partial', 'as it is now');
SELECT tests.update_booking(pg_temp.op('O'), 'ORD-Z', '{"status": "cancelled"}');
SELECT is(pg_temp.refs('O', next), ARRAY['ORD-1', 'ORD-Z'], 'a cancellation is a change too: ORD-Z comes again, after ORD-1') FROM o_saved;
SELECT isnt(pg_temp.booking('O', 'ORD-Z') -> 'cancelled_at', 'null'::jsonb, 'now with cancelled_at');
SELECT is(pg_temp.record('O', 'ORD-new'), 'ORD-new', 'the fixture: a new booking of O');
SELECT is(pg_temp.refs('O', next), ARRAY['ORD-1', 'ORD-Z', 'ORD-new'], 'a new booking comes after every earlier change') FROM o_saved;

-- The watermark: rows past it are returned, never committed to --------------------------------------------------------

SELECT is(ARRAY[pg_temp.record('W', 'W-1'), pg_temp.record('W', 'W-2')], ARRAY['W-1', 'W-2'], 'the fixture: W''s bookings W-1 and W-2, just recorded');
SELECT is(pg_temp.page('W'), '{W-1,W-2} has_more false next watermark',
          'with the default lag bookings just recorded are returned, has_more false, and next is the watermark (now - 5 minutes), before them');
SELECT cmp_ok((tests.cursor_position(pg_temp.next('W'))).changed_at, '<=', app.bookings_watermark(pg_temp.op('W')), 'next does not pass the watermark');
SELECT is(pg_temp.page('W', pg_temp.next('W')), '{W-1,W-2} has_more false next watermark', 'a second call with that next returns them again');
SELECT is(pg_temp.next('W', pg_temp.next('W')), pg_temp.next('W'), 'and answers the same next');
SELECT is(pg_temp.page('W', NULL, 1), '{W-1} has_more false next watermark',
          'a full page of them with more to follow is has_more false too: next stays at the watermark');

SELECT ok(pg_temp.place('W', 'W-1', 3480) AND pg_temp.place('W', 'W-2', 3540), 'the fixture: W-1 and W-2 moved to 2 and 1 minutes ago, after the watermark');
SELECT tests.set_bookings_watermark_lag('-1 hour');
CREATE TEMP TABLE beyond AS SELECT pg_temp.next('W') AS next;
GRANT SELECT ON beyond TO PUBLIC;
SELECT is(pg_temp.pos(next), 'W-2', 'with the lag set to -1 hour the watermark is later, and next names W-2') FROM beyond;
SELECT tests.set_bookings_watermark_lag('5 minutes');
SELECT is(pg_temp.page('W', next), '{W-1,W-2} has_more false next watermark',
          'with the lag back at 5 minutes that token is beyond the watermark: clamped back, W-1 and W-2 come again, next is the watermark') FROM beyond;
SELECT is(pg_temp.page('W', app.cursor_token(pg_temp.op('W'), now() + interval '1 day', 'ZZZ')), '{W-1,W-2} has_more false next watermark',
          'a token the service signed for a day ahead is clamped back to the watermark too');
SELECT is(pg_temp.page('W', app.cursor_token(pg_temp.op('W'), '2020-01-01', '')), '{W-1,W-2} has_more false next watermark',
          'an earlier token is not moved: it reads from where it is');

-- has_more -------------------------------------------------------------------------------------------------------------

SELECT is(ARRAY(SELECT pg_temp.record('H', 'H-' || n) FROM generate_series(1, 5) AS n ORDER BY n), ARRAY['H-1', 'H-2', 'H-3', 'H-4', 'H-5'],
          'the fixture: H''s bookings H-1..H-5');
SELECT ok(bool_and(pg_temp.place('H', 'H-' || n, n)), 'the fixture: placed at T0 + 1..5 s, before the watermark') FROM generate_series(1, 5) AS n;
SELECT is(pg_temp.page('H', NULL, 2), '{H-1,H-2} has_more true next H-2',
          'a full page before the watermark with rows to follow: has_more true, next at its last row');
SELECT is(pg_temp.page('H', pg_temp.next('H', NULL, 2), 2), '{H-3,H-4} has_more true next H-4', 'the next page likewise');
SELECT is(pg_temp.page('H', pg_temp.next('H', NULL, 4), 2), '{H-5} has_more false next H-5', 'a page that is not full: has_more false, next at its last row');
SELECT is(pg_temp.page('H', NULL, 5), '{H-1,H-2,H-3,H-4,H-5} has_more false next H-5',
          'a full page with nothing after it (exactly limit rows): has_more false');
SELECT is(pg_temp.page('H', NULL, 4), '{H-1,H-2,H-3,H-4} has_more true next H-4', 'one row less: has_more true');
SELECT is(pg_temp.page('H', pg_temp.next('H', NULL, 5), 5), '{} has_more false next H-5', 'after the last: no rows, has_more false, next stays');
SELECT is((SELECT p.body FROM pg_temp.pull('H', pg_temp.next('H', NULL, 5), 5) AS p),
          jsonb_build_object('bookings', '[]'::jsonb, 'next', pg_temp.next('H', NULL, 5), 'has_more', false),
          'the empty tail: no bookings, has_more false, and next the very token sent');
SELECT is(pg_temp.page('H', app.cursor_token(pg_temp.op('H'), now() + interval '1 day', 'ZZZ'), 5), '{} has_more false next watermark',
          'an empty tail beyond the watermark is still clamped back: next is the watermark, not the token sent');
SELECT is(ARRAY[pg_temp.record('H', 'H-6'), pg_temp.record('H', 'H-7')], ARRAY['H-6', 'H-7'], 'the fixture: H-6 and H-7 just recorded, after the watermark');
SELECT is(pg_temp.page('H', NULL, 5), '{H-1,H-2,H-3,H-4,H-5} has_more true next H-5',
          'a full page before the watermark followed by rows past it: has_more true');
SELECT is(pg_temp.page('H', NULL, 6), '{H-1,H-2,H-3,H-4,H-5,H-6} has_more false next watermark',
          'a full page that reached past the watermark: has_more false though H-7 follows, next at the watermark');
SELECT is(pg_temp.page('H', pg_temp.next('H', NULL, 5), 1), '{H-6} has_more false next watermark', 'one row past the watermark, H-7 after it: has_more false');
SELECT is(pg_temp.next('H', pg_temp.next('H', pg_temp.next('H', NULL, 5), 1), 1), pg_temp.next('H', pg_temp.next('H', NULL, 5), 1),
          'and the call from that next answers the same page and the same next: a client waits, it never spins');
SELECT is(pg_temp.page('H', pg_temp.next('H', NULL, 5), 2), '{H-6,H-7} has_more false next watermark', 'a page holding all rows past the watermark: has_more false');

-- Following next visits every booking ------------------------------------------------------------------------------------

SELECT is(ARRAY(SELECT pg_temp.record('V', format('V-%s', lpad(n::text, 2, '0'))) FROM generate_series(1, 12) AS n ORDER BY n),
          ARRAY(SELECT format('V-%s', lpad(n::text, 2, '0')) FROM generate_series(1, 12) AS n ORDER BY n), 'the fixture: V''s bookings V-01..V-12');
SELECT ok(bool_and(pg_temp.place('V', format('V-%s', lpad(n::text, 2, '0')), CASE WHEN n <= 4 THEN 1 WHEN n = 5 THEN 2 WHEN n <= 8 THEN 3 ELSE n - 5 END)),
          'the fixture: placed before the watermark, V-01..V-04 tied, V-06..V-08 tied, the rest one second apart') FROM generate_series(1, 12) AS n;
CREATE TEMP TABLE v_all AS SELECT ARRAY(SELECT format('V-%s', lpad(n::text, 2, '0')) FROM generate_series(1, 12) AS n ORDER BY n) AS refs;
GRANT SELECT ON v_all TO PUBLIC;
SELECT is((pg_temp.walk('V', NULL, l)).refs, refs, format('following next with limit %s until has_more is false visits every booking once, in order', l))
  FROM v_all, unnest(ARRAY[1, 2, 3, 4, 5, 11, 12, 13, 500]) WITH ORDINALITY AS x(l, n) ORDER BY n;
SELECT is(pg_temp.pos((pg_temp.walk('V', NULL, 5)).next), 'V-12', 'the walk''s last next names the last booking');

CREATE TEMP TABLE v_first AS SELECT pg_temp.refs('V', NULL, 5) AS refs, pg_temp.next('V', NULL, 5) AS next;
GRANT SELECT ON v_first TO PUBLIC;
SELECT tests.update_booking(pg_temp.op('V'), 'V-02', '{"payment_status": "partial"}');
SELECT tests.update_booking(pg_temp.op('V'), 'V-09', '{"payment_status": "refunded"}');
CREATE TEMP TABLE v_rest AS SELECT (pg_temp.walk('V', next, 5)).refs FROM v_first;
GRANT SELECT ON v_rest TO PUBLIC;
SELECT is(refs, ARRAY['V-06', 'V-07', 'V-08', 'V-10', 'V-11', 'V-12', 'V-02', 'V-09'],
          'bookings changed during a walk (V-02 delivered, V-09 not yet): the rest of the walk delivers both after the others') FROM v_rest;
SELECT is_empty($$SELECT unnest(refs) FROM v_all EXCEPT SELECT unnest(v_first.refs || v_rest.refs) FROM v_first, v_rest$$,
                'the walk visited every booking at least once: none skipped');
SELECT is((SELECT e ->> 'payment_status' FROM v_first, pg_temp.pull('V', v_first.next, 500) AS p, jsonb_array_elements(p.body -> 'bookings') AS e
            WHERE e ->> 'reference' = 'V-09'),
          'refunded', 'V-09 is delivered in its changed state');
SELECT is((SELECT count(*) FROM v_first, v_rest, unnest(v_first.refs || v_rest.refs) AS r WHERE r = 'V-09'), 1::bigint,
          'and once: its old position was never reached before the change');

-- A walk over bookings past the watermark: those that do not fit its last page wait, none is passed.
SELECT is((pg_temp.walk('H', NULL, 4)).refs, ARRAY['H-1', 'H-2', 'H-3', 'H-4', 'H-5', 'H-6', 'H-7'],
          'following next with limit 4 over H visits all seven, the two past the watermark on its last page');
SELECT is((pg_temp.walk('H', NULL, 1)).refs, ARRAY['H-1', 'H-2', 'H-3', 'H-4', 'H-5', 'H-6'],
          'with limit 1 the walk stops at H-6, the first past the watermark (has_more false)');
SELECT is(pg_temp.page('H', (pg_temp.walk('H', NULL, 1)).next, 500), '{H-6,H-7} has_more false next watermark',
          'and its last next is the watermark, before H-6 and H-7: the next pull delivers both');

SELECT * FROM finish();
ROLLBACK;
