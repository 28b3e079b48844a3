-- The benchmark's data, made deterministically (no random(): every value derives from a row number),
-- so two runs at one size hold the same rows. Run as a superuser on a migrated database:
--
--   psql "$URL" -v lots=10000 -v bookings=1000000 -v small_operators=1000 -f bench/generate.sql
--
-- It makes one large operator, "Bench Large", with :lots lots, every lot holding a marketplace
-- envelope and lot `lot-000001` holding 100 closures, and :bookings bookings spread over the lots
-- (lot-000001 holds one in 10 of them), changed over the last 30 days; and :small_operators small
-- operators with 5 lots and 50 bookings each; and "Bench Tail", 5 lots and 50 bookings changed
-- over 30 days up to an hour ago, whose feed has an end that nothing comes after (the empty tail a
-- polling client reads). Then it prints, for the large operator, a credential with every scope
-- (`bearer=…`), and for the tail operator one to read its bookings (`tail_bearer=…`). Writes go straight to the tables as the superuser (the API would
-- take hours for a million bookings), with triggers and foreign-key checks off
-- (session_replication_role = replica), each booking's changed_at set as its stamp would be and the
-- closures' day counts (app.lot_booking_days) filled as its triggers would have. Then 10 000 more
-- of the large operator's bookings through platform.booking_record, its webhook endpoint armed (below).
\set ON_ERROR_STOP 1
\set QUIET 1
\o /dev/null

SELECT platform.user_upsert('00000000-0000-4000-8000-0000000be4c0', 'bench@bench.invalid', false);
SELECT platform.operator_create('Bench Large', 'EUR') AS large \gset
SELECT platform.member_set(:'large', '00000000-0000-4000-8000-0000000be4c0', 'owner');

-- The lots of one operator: lot-000001 … lot-<n>, complete enough to list.
CREATE FUNCTION pg_temp.make_lots(p_operator uuid, p_count integer) RETURNS void LANGUAGE sql AS $$
    INSERT INTO app.lots (operator_id, external_id, name, timezone, handover, online_bookable, capacity,
                          latitude, longitude, city, country_code, features, arrival, media, min_stay_days,
                          max_stay_days)
    SELECT p_operator, format('lot-%s', lpad(i::text, 6, '0')), format('Car park %s', i), 'Europe/Paris',
           CASE WHEN i % 2 = 0 THEN 'self' ELSE 'attended' END, true, 50 + i % 950,
           48.0 + (i % 1000) / 1000.0, 2.0 + (i % 997) / 1000.0, 'Paris', 'FR',
           ARRAY['indoor', 'cameras'], jsonb_build_object('entrance', format('Gate %s', i % 7)),
           jsonb_build_object('heroUrl', format('https://img.example/%s.jpg', i)), 1, 30
      FROM generate_series(1, p_count) AS i;
    INSERT INTO app.lot_rates (operator_id, lot_id, channel, currency, floor_price, base_price, ceiling_price, dynamic)
    SELECT l.operator_id, l.id, 'marketplace', 'EUR', 10, 15, 30, false FROM app.lots AS l WHERE l.operator_id = p_operator;
$$;

-- p_count bookings over the operator's lots (one in 10 on its first lot), changed over 30 days.
CREATE FUNCTION pg_temp.make_bookings(p_operator uuid, p_prefix text, p_count integer) RETURNS void LANGUAGE sql AS $$
    WITH lot AS (SELECT l.id, row_number() OVER (ORDER BY l.external_id) AS n
                   FROM app.lots AS l WHERE l.operator_id = p_operator),
         total AS (SELECT count(*) AS lots FROM lot)
    INSERT INTO app.bookings (operator_id, reference, lot_id, external_reference, check_in_local, check_out_local,
                              parking_days, status, payment_status, currency, total, channel, flight_number,
                              customer_first_name, customer_last_name, customer_email, customer_phone,
                              vehicle_plates, created_at, cancelled_at, changed_at)
    SELECT p_operator, format('%s%s', p_prefix, lpad(i::text, 8, '0')), lot.id, format('EXT-%s', i),
           timestamp '2024-01-01 08:00' + make_interval(days => i % 1400), timestamp '2024-01-01 18:00' + make_interval(days => i % 1400 + 1 + i % 7),
           2 + i % 7, CASE WHEN i % 10 = 3 THEN 'cancelled' ELSE 'confirmed' END, 'paid', 'EUR', 20 + i % 300, 'marketplace',
           'AF' || (1000 + i % 9000), 'Ada', format('Traveller %s', i), format('t%s@example.invalid', i), '+33100000000',
           ARRAY[format('AB-%s-CD', i % 1000)], now() - make_interval(secs => 2592000 - i * 2592000.0 / p_count),
           CASE WHEN i % 10 = 3 THEN now() END, now() - make_interval(secs => 2592000 - i * 2592000.0 / p_count)
      FROM generate_series(1, p_count) AS i
     CROSS JOIN total
      -- (the lot's number depends on i alone, so this is a hash join)
      JOIN lot ON lot.n = CASE WHEN i % 10 = 0 THEN 1 ELSE 1 + i % total.lots END;
$$;

BEGIN;
SET LOCAL session_replication_role = replica;
SELECT pg_temp.make_lots(:'large', :lots);
SELECT pg_temp.make_bookings(:'large', 'BL', :bookings);
INSERT INTO app.lot_blocked_periods (operator_id, lot_id, starts_on, ends_on, reason)
SELECT l.operator_id, l.id, date '2024-01-01' + 14 * i, date '2024-01-01' + 14 * i + 6, format('Works %s', i)
  FROM app.lots AS l, generate_series(0, 99) AS i
 WHERE l.operator_id = :'large' AND l.external_id = 'lot-000001';

COMMIT;

CREATE TEMP TABLE small AS
SELECT platform.operator_create(format('Bench Small %s', i), 'EUR') AS o FROM generate_series(1, :small_operators) AS i;
BEGIN;
SET LOCAL session_replication_role = replica;
SELECT pg_temp.make_lots(o, 5), pg_temp.make_bookings(o, 'BS', 50) FROM small;
COMMIT;

SELECT platform.operator_create('Bench Tail', 'EUR') AS tail \gset
SELECT platform.member_set(:'tail', '00000000-0000-4000-8000-0000000be4c0', 'owner');
BEGIN;
SET LOCAL session_replication_role = replica;
SELECT pg_temp.make_lots(:'tail', 5), pg_temp.make_bookings(:'tail', 'BT', 50);
UPDATE app.bookings SET changed_at = changed_at - interval '1 hour' WHERE operator_id = :'tail';
COMMIT;

-- The closures' per-day booking counts, which the bookings' triggers keep (off above).
INSERT INTO app.lot_booking_days (operator_id, lot_id, day, check_ins, check_outs)
SELECT e.operator_id, e.lot_id, e.day, sum(e.check_ins), sum(e.check_outs)
  FROM (SELECT b.operator_id, b.lot_id, b.check_in_local::date AS day, 1 AS check_ins, 0 AS check_outs
          FROM app.bookings AS b WHERE b.status <> 'cancelled'
        UNION ALL
        SELECT b.operator_id, b.lot_id, b.check_out_local::date, 0, 1
          FROM app.bookings AS b WHERE b.status <> 'cancelled') AS e
 GROUP BY e.operator_id, e.lot_id, e.day
 ORDER BY e.operator_id, e.lot_id, e.day;

-- The large operator's owner, through the console: its webhook endpoint armed (it stays armed for
-- the run) and a credential with every scope.
BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', '{"sub": "00000000-0000-4000-8000-0000000be4c0", "role": "authenticated"}', true),
       set_config('request.headers', json_build_object('x-tenant-id', :'large')::text, true);
SELECT console.webhook_endpoint_register('https://hooks.bench.example/ingest', 'whsec_' || repeat('ab', 32));
SELECT key_id || '.' || secret AS bearer
  FROM console.api_credential_issue('bench', ARRAY['read_supply', 'write_supply', 'read_bookings']) \gset
COMMIT;
BEGIN;
SET LOCAL ROLE authenticated;
SELECT set_config('request.jwt.claims', '{"sub": "00000000-0000-4000-8000-0000000be4c0", "role": "authenticated"}', true),
       set_config('request.headers', json_build_object('x-tenant-id', :'tail')::text, true);
SELECT key_id || '.' || secret AS tail_bearer FROM console.api_credential_issue('tail', ARRAY['read_bookings']) \gset
COMMIT;

-- 10 000 more bookings of the large operator the way production writes them: through
-- platform.booking_record, one a transaction, every trigger on, with the operator's webhook endpoint
-- armed, so the feed's stamps, the day counts and the hints table (10 000 hints waiting: no worker
-- runs here) hold what the platform's own writes leave.
SELECT format('SELECT platform.booking_record(%L, %L)', :'large', jsonb_build_object(
           'external_reference', 'PLT-' || i, 'lot_external_id', 'lot-' || lpad((1 + i % :lots)::text, 6, '0'),
           'check_in_local', to_char(timestamp '2026-01-01 08:00' + make_interval(days => i % 400), 'YYYY-MM-DD"T"HH24:MI:SS'),
           'check_out_local', to_char(timestamp '2026-01-01 18:30' + make_interval(days => i % 400 + 1 + i % 5), 'YYYY-MM-DD"T"HH24:MI:SS'),
           'parking_days', 2 + i % 5, 'status', 'confirmed', 'payment_status', 'paid', 'currency', 'EUR',
           'total', (20 + i % 300)::text || '.50', 'channel', 'marketplace', 'flight_number', 'BA' || (1000 + i % 9000),
           'customer', jsonb_build_object('first_name', 'Ada', 'last_name', format('Platform %s', i),
                                          'email', format('p%s@example.invalid', i), 'phone', '+44 20 7946 0000'),
           'vehicle_plates', jsonb_build_array(format('PL-%s', i % 1000))))
  FROM generate_series(1, 10000) AS i \gexec

ANALYZE app.lots, app.lot_rates, app.lot_blocked_periods, app.bookings, app.lot_booking_days, app.webhook_hints;

\o
\echo bearer=:bearer
\echo tail_bearer=:tail_bearer
