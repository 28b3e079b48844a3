-- Bookings as the platform records them (spec: Booking; docs/reference/sql-interfaces.md
-- platform.booking_record and platform.booking_update, §5 booking nullability), as role
-- platform_service: the reference (generated when absent, unique per operator), every key validated
-- with a PT422 naming it (and a refusal changes nothing), nullability, cancelled_at, any field
-- change, changed_at stamped on every insert and update (the feed's order) and on no update that
-- changes nothing; bookings are never deleted, and a lot that has ever taken a booking can never be
-- deleted, by anyone.
BEGIN;
SELECT plan(206);

CREATE TEMP TABLE fx AS
SELECT a, b, tests.issue_credential(a, ARRAY['write_supply']) AS bearer, tests.issue_credential(b, ARRAY['write_supply']) AS b_bearer
  FROM tests.make_operator('Harbour Parking', 'EUR') AS a, tests.make_operator('Quay Parking', 'GBP') AS b;
GRANT SELECT ON fx TO PUBLIC;

SELECT is_empty(
    $$SELECT l.id FROM fx, (VALUES ('l1'), ('l2'), ('spare'), ('moved-from'), ('cancelled-only')) AS l(id),
                       tests.put_lot(fx.bearer, l.id, tests.lot_body()) AS p
       WHERE p.status <> 201$$,
    'the fixture: A''s lots');
SELECT is_empty(
    $$SELECT l.id FROM fx, (VALUES ('l1'), ('b-only')) AS l(id), tests.put_lot(fx.b_bearer, l.id, tests.lot_body()) AS p WHERE p.status <> 201$$,
    'the fixture: B''s lots l1 (an id A has too) and b-only');

-- A booking of A recorded through platform.booking_record (as platform_service); its reference.
CREATE FUNCTION pg_temp.record(p_booking jsonb)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.record_booking(a, p_booking) FROM fx;
$$;

-- A booking of A's lot l1 with p_overrides merged over the test booking (keys in p_without removed).
CREATE FUNCTION pg_temp.body(p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT tests.booking_body('l1', p_overrides, p_without);
$$;

-- Recording this booking for A is refused: p_sqlstate (default PT422), p_error, DETAIL p_field.
CREATE FUNCTION pg_temp.refused(p_booking jsonb, p_error text, p_field text, p_description text, p_sqlstate text DEFAULT 'PT422')
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT tests.record_booking(%L, %L)', a, p_booking), p_sqlstate, p_error, p_field, p_description) FROM fx;
$$;

-- Updating A's booking p_reference with these changes is refused: PT422, p_error, DETAIL p_field.
CREATE FUNCTION pg_temp.update_refused(p_reference text, p_changes jsonb, p_error text, p_field text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT tests.update_booking(%L, %L, %L)', a, p_reference, p_changes), 'PT422', p_error, p_field, p_description) FROM fx;
$$;

-- A's stored booking, as the superuser.
CREATE FUNCTION pg_temp.booking(p_reference text)
RETURNS app.bookings
LANGUAGE sql
AS $$
    SELECT tests.booking(a, p_reference) FROM fx;
$$;

-- A's stored booking with its tuple version, as jsonb (for "nothing changed").
CREATE FUNCTION pg_temp.stored(p_reference text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT to_jsonb(bk) || jsonb_build_object('ctid', bk.ctid::text, 'xmin', bk.xmin::text)
      FROM app.bookings AS bk, fx WHERE bk.operator_id = fx.a AND bk.reference = p_reference;
$$;

-- How many bookings A has.
CREATE FUNCTION pg_temp.count()
RETURNS bigint
LANGUAGE sql
AS $$
    SELECT count(*) FROM app.bookings AS bk, fx WHERE bk.operator_id = fx.a;
$$;

-- Recording: the reference ----------------------------------------------------------------------------------------------

CREATE TEMP TABLE first AS SELECT pg_temp.record(pg_temp.body()) AS reference;
SELECT matches((SELECT reference FROM first), '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', 'a booking without a reference gets one, of the column''s form');
SELECT results_eq(
    $$SELECT bk.operator_id, l.external_id COLLATE "default", bk.external_reference, bk.check_in_local, bk.check_out_local, bk.parking_days, bk.status,
             bk.payment_status, bk.currency, bk.total, bk.channel, bk.flight_number, bk.customer_first_name, bk.customer_last_name,
             bk.customer_email, bk.customer_phone, bk.vehicle_plates, bk.created_at, bk.cancelled_at
        FROM app.bookings AS bk JOIN app.lots AS l ON l.operator_id = bk.operator_id AND l.id = bk.lot_id
       WHERE bk.reference = (SELECT reference FROM first)$$,
    $$SELECT a, 'l1'::text, 'OPS-1001'::text, '2026-03-10 08:00:00'::timestamp, '2026-03-13 18:30:00'::timestamp, 4, 'confirmed'::text,
             'paid'::text, 'EUR'::text, 48.50::numeric, 'marketplace'::text, 'BA1234'::text, 'Ada'::text, 'Lovelace'::text,
             'ada@example.test'::text, '+44 20 7946 0000'::text, ARRAY['AB12 CDE'], now(), NULL::timestamptz
        FROM fx$$,
    'every field is stored: the operator''s lot, wall-clock check-in and out (no zone), exact total, customer, plates; created now');
CREATE TEMP TABLE generated AS SELECT pg_temp.record(pg_temp.body()) AS reference FROM generate_series(1, 30);
SELECT is((SELECT count(DISTINCT reference) FROM generated), 30::bigint, 'thirty bookings without a reference get thirty different ones');
SELECT is_empty($$SELECT reference FROM generated WHERE reference !~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'$$, 'each of the column''s form');
SELECT is(pg_temp.record(pg_temp.body('{"reference": "OPS_ref-1"}')), 'OPS_ref-1', 'a given reference is kept and answered');
SELECT is((pg_temp.booking('OPS_ref-1')).external_reference, 'OPS-1001', 'and the booking is stored under it');
SELECT isnt(pg_temp.record(pg_temp.body('{"reference": null}')), NULL, 'a null reference counts as absent: one is generated');
CREATE TEMP TABLE count_before_duplicate AS SELECT pg_temp.count() AS n;
SELECT pg_temp.refused(pg_temp.body('{"reference": "OPS_ref-1", "total": "1.00"}'), 'conflict', 'reference',
                       'a reference the operator already has is PT409 conflict, field reference', 'PT409');
SELECT is(pg_temp.count(), (SELECT n FROM count_before_duplicate), 'the duplicate stored nothing');
SELECT is((pg_temp.booking('OPS_ref-1')).total, 48.50::numeric, 'and left the first booking as it was');
SELECT is((SELECT tests.record_booking(b, tests.booking_body('l1', '{"reference": "OPS_ref-1", "currency": "GBP"}')) FROM fx), 'OPS_ref-1',
          'another operator may hold the same reference');
SELECT is((SELECT count(*) FROM app.bookings WHERE reference = 'OPS_ref-1'), 2::bigint, 'references are unique per operator only');
SELECT is(pg_temp.record(pg_temp.body('{"reference": "ops_ref-1"}')), 'ops_ref-1', 'references are exact: ops_ref-1 is another reference');
SELECT pg_temp.refused(pg_temp.body('{"reference": ""}'), 'invalid_body', 'reference', 'an empty reference is invalid_body reference');
SELECT pg_temp.refused(pg_temp.body('{"reference": "-abc"}'), 'invalid_body', 'reference', 'a reference starting with a dash is invalid_body reference');
SELECT pg_temp.refused(pg_temp.body('{"reference": "a b"}'), 'invalid_body', 'reference', 'a reference with a space is invalid_body reference');
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object('reference', repeat('r', 65))), 'invalid_body', 'reference',
                       'a reference of 65 characters is invalid_body reference');
SELECT is(pg_temp.record(pg_temp.body(jsonb_build_object('reference', repeat('r', 64)))), repeat('r', 64), 'a reference of 64 characters is accepted');
SELECT pg_temp.refused(pg_temp.body('{"reference": 42}'), 'invalid_body', 'reference', 'a numeric reference is invalid_body reference');

-- Recording: nullability ------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE bare AS
SELECT pg_temp.record(pg_temp.body(p_without => ARRAY['external_reference', 'flight_number', 'customer', 'vehicle_plates'])) AS reference;
SELECT is((SELECT ARRAY[bk.external_reference, bk.flight_number, bk.customer_first_name, bk.customer_last_name, bk.customer_email, bk.customer_phone]
             FROM bare, pg_temp.booking(bare.reference) AS bk),
          ARRAY[NULL, NULL, NULL, NULL, NULL, NULL]::text[],
          'without them, external_reference, flight_number and every customer key are null');
SELECT is((SELECT bk.vehicle_plates FROM bare, pg_temp.booking(bare.reference) AS bk), '{}'::text[], 'without plates, vehicle_plates is [] (never null)');
SELECT is((pg_temp.booking(pg_temp.record(pg_temp.body('{"external_reference": null, "flight_number": null, "customer": null, "vehicle_plates": null}')))).vehicle_plates,
          '{}'::text[], 'null plates are [] too');
SELECT is((SELECT ARRAY[bk.external_reference, bk.flight_number, bk.customer_first_name, bk.customer_phone]
             FROM pg_temp.booking(pg_temp.record(pg_temp.body('{"external_reference": null, "flight_number": null, "customer": null}'))) AS bk),
          ARRAY[NULL, NULL, NULL, NULL]::text[], 'null external_reference, flight_number and customer are null');
SELECT is((SELECT ARRAY[bk.customer_first_name, bk.customer_last_name, bk.customer_email, bk.customer_phone]
             FROM pg_temp.booking(pg_temp.record(pg_temp.body('{"customer": {"email": "x@example.test"}}'))) AS bk),
          ARRAY[NULL, NULL, 'x@example.test', NULL], 'a customer with one key known: the others are null');
SELECT is((pg_temp.booking(pg_temp.record(pg_temp.body('{"customer": {}, "vehicle_plates": []}')))).customer_email, NULL,
          'an empty customer object leaves every key null');

-- Recording: every key validated ------------------------------------------------------------------------------------------------

CREATE TEMP TABLE count_before_refusals AS SELECT pg_temp.count() AS n;
SELECT pg_temp.refused('[]', 'invalid_body', NULL, 'a booking that is not an object is invalid_body without a field');
SELECT pg_temp.refused(NULL, 'invalid_body', NULL, 'no booking at all is invalid_body without a field');
CREATE TEMP TABLE not_keys (n integer, key text);
INSERT INTO not_keys VALUES (1, 'timezone'), (2, 'lot_name'), (3, 'created_at'), (4, 'cancelled_at'), (5, 'colour'), (6, 'lot_id');
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object(key, 'x')), 'unknown_field', key, format('%s is unknown_field %s', key, key))
  FROM not_keys ORDER BY n;
CREATE TEMP TABLE required (n integer, key text);
INSERT INTO required VALUES (1, 'lot_external_id'), (2, 'check_in_local'), (3, 'check_out_local'), (4, 'parking_days'), (5, 'status'),
                            (6, 'payment_status'), (7, 'currency'), (8, 'total'), (9, 'channel');
SELECT pg_temp.refused(pg_temp.body(p_without => ARRAY[key]), 'missing_field', key, format('a booking without %s is missing_field %s', key, key))
  FROM required ORDER BY n;
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object(key, NULL)), 'missing_field', key, format('a booking with %s null is missing_field %s', key, key))
  FROM required ORDER BY n;

CREATE TEMP TABLE bad_value (n integer, key text, sent jsonb, what text);
INSERT INTO bad_value VALUES
    (1, 'status', '"refunded"', 'a status outside the spec''s list'),
    (2, 'status', '"Confirmed"', 'a status in another letter case'),
    (3, 'status', '"canceled"', 'a misspelt status'),
    (4, 'status', '1', 'a numeric status'),
    (5, 'payment_status', '"failed"', 'a payment status outside the spec''s list'),
    (6, 'payment_status', '"cancelled"', 'a booking status as payment status'),
    (7, 'payment_status', '"PAID"', 'a payment status in another letter case'),
    (8, 'currency', '"ABC"', 'three letters that are no ISO 4217 code'),
    (9, 'currency', '"EURO"', 'four letters'),
    (10, 'currency', '"E"', 'one letter'),
    (11, 'currency', '978', 'a numeric code'),
    (12, 'total', '"48.505"', 'a total with a third non-zero decimal'),
    (13, 'total', '48.505', 'a numeric total with a third non-zero decimal'),
    (14, 'total', '-1', 'a negative total'),
    (15, 'total', '"1e2"', 'a total string in exponent form'),
    (16, 'total', 'true', 'a boolean total'),
    (17, 'check_in_local', '"2026-03-10 08:00:00"', 'a check-in with a space instead of T'),
    (18, 'check_in_local', '"2026-03-10T08:00"', 'a check-in without seconds'),
    (19, 'check_in_local', '"2026-03-10T08:00:00Z"', 'a check-in with a zone'),
    (20, 'check_in_local', '"2026-03-10T08:00:00+01:00"', 'a check-in with an offset'),
    (21, 'check_in_local', '"2026-03-10T08:00:00.5"', 'a check-in with fractional seconds'),
    (22, 'check_in_local', '"2026-03-10"', 'a check-in date without time'),
    (23, 'check_in_local', '"2026-02-30T08:00:00"', 'a check-in on a day that does not exist'),
    (24, 'check_in_local', '"2026-03-09T24:00:00"', 'a check-in at 24:00:00'),
    (25, 'check_in_local', '"2026-03-10T08:00:60"', 'a check-in at second 60'),
    (26, 'check_in_local', '"2026-3-10T08:00:00"', 'a check-in without leading zeros'),
    (27, 'check_in_local', '1773129600', 'a check-in as a number'),
    (28, 'check_out_local', '"2026-03-13T18:30"', 'a check-out without seconds'),
    (29, 'check_out_local', '"2026-03-10T08:00:00"', 'a check-out equal to the check-in'),
    (30, 'check_out_local', '"2026-03-10T07:59:59"', 'a check-out before the check-in'),
    (31, 'lot_external_id', '"nope"', 'a lot the operator does not hold'),
    (32, 'lot_external_id', '"b-only"', 'another operator''s lot'),
    (33, 'lot_external_id', '7', 'a numeric lot id'),
    (34, 'parking_days', '0', 'zero parking days'),
    (35, 'parking_days', '3661', 'more than 3660 parking days'),
    (36, 'parking_days', '4.5', 'fractional parking days'),
    (37, 'parking_days', '"4"', 'parking days as a string'),
    (38, 'channel', '"Marketplace"', 'a channel with a capital'),
    (39, 'channel', '"direct sale"', 'a channel with a space'),
    (40, 'channel', '""', 'an empty channel'),
    (41, 'vehicle_plates', '"AB12 CDE"', 'plates as a string, not an array'),
    (42, 'vehicle_plates', '[1]', 'a numeric plate'),
    (43, 'vehicle_plates', '[""]', 'an empty plate'),
    (44, 'vehicle_plates', '[null]', 'a null plate'),
    (45, 'vehicle_plates', '["AAAAAAAAAAAAAAAAAAAAA"]', 'a plate of 21 characters'),
    (46, 'vehicle_plates', '["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]', 'eleven plates'),
    (47, 'customer', '"Ada Lovelace"', 'a customer that is not an object'),
    (48, 'external_reference', '""', 'an empty external reference'),
    (49, 'external_reference', to_jsonb(repeat('e', 201)), 'an external reference of 201 characters'),
    (50, 'external_reference', '1001', 'a numeric external reference'),
    (51, 'flight_number', '""', 'an empty flight number'),
    (52, 'flight_number', '"BA12345678901234X"', 'a flight number of 17 characters'),
    (53, 'check_in_local', '"2026-03-10T08:60:00"', 'a check-in at minute 60'),
    (54, 'check_in_local', '"2026-03-10T25:00:00"', 'a check-in at hour 25'),
    (55, 'check_in_local', '"2026-00-10T08:00:00"', 'a check-in in month 00'),
    (56, 'check_in_local', '"2026-03-00T08:00:00"', 'a check-in on day 00'),
    (57, 'check_in_local', '"２０２６-03-10T08:00:00"', 'a check-in with a year in full-width digits'),
    (58, 'check_in_local', '"2025-02-29T08:00:00"', 'a check-in on the 29th of February of a common year');
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object(key, sent)), 'invalid_body', key,
                       format('%s (%s) is invalid_body %s', what, CASE WHEN length(sent::text) > 40 THEN left(sent::text, 20) || '…' ELSE sent::text END, key))
  FROM bad_value ORDER BY n;
SELECT pg_temp.refused(pg_temp.body('{"customer": {"first_name": "Ada", "middle_name": "A"}}'), 'unknown_field', 'customer.middle_name',
                       'an unknown customer key is unknown_field customer.<key>');
SELECT pg_temp.refused(pg_temp.body('{"customer": {"first_name": 1}}'), 'invalid_body', 'customer.first_name',
                       'a numeric first name is invalid_body customer.first_name');
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object('customer', jsonb_build_object('email', repeat('e', 321)))), 'invalid_body', 'customer.email',
                       'an email of 321 characters is invalid_body customer.email');
SELECT pg_temp.refused(pg_temp.body(jsonb_build_object('customer', jsonb_build_object('phone', repeat('1', 41)))), 'invalid_body', 'customer.phone',
                       'a phone of 41 characters is invalid_body customer.phone');
SELECT is(pg_temp.count(), (SELECT n FROM count_before_refusals), 'the refused bookings stored nothing');
SELECT tests.refuses(format('SELECT tests.record_booking(%L, %L)', gen_random_uuid(), pg_temp.body()), 'PT422', 'invalid_parameter', 'p_operator_id',
                     'a booking of an unknown operator is invalid_parameter p_operator_id');
SELECT tests.refuses(format('SELECT tests.record_booking(NULL, %L)', pg_temp.body()), 'PT422', 'invalid_parameter', 'p_operator_id',
                     'a booking without an operator is invalid_parameter p_operator_id');

-- Recording: accepted values ---------------------------------------------------------------------------------------------------

CREATE TEMP TABLE good_value (n integer, key text, sent jsonb, stored text, what text);
INSERT INTO good_value VALUES
    (1, 'currency', '"gbp"', '"GBP"', 'another ISO 4217 code in lower case (bookings come from every channel)'),
    (2, 'total', '"48.5"', '48.50', 'a total string with one decimal'),
    (3, 'total', '48', '48.00', 'an integral total'),
    (4, 'total', '"48.500"', '48.50', 'a total with a third decimal zero'),
    (5, 'total', '0', '0.00', 'a total of zero'),
    (6, 'parking_days', '1', '1', 'one parking day'),
    (7, 'parking_days', '3660', '3660', '3660 parking days'),
    (8, 'channel', '"direct"', '"direct"', 'another channel'),
    (9, 'flight_number', '"BA1234567890123X"', '"BA1234567890123X"', 'a flight number of 16 characters'),
    (10, 'external_reference', to_jsonb(repeat('e', 200)), to_jsonb(repeat('e', 200))::text, 'an external reference of 200 characters'),
    (11, 'check_in_local', '"2026-03-13T18:29:59"', '"2026-03-13T18:29:59"', 'a check-in a second before the check-out'),
    (12, 'check_in_local', '"2026-02-28T23:59:59"', '"2026-02-28T23:59:59"', 'a check-in at the last second of a day'),
    (13, 'vehicle_plates', '["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]', '["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]', 'ten plates'),
    (14, 'vehicle_plates', '["AAAAAAAAAAAAAAAAAAAA", "B 1"]', '["AAAAAAAAAAAAAAAAAAAA", "B 1"]', 'a plate of 20 characters and another, kept in order'),
    (15, 'check_in_local', '"2024-02-29T08:00:00"', '"2024-02-29T08:00:00"', 'a check-in on the 29th of February of a leap year');

-- The stored value of one column of A's booking as JSON text.
CREATE FUNCTION pg_temp.stored_value(p_reference text, p_column text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT (to_jsonb(bk) -> p_column)::text FROM app.bookings AS bk, fx WHERE bk.operator_id = fx.a AND bk.reference = p_reference;
$$;
SELECT is(pg_temp.stored_value(pg_temp.record(pg_temp.body(jsonb_build_object(key, sent))), key), stored,
          format('%s (%s) is accepted, stored as %s', what, CASE WHEN length(sent::text) > 40 THEN left(sent::text, 20) || '…' ELSE sent::text END,
                 CASE WHEN length(stored) > 40 THEN left(stored, 20) || '…' ELSE stored END))
  FROM good_value ORDER BY n;
CREATE TEMP TABLE statuses (n integer, status text, kind text);
INSERT INTO statuses
SELECT n, s, 'status' FROM unnest(ARRAY['pending', 'confirmed', 'checked_in', 'completed', 'cancelled']) WITH ORDINALITY AS x(s, n)
UNION ALL
SELECT 10 + n, s, 'payment_status' FROM unnest(ARRAY['pending', 'paid', 'partial', 'refunded', 'expired', 'not_required']) WITH ORDINALITY AS x(s, n);
SELECT is(pg_temp.stored_value(pg_temp.record(pg_temp.body(jsonb_build_object(kind, status))), kind), to_jsonb(status)::text,
          format('%s %s is accepted', kind, status))
  FROM statuses ORDER BY n;

-- cancelled_at at record ------------------------------------------------------------------------------------------------------------

SELECT is((pg_temp.booking(pg_temp.record(pg_temp.body('{"status": "cancelled"}')))).cancelled_at, now(),
          'a booking recorded as cancelled has cancelled_at now');
SELECT is((pg_temp.booking((SELECT reference FROM first))).cancelled_at, NULL, 'a booking recorded in any other status has none');

-- Updating ---------------------------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE upd AS SELECT pg_temp.record(pg_temp.body()) AS reference;
GRANT SELECT ON upd TO PUBLIC;
CREATE TEMP TABLE upd_before AS SELECT pg_temp.booking(reference) AS row FROM upd;
SELECT lives_ok(format('SELECT tests.update_booking(%L, %L, %L)', (SELECT a FROM fx), (SELECT reference FROM upd), '{"payment_status": "partial"}'),
                'platform.booking_update changes one field');
SELECT is((SELECT (pg_temp.booking(reference)).payment_status FROM upd), 'partial', 'the field is changed');
SELECT is((SELECT to_jsonb(pg_temp.booking(reference)) - ARRAY['payment_status', 'changed_at'] FROM upd),
          (SELECT to_jsonb(row) - ARRAY['payment_status', 'changed_at'] FROM upd_before),
          'the keys not sent keep their values (created_at included)');
SELECT lives_ok(format('SELECT tests.update_booking(%L, %L, %L)', (SELECT a FROM fx), (SELECT reference FROM upd),
                       '{"lot_external_id": "l2", "external_reference": "OPS-2", "check_in_local": "2026-04-01T09:00:00", "check_out_local": "2026-04-02T09:00:00",
                         "parking_days": 2, "status": "checked_in", "payment_status": "paid", "currency": "GBP", "total": 20, "channel": "phone",
                         "flight_number": "EZY1", "customer": {"first_name": "Grace", "last_name": "Hopper", "email": "grace@example.test", "phone": "1"},
                         "vehicle_plates": ["XY1", "XY2"]}'),
                'every field changes at once');
SELECT results_eq(
    $$SELECT l.external_id COLLATE "default", bk.external_reference, bk.check_in_local, bk.check_out_local, bk.parking_days, bk.status, bk.payment_status, bk.currency,
             bk.total, bk.channel, bk.flight_number, bk.customer_first_name, bk.customer_last_name, bk.customer_email, bk.customer_phone, bk.vehicle_plates
        FROM app.bookings AS bk JOIN app.lots AS l ON l.operator_id = bk.operator_id AND l.id = bk.lot_id
       WHERE bk.reference = (SELECT reference FROM upd)$$,
    $$VALUES ('l2'::text, 'OPS-2'::text, '2026-04-01 09:00:00'::timestamp, '2026-04-02 09:00:00'::timestamp, 2, 'checked_in'::text, 'paid'::text, 'GBP'::text,
              20.00::numeric, 'phone'::text, 'EZY1'::text, 'Grace'::text, 'Hopper'::text, 'grace@example.test'::text, '1'::text, ARRAY['XY1', 'XY2'])$$,
    'every change is stored (the booking moved to lot l2)');
SELECT is((SELECT (pg_temp.booking(reference)).reference FROM upd), (SELECT reference FROM upd), 'the reference stays');
SELECT lives_ok(format('SELECT tests.update_booking(%L, %L, %L)', (SELECT a FROM fx), (SELECT reference FROM upd), '{"customer": {"phone": "2"}}'),
                'a customer change');
SELECT is((SELECT ARRAY[bk.customer_first_name, bk.customer_phone] FROM upd, pg_temp.booking(upd.reference) AS bk), ARRAY[NULL, '2'],
          'customer is one field: the object sent replaces the whole customer (keys not sent are null)');
SELECT lives_ok(format('SELECT tests.update_booking(%L, %L, %L)', (SELECT a FROM fx), (SELECT reference FROM upd), '{"flight_number": null, "vehicle_plates": null}'),
                'optional fields set to null');
SELECT is((SELECT ARRAY[bk.flight_number, bk.vehicle_plates::text] FROM upd, pg_temp.booking(upd.reference) AS bk), ARRAY[NULL, '{}'],
          'null clears them: flight_number null, vehicle_plates []');

-- Refused updates change nothing.
CREATE TEMP TABLE upd_stored AS SELECT pg_temp.stored(reference) AS row FROM upd;
SELECT pg_temp.update_refused(reference, '{"reference": "NEW-1"}', 'invalid_body', 'reference', 'the reference cannot change: invalid_body reference') FROM upd;
SELECT pg_temp.update_refused(reference, jsonb_build_object('reference', reference), 'invalid_body', 'reference',
                              'sending the same reference is refused too') FROM upd;
SELECT pg_temp.update_refused(reference, '{"status": "lost"}', 'invalid_body', 'status', 'a bad status is invalid_body status') FROM upd;
SELECT pg_temp.update_refused(reference, '{"check_out_local": "2026-04-01T09:00:00"}', 'invalid_body', 'check_out_local',
                              'a check-out moved to the check-in is invalid_body check_out_local (checked against the stored check-in)') FROM upd;
SELECT pg_temp.update_refused(reference, '{"status": null}', 'missing_field', 'status', 'a required field set to null is missing_field') FROM upd;
SELECT pg_temp.update_refused(reference, '{"colour": "blue"}', 'unknown_field', 'colour', 'an unknown key is unknown_field') FROM upd;
SELECT pg_temp.update_refused(reference, '{"lot_external_id": "b-only"}', 'invalid_body', 'lot_external_id',
                              'a booking cannot move to another operator''s lot') FROM upd;
SELECT pg_temp.update_refused(reference, '[]', 'invalid_body', NULL, 'changes that are not an object are invalid_body') FROM upd;
SELECT pg_temp.update_refused('NOPE-1', '{"status": "confirmed"}', 'invalid_parameter', 'p_reference', 'an unknown reference is invalid_parameter p_reference');
SELECT tests.refuses(format('SELECT tests.update_booking(%L, %L, %L)', b, reference, '{"status": "completed"}'), 'PT422', 'invalid_parameter', 'p_reference',
                     'a reference of A under operator B is invalid_parameter p_reference') FROM fx, upd;
SELECT is((SELECT pg_temp.stored(reference) FROM upd), (SELECT row FROM upd_stored), 'the refused updates changed nothing (values, changed_at, tuple)');

-- cancelled_at through updates ---------------------------------------------------------------------------------------------------

CREATE TEMP TABLE cx AS SELECT pg_temp.record(pg_temp.body()) AS reference;
GRANT SELECT ON cx TO PUBLIC;
SELECT tests.update_booking(a, reference, '{"status": "cancelled"}') FROM fx, cx;
SELECT is((SELECT (pg_temp.booking(reference)).cancelled_at FROM cx), now(), 'status cancelled sets cancelled_at (now)');
UPDATE app.bookings SET cancelled_at = '2026-01-01 12:00:00+00' WHERE reference = (SELECT reference FROM cx);
SELECT tests.update_booking(a, reference, '{"payment_status": "refunded"}') FROM fx, cx;
SELECT is((SELECT (pg_temp.booking(reference)).cancelled_at FROM cx), '2026-01-01 12:00:00+00'::timestamptz,
          'a later change of a cancelled booking keeps the original cancelled_at');
SELECT tests.update_booking(a, reference, '{"status": "cancelled", "total": "1.00"}') FROM fx, cx;
SELECT is((SELECT (pg_temp.booking(reference)).cancelled_at FROM cx), '2026-01-01 12:00:00+00'::timestamptz,
          'sending status cancelled again keeps it too');
SELECT tests.update_booking(a, reference, '{"status": "confirmed"}') FROM fx, cx;
SELECT is((SELECT (pg_temp.booking(reference)).cancelled_at FROM cx), NULL, 'un-cancelling clears cancelled_at');
SELECT tests.update_booking(a, reference, '{"status": "cancelled"}') FROM fx, cx;
SELECT is((SELECT (pg_temp.booking(reference)).cancelled_at FROM cx), now(), 'cancelling again sets a new cancelled_at');

-- changed_at: every insert and every update moves it forward; nothing else does --------------------------------------------------

CREATE TEMP TABLE stamps (n integer, changed_at timestamptz);
CREATE TEMP TABLE ch AS SELECT pg_temp.record(pg_temp.body()) AS reference;
GRANT SELECT ON ch TO PUBLIC;
INSERT INTO stamps SELECT 1, (pg_temp.booking(reference)).changed_at FROM ch;
SELECT cmp_ok((SELECT changed_at FROM stamps WHERE n = 1), '>=', now(), 'a recorded booking is stamped (changed_at) when inserted');
SELECT tests.update_booking(a, reference, '{"payment_status": "partial"}') FROM fx, ch;
INSERT INTO stamps SELECT 2, (pg_temp.booking(reference)).changed_at FROM ch;
SELECT cmp_ok((SELECT changed_at FROM stamps WHERE n = 2), '>', (SELECT changed_at FROM stamps WHERE n = 1), 'an update moves changed_at forward');
SELECT tests.update_booking(a, reference, '{"payment_status": "paid"}') FROM fx, ch;
INSERT INTO stamps SELECT 3, (pg_temp.booking(reference)).changed_at FROM ch;
SELECT cmp_ok((SELECT changed_at FROM stamps WHERE n = 3), '>', (SELECT changed_at FROM stamps WHERE n = 2), 'every further update moves it forward again');
CREATE TEMP TABLE later AS SELECT pg_temp.record(pg_temp.body()) AS reference;
SELECT cmp_ok((SELECT (pg_temp.booking(reference)).changed_at FROM later), '>', (SELECT changed_at FROM stamps WHERE n = 3),
              'a booking recorded later is stamped later (the feed''s order follows the changes)');
SELECT is((SELECT (pg_temp.booking(reference)).created_at FROM ch), now(), 'created_at stays when a booking changes');

CREATE TEMP TABLE same_before AS
SELECT pg_temp.stored(reference) AS row,
       (SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'app.bookings'::regclass) AS updates
  FROM ch;
SELECT tests.update_booking(a, reference, '{"payment_status": "paid", "total": 48.500, "currency": "eur", "customer": {"first_name": "Ada", "last_name": "Lovelace",
                                          "email": "ada@example.test", "phone": "+44 20 7946 0000"}}') FROM fx, ch;
SELECT is((SELECT pg_temp.stored(reference) FROM ch), (SELECT row FROM same_before),
          'an update that changes nothing writes nothing: the same tuple, changed_at unmoved');
SELECT is((SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'app.bookings'::regclass), (SELECT updates FROM same_before),
          'no row of app.bookings was updated (this transaction''s statistics)');
SELECT tests.update_booking(a, reference, '{}') FROM fx, ch;
SELECT is((SELECT pg_temp.stored(reference) FROM ch), (SELECT row FROM same_before), 'an empty change writes nothing either');

UPDATE app.bookings SET payment_status = 'refunded', changed_at = '2020-01-01' WHERE reference = (SELECT reference FROM ch);
SELECT cmp_ok((SELECT (pg_temp.booking(reference)).changed_at FROM ch), '>', (SELECT changed_at FROM stamps WHERE n = 3),
              'whatever writes the row, the trigger stamps it: a direct UPDATE setting changed_at back still moves it forward');

-- Bookings are never deleted ------------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE all_before AS SELECT count(*) AS n FROM app.bookings;
SELECT tests.refuses($$DELETE FROM app.bookings$$, 'PT409', 'has_bookings', NULL, 'even the superuser cannot delete a booking: PT409 has_bookings');
SELECT tests.refuses(format('DELETE FROM app.bookings WHERE reference = %L', (SELECT reference FROM cx)), 'PT409', 'has_bookings', NULL,
                     'not even a cancelled one');
SELECT tests.refuses($$TRUNCATE app.bookings$$, 'PT409', 'has_bookings', NULL, 'bookings cannot be truncated');
SET LOCAL ROLE ingest_owner;
SELECT set_config('app.operator_id', a::text, true) FROM fx;
SELECT tests.refuses($$DELETE FROM app.bookings$$, 'PT409', 'has_bookings', NULL, 'the owner role in the operator''s context cannot delete one either');
RESET ROLE;
SELECT set_config('app.operator_id', '', true);
SELECT is((SELECT count(*) FROM app.bookings), (SELECT n FROM all_before), 'every booking is still there');

-- A lot that has ever taken a booking is never deleted ----------------------------------------------------------------------------------

SELECT is(app.lot_has_taken_booking(tests.lot(a, 'l1')), true, 'a lot that took a booking has taken one') FROM fx;
SELECT is(app.lot_has_taken_booking(tests.lot(a, 'l2')), true, 'a lot a booking was moved to has taken one too') FROM fx;
SELECT is(app.lot_has_taken_booking(tests.lot(a, 'spare')), false, 'a lot that never took one has not') FROM fx;
SELECT tests.refuses(format('DELETE FROM app.lots WHERE operator_id = %L AND external_id = %L', a, 'l1'), 'PT409', 'has_bookings', NULL,
                     'the superuser cannot delete a lot that has bookings: PT409 has_bookings') FROM fx;

SELECT isnt(tests.record_booking(a, tests.booking_body('moved-from', '{"reference": "MOVE-1"}')), NULL, 'the fixture: a booking of lot moved-from') FROM fx;
SELECT tests.update_booking(a, 'MOVE-1', '{"lot_external_id": "l2"}') FROM fx;
SELECT is((SELECT count(*) FROM app.bookings AS bk JOIN app.lots AS l ON l.id = bk.lot_id WHERE l.external_id = 'moved-from'), 0::bigint,
          'the fixture: the booking moved to lot l2; lot moved-from holds no booking now');
SELECT is(app.lot_has_taken_booking(tests.lot(a, 'moved-from')), true, 'a lot whose booking moved away has still taken one') FROM fx;
SELECT tests.refuses(format('DELETE FROM app.lots WHERE operator_id = %L AND external_id = %L', a, 'moved-from'), 'PT409', 'has_bookings', NULL,
                     'a lot whose only booking moved away still cannot be deleted') FROM fx;
SELECT isnt(tests.record_booking(a, tests.booking_body('cancelled-only', '{"status": "cancelled"}')), NULL, 'the fixture: a cancelled booking of lot cancelled-only') FROM fx;
SELECT tests.refuses(format('DELETE FROM app.lots WHERE operator_id = %L AND external_id = %L', a, 'cancelled-only'), 'PT409', 'has_bookings', NULL,
                     'a lot whose only booking was cancelled cannot be deleted') FROM fx;
SELECT pg_temp.refused(tests.booking_body('spare', '{"total": "1.001"}'), 'invalid_body', 'total', 'the fixture: a refused booking of lot spare');
SELECT is(app.lot_has_taken_booking(tests.lot(a, 'spare')), false, 'a refused booking leaves no trace on the lot') FROM fx;

SET LOCAL ROLE ingest_owner;
SELECT set_config('app.operator_id', a::text, true) FROM fx;
SELECT tests.refuses($$DELETE FROM app.lots WHERE external_id = 'moved-from'$$, 'PT409', 'has_bookings', NULL,
                     'the owner role in the operator''s context cannot delete it either');
SET LOCAL client_min_messages = warning;  -- (TRUNCATE … CASCADE names each table it would cascade to)
SELECT tests.refuses($$TRUNCATE app.lots CASCADE$$, 'PT409', 'has_bookings', NULL, 'lots cannot be truncated (with everything hanging off them)');
RESET client_min_messages;
WITH deleted AS (DELETE FROM app.lots WHERE external_id = 'spare' RETURNING external_id)
SELECT is(ARRAY(SELECT external_id FROM deleted), ARRAY['spare'], 'a lot that never took a booking can be deleted by the owner role in its context');
RESET ROLE;
SELECT set_config('app.operator_id', '', true);
SELECT is((tests.lot(a, 'spare')).id, NULL, 'lot spare is gone') FROM fx;
SELECT is(tests.lot_count(a), 4::bigint, 'A''s other four lots remain') FROM fx;

-- The choices a booking write accepts (app.booking_field_choices, read off the registry and folded
-- into a constant where app.booking_from_json is planned) are the spec's Booking statuses.
SELECT is(app.booking_field_choices('status'), ARRAY['pending', 'confirmed', 'checked_in', 'completed', 'cancelled'],
          'the status choices are the spec''s');
SELECT is(app.booking_field_choices('payment_status'),
          ARRAY['pending', 'paid', 'partial', 'refunded', 'expired', 'not_required'],
          'the payment_status choices are the spec''s');
SELECT is(app.booking_field_choices('channel'), NULL, 'a field that is not a choice has no choices');

SELECT * FROM finish();
ROLLBACK;
