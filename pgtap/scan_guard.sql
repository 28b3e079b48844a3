-- The scan guard: every route's function and the platform's booking writes, called once
-- each at an operator of 2 000 lots and 300 bookings, under auto_explain with nested statements, so
-- that the plan of every statement inside the PL/pgSQL functions (which EXPLAIN of the call cannot
-- show) reaches this session as a NOTICE. pgtap/scan_guard.py reads them and fails on a scan that
-- reads far more rows than it keeps: a condition comparing an indexed column with a function of
-- the input, evaluated per row (a lot lookup in app.booking_from_json was one).
-- Run by pgtap/run.sh on its freshly migrated database; nothing is kept (ROLLBACK).
\set ON_ERROR_STOP 1
\set QUIET 1
BEGIN;
SELECT o AS operator, tests.issue_credential(o) AS bearer FROM tests.make_operator('Scan guard') AS o \gset
-- Through the real functions, every trigger on: the lots, an envelope, closures, bookings.
SELECT count(*) AS lots
  FROM generate_series(1, 2000) AS i,
       tests.put_lot(:'bearer', format('lot-%s', lpad(i::text, 5, '0')),
                     '{"name": "Lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true}') AS p \gset
SELECT tests.put_rates(:'bearer', 'lot-01000', '{"fixed_price": "12.50"}') \gset
SELECT tests.put_blocked_periods(:'bearer', 'lot-01000',
       '{"blocked_periods": [{"starts_on": "2026-03-01", "ends_on": "2026-03-03"}]}') \gset
SELECT count(*) AS bookings
  FROM generate_series(1, 300) AS i,
       tests.record_booking(:'operator', tests.booking_body(format('lot-%s', lpad((1 + i * 7 % 2000)::text, 5, '0')))) \gset
SELECT tests.record_booking(:'operator', tests.booking_body('lot-01999')) AS reference \gset
ANALYZE app.lots, app.lot_rates, app.lot_blocked_periods, app.bookings, app.lot_booking_days, app.webhook_hints;

LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_analyze = on;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_format = json;
SET auto_explain.log_level = notice;
SET client_min_messages = notice;
\echo scan-guard: start
SELECT tests.put_lot(:'bearer', 'lot-01500', '{"name": "Renamed", "timezone": "Europe/London", "handover": "self", "online_bookable": true}', true);
SELECT tests.put_lot(:'bearer', 'lot-02001', '{"name": "New", "timezone": "Europe/London", "handover": "self", "online_bookable": true}', true);
SELECT tests.put_rates(:'bearer', 'lot-01000', '{"fixed_price": "13.50"}', true);
SELECT tests.put_blocked_periods(:'bearer', 'lot-01000', '{"blocked_periods": [{"starts_on": "2026-03-10", "ends_on": "2026-03-12"}]}', true);
SELECT tests.get_lots(:'bearer', NULL, 200);
SELECT tests.get_lots(:'bearer', 'lot-01900', 50);
SELECT tests.get_blocked_periods(:'bearer', 'lot-01000');
SELECT tests.get_bookings(:'bearer', NULL, 500);
SELECT tests.record_booking(:'operator', tests.booking_body('lot-01777'));
SELECT tests.update_booking(:'operator', :'reference', '{"status": "cancelled"}');
SELECT tests.update_booking(:'operator', :'reference', '{"check_out_local": "2026-03-14T18:30:00"}');
\echo scan-guard: end
ROLLBACK;
