-- Bodies at the edges (issue 9 §5): a key given twice in a nested object is refused like one at the
-- top level; a number with thousands of digits in any numeric field is a 422 naming the field, never
-- a 500; trimming and "first in byte order" do not depend on the database's locale (this file also
-- runs in a database of locale en_US.UTF-8: see pgtap/run.sh).
BEGIN;
SELECT plan(83);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, tests.issue_credential(o) AS bearer FROM tests.make_operator('Body edges') AS o;
GRANT SELECT ON fx TO PUBLIC;
SELECT tests.put_lot(bearer, 'lot-1', tests.lot_body()) FROM fx;

-- The refusal of a raw body text (duplicate keys survive only as text), as 'code message detail',
-- or 'accepted'.
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

-- A key given twice, at any depth --------------------------------------------------------------------

SELECT is(pg_temp.lot_with(', "cancellation": {"free_until_hours_before_check_in": 1, "free_until_hours_before_check_in": 2, '
                           '"penalty_percent_after": "10.00", "no_show_forfeits_full": true}'),
          'PT422 invalid_body cancellation.free_until_hours_before_check_in',
          'a key twice inside cancellation: invalid_body naming cancellation.<key>');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "North", "entrance": "South"}'),
          'PT422 invalid_body arrival.entrance', 'a key twice directly inside arrival: arrival.<key>');
SELECT is(pg_temp.lot_with(', "arrival": {"transfer": {"line": "7", "line": "8"}}'),
          'PT422 invalid_body arrival', 'a key twice deeper inside arrival: the member, arrival');
SELECT is(pg_temp.lot_with(', "media": {"heroUrl": "https://p.example/1.jpg", "heroUrl": "https://p.example/2.jpg"}'),
          'PT422 invalid_body media.heroUrl', 'a key twice inside media: media.<key>');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "a", "entrance": "b"}, "media": {"heroUrl": "x", "heroUrl": "y"}'),
          'PT422 invalid_body arrival.entrance', 'of two objects repeating a key, the first in the body is named');
SELECT is(pg_temp.lot_with(', "arrival": {"transfer": {"line": "7"}, "line": "8"}'),
          'accepted', 'the same key in two different objects is no repetition');
SELECT is(pg_temp.lot_with(', "Zq": 1, "aq": 1, "aq": 2, "Zq": 2'),
          'PT422 invalid_body Zq', 'of two keys repeated at the top level, the first in byte order (Z before a) is named');
SELECT is(pg_temp.lot_with(', "arrival": {"b": 1, "b": 2, "B": 1, "B": 2}'),
          'PT422 invalid_body arrival.B', 'inside an object too, the first repeated key in byte order');
SELECT is(pg_temp.closures('{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01"}, '
                           '{"starts_on": "2026-02-01", "starts_on": "2026-02-02", "ends_on": "2026-02-03"}]}'),
          'PT422 invalid_blocked_periods blocked_periods[1].starts_on',
          'a key twice in a closure entry: invalid_blocked_periods naming the entry''s key');
SELECT is(pg_temp.closures('{"blocked_periods": [], "blocked_periods": []}'),
          'PT422 invalid_body blocked_periods', 'blocked_periods twice at the top level: invalid_body');
SELECT is(pg_temp.rates('{"fixed_price": "10.00", "fixed_price": "11.00"}'),
          'PT422 invalid_body fixed_price', 'a rates key twice: invalid_body');

-- Numbers with thousands of digits ---------------------------------------------------------------------

SELECT is(pg_temp.rates(format('{"fixed_price": %s}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a number of 20 000 digits');
SELECT is(pg_temp.rates(format('{"fixed_price": "%s"}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a string of 20 000 digits');
SELECT is(pg_temp.rates(format('{"fixed_price": "0.%s"}', pg_temp.digits(20000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a string of 20 000 decimals');
SELECT is(pg_temp.rates(format('{"fixed_price": 0.%s}', pg_temp.decimals(16000))), 'PT422 invalid_body fixed_price',
          'fixed_price: a number of 16 000 decimals');
SELECT is(pg_temp.rates('{"fixed_price": 1e1000000}'), 'PT422 invalid_body fixed_price',
          'fixed_price: a number beyond what PostgreSQL can hold');
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
SELECT is(pg_temp.lot_with(format(', "latitude": 1e1000000, "longitude": 0')),
          'PT422 invalid_body latitude', 'latitude: a number beyond what PostgreSQL can hold');
SELECT is(tests.error_detail(format('SELECT platform.booking_record(%L, %L::jsonb)', operator,
                                    tests.booking_body('lot-1', jsonb_build_object('total', '0.' || pg_temp.digits(20000)))))
          , 'total', 'a booking total of 20 000 decimals is refused naming total') FROM fx;
SELECT is(tests.error_detail(format('SELECT platform.booking_record(%L, %L::jsonb)', operator,
                                    tests.booking_body('lot-1', jsonb_build_object('parking_days', pg_temp.digits(20000)::numeric))))
          , 'parking_days', 'booking parking_days of 20 000 digits is refused naming parking_days') FROM fx;

-- Numbers written with an exponent beyond ±20 --------------------------------------------------------
-- PostgreSQL writes numbers out in full: 64 KiB of 1e130000 would be gigabytes of text. Such a number is
-- out of every range: invalid_body naming the top-level member, before any other rule reads the body.

SELECT is(pg_temp.lot_with(', "latitude": 1e21, "longitude": 0'), 'PT422 invalid_body latitude',
          'latitude 1e21: an exponent beyond 20 is out of every range');
SELECT is(pg_temp.lot_with(', "latitude": 1e20, "longitude": 0'), 'PT422 invalid_coordinates latitude',
          'latitude 1e20: an exponent of 20 is read, and out of the latitude range');
SELECT is(pg_temp.lot_with(', "latitude": 4.5e-05, "longitude": 1.2246467991473532e-16'), 'accepted',
          'small exponents as serializers write them (4.5e-05, 1.22e-16) are read');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "North", "n": 1e-21}'), 'PT422 invalid_body arrival',
          'an exponent of -21 deep in arrival names arrival');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "North", "n": 1E+0021}'), 'PT422 invalid_body arrival',
          'leading zeros do not hide an exponent of 21');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "North", "n": 2.5e0020}'), 'accepted',
          'an exponent of 20 written with leading zeros is read');
SELECT is(pg_temp.lot_with(', "arrival": {"entrance": "Gate E21 by 1e999 \"1e999\""}'), 'accepted',
          'exponents inside a string are text, not numbers');
SELECT is(pg_temp.lot_with(', "city": "a \"1e21\" b", "arrival": {"note": "ref 0f7e29c1", "1e99": "x\\", "n": 3e25}'),
          'PT422 invalid_body arrival', 'exponents in strings, keys and after escaped quotes before a number''s: the number''s member named');
SELECT is(pg_temp.lot_with(', "city": "a \"1e21\" b", "arrival": {"note": "ref 0f7e29c1", "1e99": "x\\"}'), 'accepted',
          '… and without that number: accepted');
SELECT is(pg_temp.lot_with(', ' || (SELECT string_agg(format('"k%s": "%se99"', i, i), ', ') FROM generate_series(1, 3000) AS i)
                           || ', "z1": 7, "z2": [1, 1e-30], "z3": 1e21'),
          'PT422 invalid_body z2', 'of 3 000 members whose strings look like exponents and two holding numbers beyond ±20, the first number''s');
SELECT is(pg_temp.lot_with(', "zz": 5E+100'), 'PT422 invalid_body zz',
          'an unknown member holding 5E+100: invalid_body, before the unknown key is looked at');
SELECT is(pg_temp.lot_with(', "zz": [' || array_to_string(array_fill('1e130000'::text, ARRAY[7000]), ',') || ']'),
          'PT422 invalid_body zz', '63 KB of 1e130000 (numbers PostgreSQL holds): refused, never written out');
SELECT is(pg_temp.rates('{"fixed_price": 1e-21}'), 'PT422 invalid_body fixed_price', 'rates: fixed_price 1e-21');
SELECT is(pg_temp.closures('{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "n": 1e999}]}'),
          'PT422 invalid_body blocked_periods', 'closures: an exponent of 999 in an entry names blocked_periods');
SELECT is(pg_temp.lot('[1e999]'), 'PT422 too_many_lots -', 'an array body is still refused for its shape');

-- A key given twice among thousands of objects: the first in the body is named ------------------------

CREATE FUNCTION pg_temp.entries(p_count integer, p_at integer[], p_entry text) RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(CASE WHEN i = ANY (p_at) THEN p_entry ELSE '{"starts_on": "2026-01-01", "ends_on": "2026-01-02"}' END, ', ' ORDER BY i)
      FROM generate_series(0, p_count - 1) AS i;
$$;
SELECT is(pg_temp.closures('{"blocked_periods": [' || pg_temp.entries(900, ARRAY[899], '{"reason": "a", "reason": "b"}') || ']}'),
          'PT422 invalid_blocked_periods blocked_periods[899].reason', 'a key twice in the last of 900 entries');
SELECT is(pg_temp.closures('{"blocked_periods": [' || pg_temp.entries(900, ARRAY[517, 13], '{"reason": "a", "reason": "b"}') || ']}'),
          'PT422 invalid_blocked_periods blocked_periods[13].reason', 'of two entries repeating a key, the first');
SELECT is(pg_temp.closures('{"blocked_periods": [' || pg_temp.entries(900, ARRAY[0], '{"reason": "a", "\u0072eason": "b"}') || ']}'),
          'PT422 invalid_blocked_periods blocked_periods[0].reason', 'a key twice once its escapes are read');
SELECT is(pg_temp.closures('{"blocked_periods": [' || pg_temp.entries(900, ARRAY[700], '{"x": {"a": 1, "a": 2}}') || ']}'),
          'PT422 invalid_blocked_periods blocked_periods', 'a key twice deeper inside an entry names blocked_periods');
SELECT is(pg_temp.lot_with(', "arrival": {' || (SELECT string_agg(format('"k%s": {"a": %s}', i, i), ', ') FROM generate_series(1, 2000) AS i)
                           || ', "kz": {"a": 1, "a": 2}}'),
          'PT422 invalid_body arrival', 'a key twice in the last of 2 000 objects inside arrival');

-- Only values with two key marks or more are searched; an element is named by its place among all
SELECT is(pg_temp.closures('{"blocked_periods": [1, {}, {"reason": "x"}, "\":\":", {"starts_on": "2026-01-01", "ends_on": "2026-01-02"}, '
                           || '{"reason": "a", "reason": "b"}]}'),
          'PT422 invalid_blocked_periods blocked_periods[5].reason',
          'elements that cannot repeat a key (a number, {}, one key, a string of two marks) still count in the index');
SELECT is(pg_temp.closures('{"blocked_periods": [' || repeat('{}, ', 1000) || '{"reason": "a", "reason": "b"}, {"reason": "c", "reason": "d"}]}'),
          'PT422 invalid_blocked_periods blocked_periods[1000].reason',
          'a key twice after 1 000 empty objects: its place among all the elements');
SELECT is(pg_temp.lot_with(', "arrival": {"a": "\":\":"}, "city": "\":\":", "media": {"x": 1}, "cancellation": {"b": 1, "b": 2}'),
          'PT422 invalid_body cancellation.b',
          'members that cannot repeat a key, or hold marks only in strings, before the one that does: that one is named');

-- Keys sent and held are counted exactly: a string's colons never pass for a key -----------------------

SELECT is(pg_temp.lot_written_with(', "city": ":x", "arrival": {"note": ": see the map", "code": " :4", "q": "\":"}'), 'accepted',
          'strings opening with a colon, or with an escaped quote before one, are not keys: accepted');
SELECT is((SELECT city FROM tests.lot(operator, 'lot-1')), ':x', '… and stored as sent') FROM fx;
SELECT is(pg_temp.lot_with(', "city": ":x", "arrival": {"a": 1, "a": 2}'), 'PT422 invalid_body arrival.a',
          'a string opening with a colon before the member that repeats a key: that member is named');
SELECT is(pg_temp.lot_with(', "city": "\u003a x", "arrival": {"a": 1, "a": 2}'), 'PT422 invalid_body arrival.a',
          'a colon written as \u003a does not hide a key given twice');
SELECT is(pg_temp.lot_with(', "arrival": {"a": null, "a": 1}'), 'PT422 invalid_body arrival.a', 'a key twice, the first null');
SELECT is(pg_temp.lot_with(', "arrival": {"a": null, "a": null}'), 'PT422 invalid_body arrival.a', 'a key twice, both null');
SELECT is(pg_temp.lot_written_with(', "arrival": {"null": "null", "0": 0, "x": [null, 0, {"null": null}]}'), 'accepted',
          'keys and strings spelling null, beside the keys and values 0: accepted');
SELECT is(pg_temp.closures('{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-02", "reason": ":a"}, '
                           || '{"starts_on": "2026-01-03", "ends_on": "2026-01-04", "null": 1, "null": 2}]}'),
          'PT422 invalid_blocked_periods blocked_periods[1].null', 'a key named null given twice in an entry, after a reason opening with a colon');
SELECT is(pg_temp.lot_written_with(', "city": "Lake\nullswater", "arrival": {"note": "a\\null\\\nullage"}'), 'accepted',
          'a \n escape before "ull" (and a backslash before null) is text, never the invalid escape \0: accepted');
SELECT is((SELECT city FROM tests.lot(operator, 'lot-1')), E'Lake\nullswater', '… and stored as sent') FROM fx;
SELECT is(pg_temp.lot_with(', "city": "Lake\nullswater", "arrival": {"a": 1, "a": 2}'), 'PT422 invalid_body arrival.a',
          'a \n escape before "ull" beside a key given twice: that member is named');

-- Nested just short of what jsonb reads: every later reading of the body is a few frames deeper -------

CREATE FUNCTION pg_temp.nested(p_depth integer, p_repeat boolean) RETURNS text LANGUAGE sql AS $$
    SELECT '{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true, "zz": '
           || repeat('[', p_depth) || repeat(']', p_depth) || CASE WHEN p_repeat THEN ', "zz": 1' ELSE '' END || '}';
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
        IF pg_temp.lot(pg_temp.nested(v_middle, false)) = 'PT422 invalid_json -' THEN
            v_high := v_middle - 1;
        ELSE
            v_low := v_middle;
        END IF;
    END LOOP;
    RETURN v_low;
END
$$;
CREATE TEMP TABLE deepest AS SELECT pg_temp.deepest_read() AS depth;
SELECT cmp_ok((SELECT depth FROM deepest), '>', 1000, 'a lot PUT reads bodies nested a thousand deep and more');
SELECT is((SELECT array_agg(DISTINCT a) FILTER (WHERE a NOT IN ('PT422 invalid_body zz', 'PT422 invalid_json -'))
             FROM deepest, generate_series(deepest.depth - 100, deepest.depth + 3) AS d,
                  pg_temp.lot(pg_temp.nested(d, true)) AS a),
          NULL,
          'a key twice beside a member nested just short of the deepest read: invalid_body or invalid_json, never an error');
SELECT is((SELECT array_agg(DISTINCT pg_temp.lot(pg_temp.nested(d, false)))
             FROM deepest, generate_series(deepest.depth - 100, deepest.depth) AS d),
          ARRAY['PT422 unknown_field zz'], 'nested just short of the deepest read, and no key twice: read (unknown_field)');

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
