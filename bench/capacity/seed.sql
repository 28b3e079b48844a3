-- The capacity model's operators, made deterministically for one size: run as a superuser on a
-- migrated database (bench/capacity/run.sh does):
--
--   psql "$URL" -v operators=10000 -f bench/capacity/seed.sql
--
-- Operator i (1 … :operators) is "Capacity i", with its owner (a console user) and its lots
-- `lot-000001` … : one operator in a hundred holds 1 000 lots, the others 5 to 20
-- (capacity.lots_of(i), which the load program computes the same way). Every lot is complete
-- enough to list and holds a marketplace envelope; every operator holds 20 bookings of the last
-- 30 days. Lots, envelopes and bookings go straight to the tables with triggers off, as
-- bench/generate.sql does (the API would take far longer), and the closures' day counts are
-- filled as the bookings' triggers would have. The credentials and webhook endpoints are issued
-- by the load program through the console's functions (`bench-capacity seed`).
\set ON_ERROR_STOP 1
\set QUIET 1
\o /dev/null

CREATE SCHEMA capacity;
CREATE FUNCTION capacity.lots_of(i integer) RETURNS integer LANGUAGE sql IMMUTABLE
    RETURN CASE WHEN i % 100 = 0 THEN 1000 ELSE 5 + (i * 7919) % 16 END;
CREATE FUNCTION capacity.user_of(i integer) RETURNS uuid LANGUAGE sql IMMUTABLE
    RETURN ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid;

CREATE TABLE capacity.operators (i integer PRIMARY KEY, operator_id uuid NOT NULL);
INSERT INTO capacity.operators
SELECT i, platform.operator_create(format('Capacity %s', i), 'EUR') FROM generate_series(1, :operators) AS i;
SELECT platform.user_upsert(capacity.user_of(i), format('owner%s@capacity.invalid', i), false),
       platform.member_set(operator_id, capacity.user_of(i), 'owner')
  FROM capacity.operators;

BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO app.lots (operator_id, external_id, name, timezone, handover, online_bookable, capacity, latitude,
                      longitude, city, country_code, features, arrival, media, min_stay_days, max_stay_days)
SELECT o.operator_id, format('lot-%s', lpad(n::text, 6, '0')), format('Car park %s', n), 'Europe/Paris',
       CASE WHEN n % 2 = 0 THEN 'self' ELSE 'attended' END, true, 50 + n % 950, 48.0 + (n % 1000) / 1000.0,
       2.0 + (n % 997) / 1000.0, 'Paris', 'FR', ARRAY['cameras', 'indoor'],
       jsonb_build_object('entrance', format('Gate %s', n % 7)),
       jsonb_build_object('heroUrl', format('https://img.example/%s.jpg', n)), 1, 30
  FROM capacity.operators AS o, generate_series(1, capacity.lots_of(o.i)) AS n;
INSERT INTO app.lot_rates (operator_id, lot_id, channel, currency, floor_price, base_price, ceiling_price, dynamic)
SELECT l.operator_id, l.id, 'marketplace', 'EUR', 10, 15, 30, false FROM app.lots AS l;
INSERT INTO app.bookings (operator_id, reference, lot_id, external_reference, check_in_local, check_out_local,
                          parking_days, status, payment_status, currency, total, channel, flight_number,
                          customer_first_name, customer_last_name, customer_email, customer_phone,
                          vehicle_plates, created_at, cancelled_at, changed_at)
SELECT o.operator_id, format('CAP%s-%s', o.i, b), l.id, format('EXT-%s', b),
       timestamp '2026-01-01 08:00' + make_interval(days => b * 3), timestamp '2026-01-03 18:00' + make_interval(days => b * 3),
       2, 'confirmed', 'paid', 'EUR', 40, 'marketplace', 'AF' || (1000 + b), 'Ada', format('Traveller %s', b),
       format('t%s@example.invalid', b), '+33100000000', ARRAY['AB-123-CD'],
       now() - make_interval(days => 30 - b), NULL, now() - make_interval(days => 30 - b)
  FROM capacity.operators AS o, generate_series(1, 20) AS b
  JOIN LATERAL (SELECT l.id FROM app.lots AS l
                 WHERE l.operator_id = o.operator_id AND l.external_id = format('lot-%s', lpad((1 + b % 5)::text, 6, '0'))) AS l ON true;
COMMIT;

INSERT INTO app.lot_booking_days (operator_id, lot_id, day, check_ins, check_outs)
SELECT e.operator_id, e.lot_id, e.day, sum(e.check_ins), sum(e.check_outs)
  FROM (SELECT b.operator_id, b.lot_id, b.check_in_local::date AS day, 1 AS check_ins, 0 AS check_outs FROM app.bookings AS b
        UNION ALL
        SELECT b.operator_id, b.lot_id, b.check_out_local::date, 0, 1 FROM app.bookings AS b) AS e
 GROUP BY e.operator_id, e.lot_id, e.day;

-- The platform's own login (the booking engine), as a deployment gives it one (roles belong to the
-- cluster: an earlier run may have made it).
SELECT 'CREATE ROLE capacity_platform LOGIN IN ROLE platform_service'
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'capacity_platform') \gexec

ANALYZE;
