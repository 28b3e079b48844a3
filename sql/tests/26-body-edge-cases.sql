-- Bodies at the edges: a number with thousands of digits in any numeric field is a 422
-- naming the field, never a 500; trimming and "first in byte order" do not depend on the database's
-- locale (this file also runs in a database of locale en_US.UTF-8: see pgtap/run.sh). JSON syntax is
-- the gateway's: its verdict is raised in its place in the order of checks, and a body
-- jsonb cannot read is still bad input whoever calls. The syntax cases this file held (a key given
-- twice, tokens jsonb cannot hold, exponents beyond ±20) are gateway/tests/integration/body_syntax.rs
-- and src/json_syntax/tests.rs now.
BEGIN;
SELECT plan(76);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, tests.issue_credential(o) AS bearer FROM tests.make_operator('Body edges') AS o;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.put_lot(bearer, 'lot-1', tests.lot_body()) FROM fx;

-- The refusal of a raw body text, as 'code message detail', or 'accepted'.
CREATE FUNCTION pg_temp.refusal(p_call text, p_body text) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(e.code || ' ' || e.message || ' ' || coalesce(e.detail, '-'), 'accepted')
      FROM fx, tests.error_of(format(p_call, bearer, p_body)) AS e;
$$;
CREATE FUNCTION pg_temp.lot(p_body text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.refusal('SELECT tests.put_lot(%L, ''lot-1'', %L, true)', p_body);
$$;
CREATE FUNCTION pg_temp.rates(p_body text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.refusal('SELECT tests.put_rates(%L, ''lot-1'', %L, true)', p_body);
$$;
CREATE FUNCTION pg_temp.closures(p_body text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.refusal('SELECT tests.put_blocked_periods(%L, ''lot-1'', %L, true)', p_body);
$$;
-- A lot body with `p_members` (raw JSON text, a leading comma) after the four required fields.
CREATE FUNCTION pg_temp.lot_with(p_members text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.lot('{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true' || p_members || '}');
$$;
CREATE FUNCTION pg_temp.digits(p_count integer) RETURNS text LANGUAGE sql AS $$
    SELECT '1' || repeat('0', p_count - 1);
$$;
-- The digits after a decimal point that make a value no rounding can keep: 0…01.
CREATE FUNCTION pg_temp.decimals(p_count integer) RETURNS text LANGUAGE sql AS $$
    SELECT repeat('0', p_count - 1) || '1';
$$;
-- A lot body written for real (not a dry run), with `p_members` after the four required fields.
CREATE FUNCTION pg_temp.lot_written_with(p_members text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.refusal('SELECT tests.put_lot(%L, ''lot-1'', %L)',
                           '{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true' || p_members || '}');
$$;

-- Numbers with thousands of digits ---------------------------------------------------------------------

SELECT is(pg_temp.rates(format('{"fixed_price": %s}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a number of 20 000 digits');
SELECT is(pg_temp.rates(format('{"fixed_price": "%s"}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a string of 20 000 digits');
SELECT is(pg_temp.rates(format('{"fixed_price": "0.%s"}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a string of 20 000 decimals');
SELECT is(pg_temp.rates(format('{"fixed_price": 0.%s}', pg_temp.decimals(16000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a number of 16 000 decimals');
SELECT is(pg_temp.rates(format('{"floor_price": "1.00", "base_price": "0.%s", "ceiling_price": "2.00"}', pg_temp.digits(20000))),
          'PT422 invalid_body base_price', 'base_price: a string of 20 000 decimals');
SELECT is(pg_temp.rates(format('{"fixed_price": "1.00", "min_first_day_price": %s}', pg_temp.digits(20000))),
          'PT422 invalid_body min_first_day_price', 'min_first_day_price: a number of 20 000 digits');
SELECT is(pg_temp.lot_with(format(', "latitude": %s, "longitude": 0', pg_temp.digits(20000))),
          'PT422 invalid_coordinates latitude', 'latitude: a number of 20 000 digits');
SELECT is(pg_temp.lot_with(format(', "latitude": "%s", "longitude": 0', pg_temp.digits(20000))),
          'PT422 invalid_coordinates latitude', 'latitude: a string of 20 000 digits');
SELECT is(pg_temp.lot_with(format(', "latitude": "1.%s", "longitude": 0', pg_temp.digits(20000))),
          'PT422 invalid_coordinates latitude', 'latitude: a string of 20 000 decimals');
SELECT is(pg_temp.lot_with(format(', "latitude": 1, "longitude": 1.%s', pg_temp.digits(16000))),
          'accepted', 'longitude: a number of 16 000 decimals within range is rounded to 6 like any other');
SELECT is(pg_temp.lot_with(format(', "latitude": 1, "longitude": "-1.%s"', pg_temp.digits(20000))),
          'PT422 invalid_coordinates longitude', 'longitude: a string of 20 000 decimals');
SELECT is(pg_temp.lot_with(format(', "%s": %s', f, pg_temp.digits(20000))), 'PT422 invalid_body ' || f, f || ': a number of 20 000 digits')
  FROM unnest(ARRAY['capacity', 'min_advance_days', 'min_stay_days', 'max_stay_days']) AS f;
SELECT is(pg_temp.lot_with(format(', "capacity": -%s', pg_temp.digits(20000))), 'PT422 invalid_body capacity',
          'capacity: a negative number of 20 000 digits');
SELECT is(pg_temp.lot_with(format(', "cancellation": {"free_until_hours_before_check_in": %s, "penalty_percent_after": "1", '
                                  '"no_show_forfeits_full": true}', pg_temp.digits(20000))),
          'PT422 invalid_body cancellation.free_until_hours_before_check_in', 'cancellation.free_until_hours_before_check_in: 20 000 digits');
SELECT is(pg_temp.lot_with(format(', "cancellation": {"free_until_hours_before_check_in": 1, "penalty_percent_after": "0.%s", '
                                  '"no_show_forfeits_full": true}', pg_temp.digits(20000))),
          'PT422 invalid_body cancellation.penalty_percent_after', 'cancellation.penalty_percent_after: 20 000 decimals');
SELECT is(tests.error_detail(format('SELECT platform.booking_record(%L, %L::jsonb)', operator,
                                    tests.booking_body('lot-1', jsonb_build_object('total', '0.' || pg_temp.digits(20000)))))
          , 'total', 'a booking total of 20 000 decimals is refused naming total') FROM fx;
SELECT is(tests.error_detail(format('SELECT platform.booking_record(%L, %L::jsonb)', operator,
                                    tests.booking_body('lot-1', jsonb_build_object('parking_days', pg_temp.digits(20000)::numeric))))
          , 'parking_days', 'booking parking_days of 20 000 digits is refused naming parking_days') FROM fx;

-- An array body is refused for its shape, whatever it holds --------------------------------------------

SELECT is(pg_temp.lot('[1e999]'), 'PT422 too_many_lots -', 'an array body is still refused for its shape');

-- Strings that look like keys or escapes are text, stored as sent ------------------------------------

SELECT is(pg_temp.lot_written_with(', "city": ":x", "arrival": {"note": ": see the map", "code": " :4", "q": "\":"}'), 'accepted',
          'strings opening with a colon, or with an escaped quote before one, are not keys: accepted');
SELECT is((SELECT city FROM tests.lot(operator, 'lot-1')), ':x', '… and stored as sent') FROM fx;
SELECT is(pg_temp.lot_written_with(', "arrival": {"null": "null", "0": 0, "x": [null, 0, {"null": null}]}'), 'accepted',
          'keys and strings spelling null, beside the keys and values 0: accepted');
SELECT is(pg_temp.lot_written_with(', "city": "Lake\nullswater", "arrival": {"note": "a\\null\\\nullage"}'), 'accepted',
          'a \n escape before "ull" (and a backslash before null) is text, never the invalid escape \0: accepted');
SELECT is((SELECT city FROM tests.lot(operator, 'lot-1')), E'Lake\nullswater', '… and stored as sent') FROM fx;

-- Nesting: the database reads what jsonb reads (the gateway bounds it lower: json_syntax::MAX_DEPTH) --

CREATE FUNCTION pg_temp.nested(p_depth integer) RETURNS text LANGUAGE sql AS $$
    SELECT '{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true, "zz": '
           || repeat('[', p_depth) || repeat(']', p_depth) || '}';
$$;
-- The deepest nesting a lot PUT reads (its answer turns from unknown_field to invalid_json), by bisection.
CREATE FUNCTION pg_temp.deepest_read() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_low integer := 1;
    v_high integer := 100000;
    v_middle integer;
BEGIN
    WHILE v_low < v_high LOOP
        v_middle := (v_low + v_high + 1) / 2;
        IF pg_temp.lot(pg_temp.nested(v_middle)) = 'PT422 invalid_json -' THEN
            v_high := v_middle - 1;
        ELSE
            v_low := v_middle;
        END IF;
    END LOOP;
    RETURN v_low;
END
$$;
CREATE TEMP TABLE deepest AS SELECT pg_temp.deepest_read() AS depth;
SELECT cmp_ok((SELECT depth FROM deepest), '>=', 10000,
              'a lot PUT reads bodies nested as deep as the gateway reads them (10 000) and more');
SELECT is((SELECT array_agg(DISTINCT pg_temp.lot(pg_temp.nested(d)))
             FROM deepest, generate_series(deepest.depth - 100, deepest.depth) AS d),
          ARRAY['PT422 unknown_field zz'], 'nested just short of the deepest read: read (unknown_field)');
SELECT is(pg_temp.lot(pg_temp.nested(d)), 'PT422 invalid_json -', 'nested deeper: invalid_json, never an error (' || d || ')')
  FROM deepest, LATERAL (VALUES (deepest.depth + 2000), (deepest.depth + 20000)) AS v(d);

-- The gateway's verdict, raised in its place in the order of checks ------------------------------------
-- (app.refuse_body_fault: after 401 and the caller's-lot check, before any rule about a value, before
-- the unchanged-body digest shortcut)

CREATE FUNCTION pg_temp.with_fault(p_call text, p_body text, p_fault jsonb, p_bearer text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(e.code || ' ' || e.message || ' ' || coalesce(e.detail, '-'), 'accepted')
      FROM fx, tests.error_of(format('SELECT tests.%s(%L, ''lot-1'', %L, true, %L)', p_call, coalesce(p_bearer, bearer), p_body, p_fault)) AS e;
$$;
SELECT is(pg_temp.with_fault('put_lot', tests.lot_body(), '{"error": "invalid_body", "field": "arrival.a", "nested": true}'),
          'PT422 invalid_body arrival.a', 'a lot body: the verdict is raised, with the lot route''s nested code');
SELECT is(pg_temp.with_fault('put_blocked_periods', '{"blocked_periods": []}', '{"error": "invalid_body", "field": "blocked_periods[3].reason", "nested": true}'),
          'PT422 invalid_blocked_periods blocked_periods[3].reason', 'closures: a nested fault is invalid_blocked_periods');
SELECT is(pg_temp.with_fault('put_blocked_periods', '{"blocked_periods": []}', '{"error": "invalid_body", "field": "blocked_periods", "nested": false}'),
          'PT422 invalid_body blocked_periods', 'closures: a top-level fault is invalid_body');
SELECT is(pg_temp.with_fault('put_rates', '{"fixed_price": "10.00"}', '{"error": "invalid_json", "nested": false}'),
          'PT422 invalid_json -', 'rates: invalid_json, no field');
SELECT is(pg_temp.with_fault('put_lot', tests.lot_body(), '{"error": "invalid_body", "nested": false}'),
          'PT422 invalid_body -', 'a fault without a field names none');
SELECT is(pg_temp.with_fault(c, '{}', '{"error": "invalid_json", "nested": false}', 'ik_live_nobody.secret'),
          'PT401 unauthorized -', c || ': an unknown credential is 401 before the body fault')
  FROM unnest(ARRAY['put_lot', 'put_rates', 'put_blocked_periods']) AS c;
SELECT is((tests.error_of(format('SELECT tests.%s(%L, ''not-mine'', ''{}'', true, %L)', c, bearer, '{"error": "invalid_json", "nested": false}'))).code,
          'PT401', c || ': a lot that is not the caller''s is 401 before the body fault')
  FROM fx, unnest(ARRAY['put_rates', 'put_blocked_periods']) AS c;
SELECT is(tests.error_detail(format('SELECT tests.put_lot(%L, NULL, ''{}'', true, %L)', bearer, '{"error": "invalid_json", "nested": false}')),
          'external_id', 'a path id that is no external id comes before the body fault') FROM fx;
SELECT is(pg_temp.with_fault('put_lot', '{"name": " "}', '{"error": "invalid_body", "field": "zz", "nested": false}'),
          'PT422 invalid_body zz', 'the body fault comes before every rule about a value');
-- The body lot-1 was last written with, sent again: the digest shortcut would answer unchanged.
SELECT tests.put_lot(bearer, 'lot-1', tests.lot_body()) FROM fx;
SELECT is((tests.put_lot(bearer, 'lot-1', tests.lot_body())).body ->> 'result', 'unchanged', 'the same text again: unchanged') FROM fx;
SELECT is(pg_temp.with_fault('put_lot', tests.lot_body(), '{"error": "invalid_body", "field": "name", "nested": false}'),
          'PT422 invalid_body name', 'the body fault comes before the unchanged-body digest shortcut');
SELECT is((tests.error_of(format('SELECT tests.put_lot(%L, ''lot-1'', %L, true, %L)', bearer, tests.lot_body(), v))).code, 'P0001',
          'a verdict of an unknown shape is an internal error, never an answer: ' || v) FROM fx,
  unnest(ARRAY['"x"', '{"error": "unknown_field", "nested": false}', '{"error": "invalid_body"}',
               '{"error": "invalid_body", "nested": false, "field": 1}', '{"error": "invalid_body", "nested": false, "status": 200}',
               '{"error": "invalid_json", "nested": true}', '{"error": "invalid_json", "nested": false, "field": "a"}',
               '{"error": "invalid_body", "nested": true}', '{"error": "invalid_body", "nested": false, "field": null}']) AS v;

-- The backstop: a body jsonb cannot read, with no verdict, is still bad input, never a 500 -----------

SELECT is(pg_temp.lot(b), 'PT422 invalid_json -', 'no verdict, not JSON: invalid_json') FROM unnest(ARRAY['{', '', '{"a": 1,}', 'nul']) AS b;
SELECT is((tests.error_of(format('SELECT tests.put_lot(%L, ''lot-1'', NULL, true)', bearer))).message, 'invalid_json',
          'no verdict, no body text (not UTF-8): invalid_json') FROM fx;
SELECT is(pg_temp.lot_with(m), 'PT422 invalid_body -', 'no verdict, a token jsonb cannot hold: invalid_body, no field')
  FROM unnest(ARRAY[', "city": "x\u0000"', ', "city": "\ud800"', ', "capacity": 1e1000000']) AS m;
SELECT is(pg_temp.rates('{"fixed_price": 1e1000000}'), 'PT422 invalid_body -', 'rates: the same');
SELECT is(pg_temp.closures('{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "reason": "\u0000"}]}'),
          'PT422 invalid_body -', 'closures: the same');

-- Whatever the locale -----------------------------------------------------------------------------------

SELECT is(pg_temp.lot_written_with(', "country_code": "' || E'\u00a0' || 'fr' || E'\u2003' || '"'), 'accepted',
          'country_code: no-break and em spaces around it are white space, trimmed');
SELECT is((SELECT country_code FROM tests.lot(operator, 'lot-1')), 'FR', '… and it is stored upper-case') FROM fx;
SELECT is(pg_temp.lot_with(', "country_code": "g' || E'\u0131' || '"'), 'PT422 invalid_country_code country_code',
          'country_code: a dotless ı is not an I (upper-casing is ASCII only)');
SELECT is(pg_temp.lot_with(', "country_code": "' || E'\u200b' || 'GB"'), 'PT422 invalid_country_code country_code',
          'country_code: a zero-width space is not white space');
SELECT is(pg_temp.lot_written_with(', "features": ["valet", "ev_charging", "cameras", "valet"]'), 'accepted', 'features are accepted');
SELECT is((SELECT features FROM tests.lot(operator, 'lot-1')), ARRAY['cameras', 'ev_charging', 'valet'],
          '… stored as a set in byte order') FROM fx;
SELECT is(pg_temp.lot_with(', "Zz": 1, "ab": 1'), 'PT422 unknown_field Zz', 'the first unknown key in byte order (Z before a)');
SELECT is(pg_temp.lot_with(', "cancellation": {"zz": 1, "Zz": 1}'), 'PT422 unknown_field cancellation.Zz',
          'inside an object too');
SELECT is(pg_temp.closures('{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "zz": 1, "Zz": 1}]}'),
          'PT422 invalid_blocked_periods blocked_periods[0].Zz', 'and in a closure entry');
SELECT is(pg_temp.rates('{"currency": "' || E'\u0131' || 'dr", "fixed_price": "1"}'), 'PT422 invalid_body currency',
          'a currency with a dotless ı is not three letters');
SELECT is(pg_temp.rates('{"currency": "eur", "fixed_price": "1"}'), 'accepted', 'a lower-case currency is its code');
SELECT is(pg_temp.lot_with(', "media": {"heroUrl": "https://p.example/LOT-MEDIA/x.jpg"}'), 'PT422 invalid_body media',
          'lot-media in capitals is still the media rule''s text');
SELECT is(pg_temp.lot_with(', "media": {"heroUrl": "https://p.example/lot-med' || E'\u0130' || 'a/x.jpg"}'), 'accepted',
          'a capital dotted İ is not an i: that path does not hold lot-media');

SELECT * FROM finish();
ROLLBACK;
