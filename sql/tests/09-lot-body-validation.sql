-- PUT /lots/{external_id}: every row of the lot write body's field table and the decisions of
-- docs/design.md, called as the gateway (api.lot_put, role ingest_gateway). Each refusal is PT422
-- with the error code as MESSAGE and the caller's field as DETAIL (none for a body that is not an
-- object); each accepted value is checked in the Lot read back. The media rule has its own section.
-- A refused PUT stores nothing.
BEGIN;
SELECT plan(295);

-- Operator A (media folder `harbour`) writes; operator Q (folder `quay`) only owns a folder.
CREATE TEMP TABLE fx AS
SELECT a, tests.issue_credential(a, ARRAY['write_supply']) AS bearer
  FROM tests.make_operator('Harbour Parking', 'GBP', 'harbour') AS a;
SELECT tests.make_operator('Quay Parking', 'GBP', 'quay');
GRANT SELECT ON fx TO PUBLIC;

-- A PUT of the new lot `refused` with this body is refused: PT422, p_error, DETAIL p_field.
CREATE FUNCTION pg_temp.refused(p_body text, p_error text, p_field text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L)', bearer, 'refused', p_body),
                         'PT422', p_error, p_field, p_description)
      FROM fx;
$$;

-- A PUT of lot `accepted` with this body is accepted, and the Lot read back holds p_expected under
-- p_key (JSON null: 'null'). A refusal fails the test and shows the error.
CREATE FUNCTION pg_temp.accepts(p_body text, p_key text, p_expected jsonb, p_description text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_answer record;
    v_code text;
    v_message text;
    v_detail text;
BEGIN
    BEGIN
        SELECT * INTO v_answer FROM tests.put_lot((SELECT bearer FROM fx), 'accepted', p_body);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS v_code = RETURNED_SQLSTATE, v_message = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL;
        RETURN ok(false, p_description) || E'\n'
            || diag('      refused: ' || v_code || ' ' || v_message || coalesce(' DETAIL ' || nullif(v_detail, ''), ''));
    END;
    RETURN is(v_answer.body -> 'lot' -> p_key, p_expected, p_description);
END
$$;

-- The body with the `media` member replaced, for the media rule.
CREATE FUNCTION pg_temp.with_media(p_media jsonb)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.lot_body(jsonb_build_object('media', p_media));
$$;

-- A media object holding one address as heroUrl.
CREATE FUNCTION pg_temp.hero(p_url text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT pg_temp.with_media(jsonb_build_object('heroUrl', p_url));
$$;

-- The body sound: the complete and the minimal test bodies are accepted --------------------------------

SELECT pg_temp.accepts(tests.lot_body(), 'name', '"Harbour Car Park"', 'the complete test body is accepted');
SELECT pg_temp.accepts(tests.minimal_lot_body(), 'name', '"Bare lot"', 'the four required fields alone are accepted');

-- Not a JSON object ----------------------------------------------------------------------------------

SELECT pg_temp.refused('not json', 'invalid_json', NULL, 'a body that is not JSON is invalid_json');
SELECT pg_temp.refused(left(tests.lot_body(), -1), 'invalid_json', NULL, 'a truncated body is invalid_json');
SELECT pg_temp.refused('{"name": "x",}', 'invalid_json', NULL, 'a trailing comma is invalid_json');
SELECT pg_temp.refused('', 'invalid_json', NULL, 'an empty body is invalid_json');
SELECT pg_temp.refused(NULL, 'invalid_json', NULL, 'no body at all is invalid_json');
SELECT pg_temp.refused(repeat('[', 100000), 'invalid_json', NULL,
                       'an unclosed nesting 100000 deep is invalid_json, not a server error');
SELECT pg_temp.refused(repeat('[', 100000) || repeat(']', 100000), 'invalid_json', NULL,
                       'well-formed JSON nested deeper than the parser allows is invalid_json');
SELECT pg_temp.refused('{"arrival": ' || repeat('{"a": ', 20000) || '1' || repeat('}', 20000) || '}', 'invalid_json', NULL,
                       'objects nested deeper than the parser allows inside a member are invalid_json');
SELECT pg_temp.refused('[]', 'too_many_lots', NULL, 'an empty array body is too_many_lots');
SELECT pg_temp.refused('[' || tests.lot_body() || ']', 'too_many_lots', NULL, 'an array holding one lot is too_many_lots');
SELECT pg_temp.refused('[' || tests.lot_body() || ', ' || tests.lot_body() || ']', 'too_many_lots', NULL,
                       'an array of two lots is too_many_lots');
SELECT pg_temp.refused('"Harbour Car Park"', 'invalid_body', NULL, 'a string body is invalid_body without a field');
SELECT pg_temp.refused('42', 'invalid_body', NULL, 'a number body is invalid_body without a field');
SELECT pg_temp.refused('true', 'invalid_body', NULL, 'a boolean body is invalid_body without a field');
SELECT pg_temp.refused('null', 'invalid_body', NULL, 'a null body is invalid_body without a field');

-- Keys: rates, unknown keys (a key given twice is the gateway's: src/json_syntax.rs) ------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body('{"rates": {"base_price": "10.00"}}'), 'field_belongs_to_another_route', 'rates',
                       'a rates member is field_belongs_to_another_route, field rates');
SELECT pg_temp.refused(tests.lot_body('{"rates": null}'), 'field_belongs_to_another_route', 'rates',
                       'a rates member is refused even when null');
SELECT pg_temp.refused(tests.lot_body('{"rates": null, "colour": "blue"}'), 'field_belongs_to_another_route', 'rates',
                       'rates is reported before an unknown key');
SELECT pg_temp.refused(tests.lot_body('{"colour": "blue"}'), 'unknown_field', 'colour', 'an unknown top-level key is unknown_field naming it');
SELECT pg_temp.refused(tests.lot_body('{"Name": "x"}'), 'unknown_field', 'Name', 'keys are case-sensitive: Name is unknown');
-- (app.refuse_unknown_keys looks for unknown keys two ways: by an expression in an object of at most
-- 2 KiB, by a query in a larger one; both answer the same)
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('colour', repeat('b', 4000))), 'unknown_field', 'colour',
                       'an unknown key in a body over 2 KiB is unknown_field naming it too');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('zz', repeat('b', 4000), 'colour', 'blue')), 'unknown_field', 'colour',
                       'the first unknown key in byte order, in a body over 2 KiB');
SELECT pg_temp.refused(tests.lot_body('{"operator_id": "x"}'), 'unknown_field', 'operator_id', 'an operator id in the body is an unknown key');
SELECT pg_temp.refused(tests.lot_body('{"review_state": "approved"}'), 'unknown_field', 'review_state',
                       'review_state cannot be written: unknown_field');
SELECT pg_temp.refused(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.00", "no_show_forfeits_full": true, "x": 1}}'),
    'unknown_field', 'cancellation.x', 'an unknown key inside cancellation is unknown_field cancellation.x');
SELECT pg_temp.accepts(tests.lot_body('{"city": "a\": b\\\": c"}'), 'city', '"a\": b\\\": c"',
                       'strings holding escaped quotes, backslashes and colons are no repeated key');

-- What jsonb cannot hold: invalid_body, never a 500, nothing stored ------------------------------------------
-- (The member is named by the gateway, whose verdict these calls do not carry: src/json_syntax.rs and
-- gateway/tests/integration/body_syntax.rs; without one, the database's backstop names no field.)

SELECT pg_temp.refused(replace(tests.lot_body(), '"Harbour Car Park"', '"Harbour\u0000Park"'), 'invalid_body', NULL,
                       'a \u0000 in the name is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"London"', '"Lon\ud800don"'), 'invalid_body', NULL,
                       'a lone high surrogate in the city is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"London"', '"London\udc00"'), 'invalid_body', NULL,
                       'a lone low surrogate in the city is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"North gate, Dock Road"', '"North\u0000gate"'), 'invalid_body', NULL,
                       'a \u0000 deep inside arrival is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"capacity": 120', '"capacity": 1e1000000'), 'invalid_body', NULL,
                       'a number out of every range (1e1000000) is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body('{"media": {"width": 7}}'), '"width": 7', '"width": 1e1000000'), 'invalid_body', NULL,
                       'a number out of every range nested in media is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"Harbour Car Park"', '"Harbour \"Car\" Park\u0000"'), 'invalid_body', NULL,
                       'escaped quotes before a \u0000: invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"North gate, Dock Road"',
                               '"North gate", "' || (SELECT string_agg(format('k%s": "\u0041", "', i), '') FROM generate_series(1, 2000) AS i) || 'last": "\u0000"'),
                       'invalid_body', NULL,
                       'among 2 000 members with escapes, the one value jsonb cannot hold: invalid_body');
SELECT pg_temp.refused(replace(replace(tests.lot_body(), '"Harbour Car Park"', '"Harbour ~3u0000 ~0~1~2 \\u0000 \\\" \\"'),
                               '"London"', '"Lon\u0000don"'), 'invalid_body', NULL,
                       'tildes, escaped backslashes before u0000 and escaped quotes, then a \u0000: invalid_body');
SELECT pg_temp.refused('{"name": "x", "caf\u00e9~": "\u0000"}', 'invalid_body', NULL,
                       'a \u0000 under a key with escapes and tildes: invalid_body');
SELECT pg_temp.refused('{"name": "x", "k\u0000": 1, "city": "\u0000"}', 'invalid_body', NULL,
                       'a top-level key jsonb cannot hold: invalid_body');
SELECT pg_temp.accepts(replace(tests.lot_body(), '"London"', '"Lon\ud83d\ude97don"'), 'city', '"Lon🚗don"',
                       'a surrogate pair is a character and is accepted');

-- external_id: checked, not used ---------------------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body('{"external_id": "other"}'), 'invalid_body', 'external_id',
                       'a body external_id different from the path is invalid_body, field external_id');
SELECT pg_temp.refused(tests.lot_body('{"external_id": "REFUSED"}'), 'invalid_body', 'external_id',
                       'external_id comparison is exact: another letter case differs');
SELECT pg_temp.refused(tests.lot_body('{"external_id": "refused "}'), 'invalid_body', 'external_id',
                       'external_id comparison is exact: a trailing space differs');
SELECT pg_temp.refused(tests.lot_body('{"external_id": 42}'), 'invalid_body', 'external_id', 'a numeric body external_id is invalid_body');
SELECT pg_temp.accepts(tests.lot_body('{"external_id": "accepted"}'), 'external_id', '"accepted"',
                       'a body external_id equal to the path is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"external_id": null}'), 'external_id', '"accepted"', 'a null body external_id is accepted');
-- (Whether a path segment is 1-200 characters of UTF-8 is the gateway's rule: it passes NULL for any
-- other, gateway/tests/integration/lots.rs.)
SELECT tests.refuses(format('SELECT tests.put_lot(%L, NULL, %L)', bearer, tests.lot_body()), 'PT422', 'invalid_body', 'external_id',
                     'a path external_id that the gateway could not decode (NULL) is invalid_body, field external_id') FROM fx;
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.bearer, repeat('é', 200), tests.lot_body()) AS p), 201,
          'a path external_id of 200 characters (400 bytes) creates a lot');
SELECT is((SELECT p.body -> 'lot' ->> 'external_id' FROM fx, tests.put_lot(fx.bearer, 'a/b c', tests.lot_body('{"external_id": "a/b c"}')) AS p),
          'a/b c', 'an external_id holding a slash and a space is the operator''s own string');

-- name: required, 1-200, blank counts as absent ---------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['name']), 'missing_field', 'name', 'an absent name is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"name": null}'), 'missing_field', 'name', 'a null name is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"name": ""}'), 'missing_field', 'name', 'an empty name counts as absent: missing_field');
SELECT pg_temp.refused(tests.lot_body('{"name": "   "}'), 'missing_field', 'name', 'a name of spaces counts as absent');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('name', E'\t')), 'missing_field', 'name', 'a name of a tab counts as absent');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('name', E' \n\r\t ')), 'missing_field', 'name',
                       'a name of mixed white space counts as absent');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('name', repeat('n', 201))), 'invalid_body', 'name',
                       'a name of 201 characters is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"name": 42}'), 'invalid_body', 'name', 'a numeric name is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"name": ["Harbour"]}'), 'invalid_body', 'name', 'an array name is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"name": true}'), 'invalid_body', 'name', 'a boolean name is invalid_body');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('name', repeat('n', 200))), 'name', to_jsonb(repeat('n', 200)),
                       'a name of 200 characters is accepted');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('name', repeat('ü', 200))), 'name', to_jsonb(repeat('ü', 200)),
                       'the limit counts characters, not bytes: 200 ü are accepted');
SELECT pg_temp.accepts(tests.lot_body('{"name": "  Pier 4  "}'), 'name', '"  Pier 4  "', 'a name is stored verbatim, never trimmed');
SELECT pg_temp.accepts(tests.lot_body('{"name": "x"}'), 'name', '"x"', 'a name of one character is accepted');

-- timezone: required, an exact IANA zone or link name ------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['timezone']), 'missing_field', 'timezone', 'an absent timezone is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"timezone": null}'), 'missing_field', 'timezone', 'a null timezone is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"timezone": ""}'), 'invalid_timezone', 'timezone', 'an empty timezone is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "posix/Europe/London"}'), 'invalid_timezone', 'timezone',
                       'posix/Europe/London (in pg_timezone_names, not tzdata) is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "right/UTC"}'), 'invalid_timezone', 'timezone', 'right/UTC is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "europe/london"}'), 'invalid_timezone', 'timezone', 'a zone in the wrong case is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "Europe/London "}'), 'invalid_timezone', 'timezone', 'a zone with a trailing space is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "localtime"}'), 'invalid_timezone', 'timezone', 'localtime is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "posixrules"}'), 'invalid_timezone', 'timezone', 'posixrules is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "Factory"}'), 'invalid_timezone', 'timezone', 'Factory is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "Mars/Phobos"}'), 'invalid_timezone', 'timezone', 'a made-up zone is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "BST"}'), 'invalid_timezone', 'timezone',
                       'an abbreviation that is not a zone (BST) is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "CEST"}'), 'invalid_timezone', 'timezone', 'CEST is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "+01:00"}'), 'invalid_timezone', 'timezone', 'an offset is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": "GMT+1"}'), 'invalid_timezone', 'timezone', 'a POSIX TZ string GMT+1 is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": 42}'), 'invalid_timezone', 'timezone', 'a numeric timezone is invalid_timezone');
SELECT pg_temp.refused(tests.lot_body('{"timezone": ["Europe/London"]}'), 'invalid_timezone', 'timezone', 'an array timezone is invalid_timezone');
SELECT pg_temp.accepts(tests.lot_body('{"timezone": "US/Eastern"}'), 'timezone', '"US/Eastern"', 'the link US/Eastern is accepted and stored as sent');
SELECT pg_temp.accepts(tests.lot_body('{"timezone": "America/Argentina/Buenos_Aires"}'), 'timezone', '"America/Argentina/Buenos_Aires"',
                       'a three-level zone is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"timezone": "UTC"}'), 'timezone', '"UTC"', 'UTC is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"timezone": "EST5EDT"}'), 'timezone', '"EST5EDT"', 'EST5EDT is a tzdata zone and is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"timezone": "Etc/GMT+1"}'), 'timezone', '"Etc/GMT+1"', 'Etc/GMT+1 is accepted');

-- handover: required, self or attended ------------------------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['handover']), 'missing_field', 'handover', 'an absent handover is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"handover": null}'), 'missing_field', 'handover', 'a null handover is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"handover": "valet"}'), 'invalid_body', 'handover', 'handover valet is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"handover": "Self"}'), 'invalid_body', 'handover', 'handover Self (wrong case) is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"handover": ""}'), 'invalid_body', 'handover', 'an empty handover is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"handover": true}'), 'invalid_body', 'handover', 'a boolean handover is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"handover": ["self"]}'), 'invalid_body', 'handover', 'an array handover is invalid_body');
SELECT pg_temp.accepts(tests.lot_body('{"handover": "attended"}'), 'handover', '"attended"', 'handover attended is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"handover": "self"}'), 'handover', '"self"', 'handover self is accepted');

-- online_bookable: required, a boolean ---------------------------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['online_bookable']), 'missing_field', 'online_bookable',
                       'an absent online_bookable is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"online_bookable": null}'), 'missing_field', 'online_bookable', 'a null online_bookable is missing_field');
SELECT pg_temp.refused(tests.lot_body('{"online_bookable": "true"}'), 'invalid_body', 'online_bookable', 'online_bookable "true" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"online_bookable": 1}'), 'invalid_body', 'online_bookable', 'online_bookable 1 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"online_bookable": 0}'), 'invalid_body', 'online_bookable', 'online_bookable 0 is invalid_body');
SELECT pg_temp.accepts(tests.lot_body('{"online_bookable": false}'), 'online_bookable', 'false', 'online_bookable false is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"online_bookable": true}'), 'online_bookable', 'true', 'online_bookable true is accepted');

-- capacity: integer or null, 0-1000000 ---------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"capacity": 0}'), 'capacity', '0', 'capacity 0 is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"capacity": 1000000}'), 'capacity', '1000000', 'capacity 1000000 is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"capacity": 12.0}'), 'capacity', '12', 'capacity 12.0 is accepted as 12');
SELECT pg_temp.accepts(replace(tests.lot_body(), '"capacity": 120', '"capacity": 1E2'), 'capacity', '100', 'capacity 1E2 is accepted as 100');
SELECT pg_temp.accepts(tests.lot_body('{"capacity": null}'), 'capacity', 'null', 'a null capacity is stored as null');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['capacity']), 'capacity', 'null', 'an absent capacity is stored as null');
SELECT pg_temp.refused(tests.lot_body('{"capacity": 1000001}'), 'invalid_body', 'capacity', 'capacity 1000001 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"capacity": -1}'), 'invalid_body', 'capacity', 'capacity -1 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"capacity": 12.5}'), 'invalid_body', 'capacity', 'capacity 12.5 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"capacity": "12"}'), 'invalid_body', 'capacity', 'capacity "12" (a string) is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"capacity": true}'), 'invalid_body', 'capacity', 'a boolean capacity is invalid_body');
SELECT pg_temp.refused(replace(tests.lot_body(), '"capacity": 120', '"capacity": 1e100000'), 'invalid_body', 'capacity',
                       'a huge capacity that numeric still holds (1e100000) is invalid_body, not a server error');

-- latitude and longitude -------------------------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"latitude": "51.50000049", "longitude": "-0.1"}'), 'latitude', '"51.5"',
                       'a latitude string is rounded to 6 decimals and read back without trailing zeros (51.50000049 is 51.5)');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": "51.5000005", "longitude": "-0.1"}'), 'latitude', '"51.500001"',
                       'rounding is half away from zero (51.5000005 is 51.500001)');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": 51.1234567, "longitude": "-0.1"}'), 'latitude', '"51.123457"',
                       'a latitude number is rounded to 6 decimals');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": "51.5", "longitude": -0.12345649}'), 'longitude', '"-0.123456"',
                       'a longitude number is rounded to 6 decimals');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": 90, "longitude": 180}'), 'latitude', '"90"', 'latitude 90 is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": -90, "longitude": -180}'), 'longitude', '"-180"', 'longitude -180 is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": "0", "longitude": "0.000000"}'), 'longitude', '"0"', 'zero is read back as "0"');
SELECT pg_temp.accepts(tests.lot_body('{"latitude": null, "longitude": null}'), 'latitude', 'null', 'both coordinates null are accepted');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['latitude', 'longitude']), 'longitude', 'null', 'both coordinates absent are accepted');
SELECT pg_temp.refused(tests.lot_body('{"latitude": "90.000001"}'), 'invalid_coordinates', 'latitude', 'latitude 90.000001 is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": -90.5}'), 'invalid_coordinates', 'latitude', 'latitude -90.5 is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"longitude": -180.5}'), 'invalid_coordinates', 'longitude', 'longitude -180.5 is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"longitude": "180.000001"}'), 'invalid_coordinates', 'longitude', 'longitude 180.000001 is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": 1e5}'), 'invalid_coordinates', 'latitude', 'latitude 1e5 (a number) is out of range');
SELECT pg_temp.refused(tests.lot_body('{"latitude": 100}'), 'invalid_coordinates', 'latitude', 'latitude 100 is invalid_coordinates, not a server error');
SELECT pg_temp.refused(tests.lot_body('{"longitude": -1000}'), 'invalid_coordinates', 'longitude', 'longitude -1000 is invalid_coordinates, not a server error');
SELECT pg_temp.refused(tests.lot_body('{"latitude": "abc"}'), 'invalid_coordinates', 'latitude', 'latitude "abc" is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": "1e5"}'), 'invalid_coordinates', 'latitude', 'latitude "1e5" (exponent in a string) is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": " 51.5"}'), 'invalid_coordinates', 'latitude', 'latitude " 51.5" (white space) is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": "+51.5"}'), 'invalid_coordinates', 'latitude', 'latitude "+51.5" is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": "51."}'), 'invalid_coordinates', 'latitude', 'latitude "51." is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": ""}'), 'invalid_coordinates', 'latitude', 'an empty latitude string is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"latitude": true}'), 'invalid_coordinates', 'latitude', 'latitude true is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"longitude": [0]}'), 'invalid_coordinates', 'longitude', 'longitude [0] is invalid_coordinates');
SELECT pg_temp.refused(tests.lot_body('{"longitude": "east"}'), 'invalid_coordinates', 'longitude',
                       'a bad longitude beside a good latitude names longitude');
SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['longitude']), 'invalid_coordinates', 'longitude',
                       'a latitude without longitude is invalid_coordinates, field longitude (the missing one)');
SELECT pg_temp.refused(tests.lot_body('{"longitude": null}'), 'invalid_coordinates', 'longitude',
                       'a latitude with a null longitude is invalid_coordinates, field longitude');
SELECT pg_temp.refused(tests.lot_body(p_without => ARRAY['latitude']), 'invalid_coordinates', 'latitude',
                       'a longitude without latitude is invalid_coordinates, field latitude');
SELECT pg_temp.refused(tests.lot_body('{"latitude": null}'), 'invalid_coordinates', 'latitude',
                       'a longitude with a null latitude is invalid_coordinates, field latitude');

-- city: string or null, at most 120 characters ---------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('city', repeat('c', 120))), 'city', to_jsonb(repeat('c', 120)),
                       'a city of 120 characters is accepted');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('city', repeat('c', 121))), 'invalid_body', 'city', 'a city of 121 characters is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"city": 7}'), 'invalid_body', 'city', 'a numeric city is invalid_body');
SELECT pg_temp.accepts(tests.lot_body('{"city": " Hull "}'), 'city', '" Hull "', 'a city is stored verbatim');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['city']), 'city', 'null', 'an absent city is stored as null');

-- country_code: ISO 3166-1 alpha-2, white space tolerated, stored upper-case -----------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"country_code": " gb "}'), 'country_code', '"GB"', 'country_code " gb " is stored as GB');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('country_code', E'\tie\n')), 'country_code', '"IE"',
                       'tabs and line breaks around the code are tolerated too');
SELECT pg_temp.accepts(tests.lot_body('{"country_code": "Fr"}'), 'country_code', '"FR"', 'mixed case is upper-cased');
SELECT pg_temp.accepts(tests.lot_body('{"country_code": null}'), 'country_code', 'null', 'a null country_code is accepted');
SELECT pg_temp.refused(tests.lot_body('{"country_code": "UK"}'), 'invalid_country_code', 'country_code', 'UK is invalid_country_code (it is GB)');
SELECT pg_temp.refused(tests.lot_body('{"country_code": "G"}'), 'invalid_country_code', 'country_code', 'one letter is invalid_country_code');
SELECT pg_temp.refused(tests.lot_body('{"country_code": "GBR"}'), 'invalid_country_code', 'country_code', 'alpha-3 GBR is invalid_country_code');
SELECT pg_temp.refused(tests.lot_body('{"country_code": "XK"}'), 'invalid_country_code', 'country_code', 'user-assigned XK is invalid_country_code');
SELECT pg_temp.refused(tests.lot_body('{"country_code": ""}'), 'invalid_country_code', 'country_code', 'an empty country_code is invalid_country_code');
SELECT pg_temp.refused(tests.lot_body('{"country_code": "G B"}'), 'invalid_country_code', 'country_code', 'white space inside the code is refused');
SELECT pg_temp.refused(tests.lot_body('{"country_code": 12}'), 'invalid_country_code', 'country_code', 'a numeric country_code is invalid_country_code');
SELECT pg_temp.refused(tests.lot_body('{"country_code": ["GB"]}'), 'invalid_country_code', 'country_code', 'an array country_code is invalid_country_code');

-- features: a set of the allowed values, at most 32 items ----------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"features": ["valet", "indoor", "valet", "cameras"]}'), 'features', '["cameras", "indoor", "valet"]',
                       'features are stored sorted and de-duplicated');
SELECT pg_temp.accepts(
    tests.lot_body('{"features": ["valet", "oversize_vehicle", "disabled_access", "ev_charging", "plate_recognition", "gate_automation", "cameras", "security", "indoor"]}'),
    'features', '["cameras", "disabled_access", "ev_charging", "gate_automation", "indoor", "oversize_vehicle", "plate_recognition", "security", "valet"]',
    'all nine allowed values are accepted');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('features', (SELECT jsonb_agg('indoor'::text) FROM generate_series(1, 32)))), 'features', '["indoor"]',
                       '32 items are accepted, even all the same');
SELECT pg_temp.accepts(tests.lot_body('{"features": []}'), 'features', '[]', 'an empty features list is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"features": null}'), 'features', '[]', 'null features are read back as []');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['features']), 'features', '[]', 'absent features are read back as []');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('features', (SELECT jsonb_agg('indoor'::text) FROM generate_series(1, 33)))), 'invalid_body', 'features',
                       '33 items are invalid_body, even when they are all the same');
SELECT pg_temp.refused(tests.lot_body('{"features": ["rooftop"]}'), 'invalid_body', 'features', 'an unknown feature is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": ["Indoor"]}'), 'invalid_body', 'features', 'a feature in the wrong case is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": [1]}'), 'invalid_body', 'features', 'a numeric feature is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": [null]}'), 'invalid_body', 'features', 'a null feature is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": [["indoor"]]}'), 'invalid_body', 'features', 'a nested array is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": "indoor"}'), 'invalid_body', 'features', 'features as a string is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"features": {"indoor": true}}'), 'invalid_body', 'features', 'features as an object is invalid_body');

-- arrival: object or null, at most 16 KiB of compact JSON, stored as sent ---------------------------------------------------

CREATE TEMP TABLE arrival_of (bytes integer, compact text);
-- Compact JSON texts of exactly n bytes, with ten separators (: and ,) that jsonb's text form pads with a space.
INSERT INTO arrival_of
SELECT n, '{"entrance":"' || repeat('x', n - 97) || '","parkingLevel":"B2","transfer":{"line":"7","first":"05:00","frequencyMinutes":15}}'
  FROM (VALUES (16384), (16385)) AS v(n);
SELECT is((SELECT array_agg(octet_length(compact) ORDER BY bytes) FROM arrival_of), ARRAY[16384, 16385],
          'the fixture: the arrival texts are exactly 16384 and 16385 bytes of compact JSON');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('arrival', compact::jsonb)), 'arrival', compact::jsonb,
                       'an arrival of exactly 16384 bytes of compact JSON is accepted (jsonb''s spaces are not counted)')
  FROM arrival_of WHERE bytes = 16384;
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('arrival', compact::jsonb)), 'invalid_body', 'arrival',
                       'an arrival of 16385 bytes of compact JSON is invalid_body')
  FROM arrival_of WHERE bytes = 16385;
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('arrival', jsonb_build_object('entrance', repeat(' ', 16384 - 15)))), 'arrival',
                       jsonb_build_object('entrance', repeat(' ', 16384 - 15)),
                       'spaces inside strings count: an arrival string of spaces making 16384 bytes is accepted');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('arrival', jsonb_build_object('entrance', repeat(' ', 16385 - 15)))), 'invalid_body', 'arrival',
                       'spaces inside strings count: 16385 bytes of them are refused');
SELECT pg_temp.refused(tests.lot_body(jsonb_build_object('arrival', jsonb_build_object('entrance', 'x' || repeat('é', 8184) || 'x'))), 'invalid_body', 'arrival',
                       'the limit counts bytes: 8186 characters making 16385 bytes are refused');
SELECT pg_temp.accepts(tests.lot_body(jsonb_build_object('arrival', jsonb_build_object('entrance', 'x' || repeat('é', 8184)))), 'arrival',
                       jsonb_build_object('entrance', 'x' || repeat('é', 8184)), '8185 characters making 16384 bytes are accepted');
SELECT pg_temp.accepts(tests.lot_body('{"arrival": {"entrance": {"en": "North gate", "de": "Nordtor"}, "extra": [1, {"deep": null}]}}'), 'arrival',
                       '{"entrance": {"en": "North gate", "de": "Nordtor"}, "extra": [1, {"deep": null}]}',
                       'arrival is stored as sent, unrecognised keys included');
SELECT pg_temp.accepts(tests.lot_body('{"arrival": {}}'), 'arrival', '{}', 'an empty arrival object is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"arrival": null}'), 'arrival', 'null', 'a null arrival is accepted');
SELECT pg_temp.refused(tests.lot_body('{"arrival": "North gate"}'), 'invalid_body', 'arrival', 'an arrival string is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"arrival": ["North gate"]}'), 'invalid_body', 'arrival', 'an arrival array is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"arrival": 1}'), 'invalid_body', 'arrival', 'a numeric arrival is invalid_body');

-- media: object or null, at most 16 KiB; heroUrl a string; galleryUrls an array of strings ------------------------------------

SELECT pg_temp.accepts(pg_temp.with_media(jsonb_build_object('heroUrl', 'https://x.test/' || repeat('p', 16384 - 29))), 'media',
                       jsonb_build_object('heroUrl', 'https://x.test/' || repeat('p', 16384 - 29)),
                       'a media of exactly 16384 bytes of compact JSON is accepted');
SELECT pg_temp.refused(pg_temp.with_media(jsonb_build_object('heroUrl', 'https://x.test/' || repeat('p', 16385 - 29))), 'invalid_body', 'media',
                       'a media of 16385 bytes of compact JSON is invalid_body');
SELECT pg_temp.accepts(pg_temp.with_media('{}'), 'media', '{}', 'an empty media object is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"media": null}'), 'media', 'null', 'a null media is accepted');
SELECT pg_temp.accepts(pg_temp.with_media('{"heroUrl": null, "galleryUrls": null, "credit": "Ana"}'), 'media',
                       '{"heroUrl": null, "galleryUrls": null, "credit": "Ana"}', 'null heroUrl and galleryUrls and other keys are stored as sent');
SELECT pg_temp.accepts(pg_temp.hero('http://photos.example.test/hero.jpg'), 'media', '{"heroUrl": "http://photos.example.test/hero.jpg"}',
                       'an http heroUrl is accepted (it only does not meet lot_hero_image)');
SELECT pg_temp.refused(tests.lot_body('{"media": "https://x.test/a.jpg"}'), 'invalid_body', 'media', 'a media string is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"media": []}'), 'invalid_body', 'media', 'a media array is invalid_body');
SELECT pg_temp.refused(pg_temp.with_media('{"heroUrl": 42}'), 'invalid_body', 'media', 'a numeric heroUrl is invalid_body, field media');
SELECT pg_temp.refused(pg_temp.with_media('{"heroUrl": ["https://x.test/a.jpg"]}'), 'invalid_body', 'media', 'a heroUrl array is invalid_body');
SELECT pg_temp.refused(pg_temp.with_media('{"galleryUrls": "https://x.test/a.jpg"}'), 'invalid_body', 'media', 'galleryUrls as a string is invalid_body');
SELECT pg_temp.refused(pg_temp.with_media('{"galleryUrls": ["https://x.test/a.jpg", 7]}'), 'invalid_body', 'media',
                       'a numeric galleryUrls element is invalid_body');
SELECT pg_temp.refused(pg_temp.with_media('{"galleryUrls": [null]}'), 'invalid_body', 'media', 'a null galleryUrls element is invalid_body');
SELECT pg_temp.refused(pg_temp.with_media('{"galleryUrls": [{"url": "https://x.test/a.jpg"}]}'), 'invalid_body', 'media',
                       'an object galleryUrls element is invalid_body');

-- The media rule: every lot-media is followed by /<own folder>/ and no . or .. segment, on any host ------------------

SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/hero.jpg'), 'media',
                       '{"heroUrl": "https://cdn.platform.test/lot-media/harbour/hero.jpg"}', 'a photo in the caller''s own folder is accepted');
SELECT pg_temp.accepts(pg_temp.hero('https://elsewhere.test/x/lot-media/harbour/a/b/hero.jpg?w=1'), 'media',
                       '{"heroUrl": "https://elsewhere.test/x/lot-media/harbour/a/b/hero.jpg?w=1"}', 'the own folder is accepted on any host');
SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/Lot-Media/harbour/hero.jpg'), 'media',
                       '{"heroUrl": "https://cdn.platform.test/Lot-Media/harbour/hero.jpg"}', 'Lot-Media in another case with the own folder is accepted');
SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/lot-media%2Fharbour%2Fhero.jpg'), 'media',
                       '{"heroUrl": "https://cdn.platform.test/lot-media%2Fharbour%2Fhero.jpg"}', 'percent-encoded slashes around the own folder are accepted and stored as sent');
SELECT pg_temp.accepts(pg_temp.hero('lot-media\harbour\hero.jpg'), 'media', jsonb_build_object('heroUrl', 'lot-media\harbour\hero.jpg'),
                       'backslashes around the own folder are read as slashes and accepted');
SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/x..jpg'), 'media', '{"heroUrl": "https://cdn.platform.test/lot-media/harbour/x..jpg"}',
                       'two dots inside a file name are not a segment and are accepted');
SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/.well-known'), 'media', '{"heroUrl": "https://cdn.platform.test/lot-media/harbour/.well-known"}',
                       'a segment starting with a dot is not a dot segment and is accepted');
SELECT pg_temp.accepts(pg_temp.with_media('{"heroUrl": "https://photos.example.test/a.jpg", "galleryUrls": ["https://my-parking.test/img/1.jpg", "http://x.test/media/2.jpg"], "alt": {"en": "Entrance"}}'),
                       'media', '{"heroUrl": "https://photos.example.test/a.jpg", "galleryUrls": ["https://my-parking.test/img/1.jpg", "http://x.test/media/2.jpg"], "alt": {"en": "Entrance"}}',
                       'strings without lot-media anywhere are accepted, on any host');
SELECT pg_temp.accepts(pg_temp.with_media('{"lot-media/harbour/k": "v"}'), 'media', '{"lot-media/harbour/k": "v"}',
                       'a key with lot-media followed by the own folder is accepted');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/quay/hero.jpg'), 'invalid_body', 'media',
                       'another operator''s folder is invalid_body, field media');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/unknown-folder/hero.jpg'), 'invalid_body', 'media',
                       'a folder that is no operator''s is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/hero.jpg'), 'invalid_body', 'media', 'lot-media without a folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media'), 'invalid_body', 'media', 'lot-media at the end of the string is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour'), 'invalid_body', 'media',
                       'the own folder without the slash after it is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media//harbour/x.jpg'), 'invalid_body', 'media', 'an empty segment before the folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour2/x.jpg'), 'invalid_body', 'media', 'a folder that merely starts with the own one is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/Harbour/x.jpg'), 'invalid_body', 'media', 'the own folder in another case is refused');
SELECT pg_temp.refused(pg_temp.hero('https://my-parking.test/images/lot-media-archive/x.jpg'), 'invalid_body', 'media',
                       'a path on the caller''s own site that merely contains lot-media is refused');
SELECT pg_temp.refused(pg_temp.hero('https://my-parking.test/lot-media.jpg'), 'invalid_body', 'media', 'a file named lot-media.jpg is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/LOT-MEDIA/quay/hero.jpg'), 'invalid_body', 'media', 'LOT-MEDIA in upper case is found too');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media%2Fquay%2Fhero.jpg'), 'invalid_body', 'media',
                       'another folder behind percent-encoded slashes (%2F) is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media%2fquay%2fhero.jpg'), 'invalid_body', 'media',
                       'lower-case escapes (%2f) are decoded too');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media%252Fquay%252Fhero.jpg'), 'invalid_body', 'media',
                       'double-encoded slashes (%252F) are decoded until nothing more decodes');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot%2Dmedia/quay/hero.jpg'), 'invalid_body', 'media',
                       'lot-media with an encoded hyphen (lot%2Dmedia) is found');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/%6C%6F%74-media/quay/hero.jpg'), 'invalid_body', 'media',
                       'lot-media with encoded letters is found');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/%2e%2e/quay/hero.jpg'), 'invalid_body', 'media',
                       'an encoded .. segment (%2e%2e) after the own folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/%2E/hero.jpg'), 'invalid_body', 'media',
                       'an encoded . segment (%2E) after the own folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/../quay/hero.jpg'), 'invalid_body', 'media',
                       'lot-media/<own>/../other/x is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/./hero.jpg'), 'invalid_body', 'media', 'lot-media/<own>/./x is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/a/..'), 'invalid_body', 'media', 'a .. segment at the end is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/x.jpg?u=../../quay'), 'invalid_body', 'media',
                       'a .. segment anywhere after lot-media, even in the query, is refused');
SELECT pg_temp.refused(pg_temp.hero('lot-media\quay\hero.jpg'), 'invalid_body', 'media', 'backslashes are read as slashes: lot-media\quay\ is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/a\..\..\quay\hero.jpg'), 'invalid_body', 'media',
                       'a .. segment between backslashes after the own folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/a%5C..%5Cquay.jpg'), 'invalid_body', 'media',
                       'encoded backslashes (%5C) are read as slashes too: a .. segment between them is refused');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media/harbour/a.jpg?next=lot-media/quay/b.jpg'), 'invalid_body', 'media',
                       'every occurrence counts: a second lot-media with another folder is refused');
SELECT pg_temp.refused(pg_temp.hero('https://my-parking.test/r?u=https%3A%2F%2Fcdn.platform.test%2Flot-media%2Fquay%2Fa.jpg'), 'invalid_body', 'media',
                       'an encoded address of another folder inside a query is refused');
SELECT pg_temp.accepts(pg_temp.hero('https://cdn.platform.test/lot-media%252525252Fharbour%252525252Fa.jpg'), 'media',
                       '{"heroUrl": "https://cdn.platform.test/lot-media%252525252Fharbour%252525252Fa.jpg"}',
                       'the own folder behind slashes encoded five times is accepted');
SELECT pg_temp.refused(pg_temp.hero('https://cdn.platform.test/lot-media%25252525252Fharbour%25252525252Fa.jpg'), 'invalid_body', 'media',
                       'an address still percent-decoding after five rounds is refused, even the own folder');
SELECT pg_temp.refused(pg_temp.with_media('{"galleryUrls": ["https://photos.example.test/a.jpg", "https://cdn.platform.test/lot-media/quay/b.jpg"]}'),
                       'invalid_body', 'media', 'another folder in galleryUrls is refused');
SELECT pg_temp.refused(pg_temp.with_media('{"credits": {"photos": [{"src": "https://cdn.platform.test/lot-media/quay/c.jpg"}]}}'),
                       'invalid_body', 'media', 'another folder nested deep in an unrecognised key is refused');
SELECT pg_temp.refused(pg_temp.with_media('{"https://cdn.platform.test/lot-media/quay/k.jpg": true}'), 'invalid_body', 'media',
                       'another folder in a key is refused');
SELECT pg_temp.refused(pg_temp.with_media('{"alt": {"lot-media": "x"}}'), 'invalid_body', 'media', 'a nested key lot-media without a folder is refused');

-- min_advance_days, min_stay_days, max_stay_days ----------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"min_advance_days": null}'), 'min_advance_days', '0', 'a null min_advance_days stores 0');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['min_advance_days']), 'min_advance_days', '0', 'an absent min_advance_days stores 0');
SELECT pg_temp.accepts(tests.lot_body('{"min_advance_days": 0}'), 'min_advance_days', '0', 'min_advance_days 0 is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"min_advance_days": 365}'), 'min_advance_days', '365', 'min_advance_days 365 is accepted');
SELECT pg_temp.refused(tests.lot_body('{"min_advance_days": 366}'), 'invalid_body', 'min_advance_days', 'min_advance_days 366 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"min_advance_days": -1}'), 'invalid_body', 'min_advance_days', 'min_advance_days -1 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"min_advance_days": "2"}'), 'invalid_body', 'min_advance_days', 'min_advance_days "2" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"min_advance_days": 1.5}'), 'invalid_body', 'min_advance_days', 'min_advance_days 1.5 is invalid_body');
SELECT pg_temp.accepts(tests.lot_body('{"min_stay_days": 1, "max_stay_days": 365}'), 'max_stay_days', '365', 'stays of 1 to 365 days are accepted');
SELECT pg_temp.accepts(tests.lot_body('{"min_stay_days": 7, "max_stay_days": 7}'), 'min_stay_days', '7', 'min_stay_days equal to max_stay_days is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"min_stay_days": 200, "max_stay_days": null}'), 'min_stay_days', '200', 'a min_stay_days without a max is accepted');
SELECT pg_temp.accepts(tests.lot_body('{"min_stay_days": null, "max_stay_days": 2}'), 'max_stay_days', '2', 'a max_stay_days without a min is accepted');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['min_stay_days', 'max_stay_days']), 'min_stay_days', 'null', 'absent stay bounds are stored as null');
SELECT pg_temp.refused(tests.lot_body('{"min_stay_days": 0}'), 'invalid_body', 'min_stay_days', 'min_stay_days 0 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"min_stay_days": 366, "max_stay_days": null}'), 'invalid_body', 'min_stay_days', 'min_stay_days 366 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"max_stay_days": 0}'), 'invalid_body', 'max_stay_days', 'max_stay_days 0 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"max_stay_days": 366}'), 'invalid_body', 'max_stay_days', 'max_stay_days 366 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"max_stay_days": "30"}'), 'invalid_body', 'max_stay_days', 'max_stay_days "30" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"min_stay_days": 8, "max_stay_days": 7}'), 'invalid_stay_bounds', 'min_stay_days',
                       'min_stay_days above max_stay_days is invalid_stay_bounds, field min_stay_days');
SELECT pg_temp.refused(tests.lot_body('{"min_stay_days": 365, "max_stay_days": 1}'), 'invalid_stay_bounds', 'min_stay_days',
                       'min_stay_days 365 with max_stay_days 1 is invalid_stay_bounds');

-- cancellation: all three keys or none ------------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.lot_body('{"cancellation": {}}'), 'cancellation', 'null', 'an empty cancellation object means no policy');
SELECT pg_temp.accepts(tests.lot_body('{"cancellation": null}'), 'cancellation', 'null', 'a null cancellation means no policy');
SELECT pg_temp.accepts(tests.lot_body(p_without => ARRAY['cancellation']), 'cancellation', 'null', 'an absent cancellation means no policy');
SELECT pg_temp.accepts(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": null, "penalty_percent_after": null, "no_show_forfeits_full": null}}'),
    'cancellation', 'null', 'three null keys mean no policy');
SELECT pg_temp.accepts(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 0, "penalty_percent_after": "12.340", "no_show_forfeits_full": false}}'),
    'cancellation', '{"free_until_hours_before_check_in": 0, "penalty_percent_after": "12.34", "no_show_forfeits_full": false}',
    'penalty "12.340" is accepted as "12.34"; free_until 0 is accepted');
SELECT pg_temp.accepts(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 8760, "penalty_percent_after": 100, "no_show_forfeits_full": true}}'),
    'cancellation', '{"free_until_hours_before_check_in": 8760, "penalty_percent_after": "100.00", "no_show_forfeits_full": true}',
    'free_until 8760 and penalty 100 (a number) are accepted; the penalty reads back with two decimals');
SELECT pg_temp.accepts(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24.0, "penalty_percent_after": 0, "no_show_forfeits_full": true}}'),
    'cancellation', '{"free_until_hours_before_check_in": 24, "penalty_percent_after": "0.00", "no_show_forfeits_full": true}',
    'penalty 0 is "0.00"; free_until 24.0 is 24');
SELECT pg_temp.accepts(
    tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 1, "penalty_percent_after": 12.340, "no_show_forfeits_full": true}}'),
    'cancellation', '{"free_until_hours_before_check_in": 1, "penalty_percent_after": "12.34", "no_show_forfeits_full": true}',
    'penalty 12.340 as a number is accepted as "12.34"');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24}}'), 'incomplete_cancellation_policy', 'cancellation',
                       'one cancellation key is incomplete_cancellation_policy');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"penalty_percent_after": "10", "no_show_forfeits_full": true}}'),
                       'incomplete_cancellation_policy', 'cancellation', 'two cancellation keys are incomplete_cancellation_policy');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "10", "no_show_forfeits_full": null}}'),
                       'incomplete_cancellation_policy', 'cancellation', 'three keys of which one is null are incomplete_cancellation_policy');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": "none"}'), 'invalid_body', 'cancellation', 'a cancellation string is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": []}'), 'invalid_body', 'cancellation', 'a cancellation array is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "12.345", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty "12.345" (a third non-zero decimal) is invalid_body, never rounded');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": 12.3400001, "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty 12.3400001 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": 100.01, "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty 100.01 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "1000", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty "1000" is invalid_body, not a server error');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": -1, "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty -1 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "-0.01", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty "-0.01" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "ten", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty "ten" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "1e1", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'penalty "1e1" (exponent in a string) is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": true, "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.penalty_percent_after', 'a boolean penalty is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 8761, "penalty_percent_after": "10", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.free_until_hours_before_check_in', 'free_until 8761 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": -1, "penalty_percent_after": "10", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.free_until_hours_before_check_in', 'free_until -1 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 1.5, "penalty_percent_after": "10", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.free_until_hours_before_check_in', 'free_until 1.5 is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": "24", "penalty_percent_after": "10", "no_show_forfeits_full": true}}'),
                       'invalid_body', 'cancellation.free_until_hours_before_check_in', 'free_until "24" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "10", "no_show_forfeits_full": "yes"}}'),
                       'invalid_body', 'cancellation.no_show_forfeits_full', 'no_show_forfeits_full "yes" is invalid_body');
SELECT pg_temp.refused(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "10", "no_show_forfeits_full": 1}}'),
                       'invalid_body', 'cancellation.no_show_forfeits_full', 'no_show_forfeits_full 1 is invalid_body');

-- Order of checks: the first refusal in the field table's order --------------------------------------------------------------

SELECT pg_temp.refused(tests.lot_body('{"name": "", "timezone": "Mars/Phobos"}'), 'missing_field', 'name',
                       'a blank name is reported before a bad timezone (field table order)');
SELECT pg_temp.refused(tests.lot_body('{"capacity": -1, "city": 7, "cancellation": {"x": 1}}'), 'invalid_body', 'capacity',
                       'a bad capacity is reported before a bad city and a bad cancellation');
SELECT pg_temp.refused(tests.lot_body('{"colour": "blue", "name": null}'), 'unknown_field', 'colour',
                       'an unknown key is reported before any field''s value');

-- A refused PUT stores nothing ------------------------------------------------------------------------------------------------

SELECT is((tests.lot(a, 'refused')).id, NULL, 'after all the refusals above, no lot `refused` exists') FROM fx;
SELECT is(tests.lot_count(a), 3::bigint, 'the operator holds just the three lots the accepted writes made') FROM fx;

SELECT * FROM finish();
ROLLBACK;
