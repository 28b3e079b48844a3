-- PUT /lots/{external_id}, the write (spec: Write result, Lot: read form; docs/design.md
-- `changed`): 201 `created` with the Lot read back with exactly the read-form keys; `updated`
-- listing the fields that actually differ, in the field table's order; a full representation (an
-- absent key is null). Diff before update: a PUT equal to what is stored issues no statement at
-- all, proven by the row's tuple (ctid, xmin, xmax), the table's statistics and a statement
-- trigger, not just by the answer.
BEGIN;
SELECT plan(95);

CREATE TEMP TABLE fx AS
SELECT a, b, tests.issue_credential(a, ARRAY['write_supply']) AS bearer, tests.issue_credential(b, ARRAY['write_supply']) AS b_bearer
  FROM tests.make_operator('Harbour Parking', 'GBP', 'harbour') AS a, tests.make_operator('Quay Parking') AS b;
GRANT SELECT ON fx TO PUBLIC;

-- Every statement on app.lots is counted in the setting tests.lot_statements (a statement-level
-- trigger fires even for a statement that touches no row). Rolled back with the file.
CREATE FUNCTION pg_temp.count_lot_statement()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM set_config('tests.lot_statements',
                       (coalesce(nullif(current_setting('tests.lot_statements', true), ''), '0')::integer + 1)::text, true);
    RETURN NULL;
END
$$;
CREATE TRIGGER count_lot_statements BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON app.lots
    FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.count_lot_statement();

CREATE FUNCTION pg_temp.lot_statements()
RETURNS integer
LANGUAGE sql
AS $$
    SELECT coalesce(nullif(current_setting('tests.lot_statements', true), ''), '0')::integer;
$$;

-- What an unchanged write must leave as it was: the lot's tuple and the table's write counters of
-- this transaction.
CREATE FUNCTION pg_temp.footprint(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object(
        'tuple', (SELECT jsonb_build_object('ctid', l.ctid::text, 'xmin', l.xmin::text, 'xmax', l.xmax::text)
                    FROM app.lots AS l, fx WHERE l.operator_id = fx.a AND l.external_id = p_external_id),
        'counters', (SELECT jsonb_build_object('ins', s.n_tup_ins, 'upd', s.n_tup_upd, 'hot_upd', s.n_tup_hot_upd, 'del', s.n_tup_del)
                       FROM pg_stat_xact_user_tables AS s WHERE s.relid = 'app.lots'::regclass),
        'statements', pg_temp.lot_statements());
$$;

-- PUT lot p_external_id of A with this body; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_lot(fx.bearer, p_external_id, p_body) AS p;
$$;

-- The `changed` list of a PUT of lot `diff` with the test body changed by p_overrides / p_without,
-- made right after a PUT of the test body itself (so it compares with the test body).
CREATE FUNCTION pg_temp.changed_from_base(p_overrides jsonb, p_without text[] DEFAULT '{}')
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put('diff', tests.lot_body());
    SELECT ARRAY(SELECT jsonb_array_elements_text(p.body -> 'changed'))
      FROM pg_temp.put('diff', tests.lot_body(p_overrides, p_without)) AS p;
$$;

-- The answer to a PUT of lot `diff` with body p_then, made right after a PUT with p_first.
CREATE FUNCTION pg_temp.answer_between(p_first text, p_then text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put('diff', p_first);
    SELECT p.body FROM pg_temp.put('diff', p_then) AS p;
$$;

-- Its `changed` list.
CREATE FUNCTION pg_temp.changed_between(p_first text, p_then text)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT jsonb_array_elements_text(pg_temp.answer_between(p_first, p_then) -> 'changed'));
$$;

-- Created --------------------------------------------------------------------------------------------------

CREATE TEMP TABLE created AS SELECT * FROM pg_temp.put('lot-1', tests.lot_body());

SELECT is((SELECT status FROM created), 201, 'a PUT of an id the operator does not hold answers 201');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM created),
          ARRAY['changed', 'external_id', 'listing_review_superseded', 'lot', 'result'],
          'the answer has exactly external_id, result, changed, listing_review_superseded, lot (no dry_run)');
SELECT is((SELECT body ->> 'external_id' FROM created), 'lot-1', 'the answer names the external_id');
SELECT is((SELECT body ->> 'result' FROM created), 'created', 'the result is created');
SELECT is((SELECT body -> 'changed' FROM created),
          '["name", "timezone", "handover", "online_bookable", "capacity", "latitude", "longitude", "city", "country_code", "features", "arrival", "media", "min_advance_days", "min_stay_days", "max_stay_days", "cancellation_free_until_hours_before_check_in", "cancellation_penalty_percent_after", "cancellation_no_show_forfeits_full"]'::jsonb,
          'on create every field is listed as changed, in the field table''s order, cancellation keys under their reviewed-list names');
SELECT is((SELECT body -> 'listing_review_superseded' FROM created), 'false'::jsonb, 'a new lot supersedes no review');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body -> 'lot') ORDER BY 1) FROM created),
          ARRAY['arrival', 'cancellation', 'capacity', 'city', 'country_code', 'external_id', 'features', 'handover', 'latitude',
                'longitude', 'max_stay_days', 'media', 'min_advance_days', 'min_stay_days', 'name', 'online_bookable', 'timezone'],
          'the Lot read back has exactly the read form''s keys');
SELECT is((SELECT body -> 'lot' FROM created), tests.lot_body()::jsonb || '{"external_id": "lot-1"}',
          'the Lot read back is the body as stored, plus external_id');
SELECT is((SELECT jsonb_typeof(body -> 'lot' -> 'cancellation' -> 'penalty_percent_after') || ' ' || jsonb_typeof(body -> 'lot' -> 'latitude')
             || ' ' || jsonb_typeof(body -> 'lot' -> 'capacity') FROM created), 'string string number',
          'in the read form the penalty and the coordinates are decimal strings, capacity an integer');
SELECT results_eq(
    $$SELECT operator_id, review_state, timezone_confirmed, created_at, updated_at FROM app.lots WHERE external_id = 'lot-1'$$,
    $$SELECT a, 'draft'::text, false, now(), now() FROM fx$$,
    'the stored lot is the caller''s operator''s, in review state draft, its zone unconfirmed, made now');

SELECT is((SELECT body -> 'lot' FROM pg_temp.put('bare', tests.minimal_lot_body())),
          '{"external_id": "bare", "name": "Bare lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true,
            "capacity": null, "latitude": null, "longitude": null, "city": null, "country_code": null, "features": [], "arrival": null,
            "media": null, "min_advance_days": 0, "min_stay_days": null, "max_stay_days": null, "cancellation": null}'::jsonb,
          'a lot of the required fields alone reads back with every key present: nulls, features [], min_advance_days 0');

-- Ids are per operator ---------------------------------------------------------------------------------------

SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'lot-1', tests.lot_body('{"name": "Quay lot"}')) AS p), 201,
          'another operator PUTting the same external_id creates its own lot (201)');
SELECT is((tests.lot(a, 'lot-1')).name, 'Harbour Car Park', 'the first operator''s lot of that id is untouched') FROM fx;
SELECT is((tests.lot(b, 'lot-1')).name, 'Quay lot', 'the second operator''s lot of that id is its own') FROM fx;
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('Lot-1', tests.lot_body())), 'created',
          'ids are exact: Lot-1 is another lot than lot-1');

-- Unchanged: no statement at all ------------------------------------------------------------------------------

SAVEPOINT before_unchanged;
CREATE TEMP TABLE footprint_before AS SELECT pg_temp.footprint('lot-1') AS f;
CREATE TEMP TABLE unchanged AS SELECT * FROM pg_temp.put('lot-1', tests.lot_body());
CREATE TEMP TABLE footprint_after AS SELECT pg_temp.footprint('lot-1') AS f;

SELECT is((SELECT status FROM unchanged), 200, 'a second identical PUT answers 200');
SELECT is((SELECT body ->> 'result' FROM unchanged), 'unchanged', 'its result is unchanged');
SELECT is((SELECT body -> 'changed' FROM unchanged), '[]'::jsonb, 'its changed list is empty');
SELECT is((SELECT body -> 'listing_review_superseded' FROM unchanged), 'false'::jsonb, 'it supersedes no review');
SELECT is((SELECT body -> 'lot' FROM unchanged), (SELECT body -> 'lot' FROM created), 'it reads back the same Lot');
SELECT is((SELECT f -> 'tuple' FROM footprint_after), (SELECT f -> 'tuple' FROM footprint_before),
          'the row''s tuple is the same: same ctid (no new version), same xmin (no write), same xmax (no lock)');
SELECT is((SELECT f -> 'counters' FROM footprint_after), (SELECT f -> 'counters' FROM footprint_before),
          'no row of app.lots was inserted, updated or deleted (this transaction''s statistics)');
SELECT is((SELECT (f ->> 'statements')::integer FROM footprint_after), (SELECT (f ->> 'statements')::integer FROM footprint_before),
          'no INSERT, UPDATE or DELETE statement ran on app.lots (no statement trigger fired)');

-- The instruments see a write: a changed PUT moves all three.
CREATE TEMP TABLE footprint_changed AS
SELECT pg_temp.footprint('lot-1') AS f FROM pg_temp.put('lot-1', tests.lot_body('{"city": "Leeds"}'));
SELECT isnt((SELECT f -> 'tuple' ->> 'ctid' FROM footprint_changed), (SELECT f -> 'tuple' ->> 'ctid' FROM footprint_after),
            'the instruments work: a changed PUT makes a new tuple');
SELECT isnt((SELECT f -> 'tuple' ->> 'xmin' FROM footprint_changed), (SELECT f -> 'tuple' ->> 'xmin' FROM footprint_after),
            'the instruments work: the new tuple''s xmin is the writing (sub)transaction');
SELECT is((SELECT (f -> 'counters' ->> 'upd')::integer FROM footprint_changed), (SELECT (f -> 'counters' ->> 'upd')::integer + 1 FROM footprint_after),
          'the instruments work: a changed PUT counts one updated row');
SELECT cmp_ok((SELECT (f ->> 'statements')::integer FROM footprint_changed), '>', (SELECT (f ->> 'statements')::integer FROM footprint_after),
              'the instruments work: a changed PUT fires the statement trigger');
ROLLBACK TO SAVEPOINT before_unchanged;

-- Updated: each field changed alone lists exactly that field -----------------------------------------------------

CREATE TEMP TABLE updated AS SELECT * FROM pg_temp.put('lot-1', tests.lot_body('{"name": "Harbour Car Park East"}'));
SELECT is((SELECT status FROM updated), 200, 'a PUT that changes something answers 200');
SELECT is((SELECT body ->> 'result' FROM updated), 'updated', 'its result is updated');
SELECT is((SELECT body -> 'changed' FROM updated), '["name"]'::jsonb, 'its changed list names the one field');
SELECT is((SELECT body -> 'lot' ->> 'name' FROM updated), 'Harbour Car Park East', 'it reads back the new value');
SELECT is((tests.lot(a, 'lot-1')).name, 'Harbour Car Park East', 'the new value is stored') FROM fx;

CREATE TEMP TABLE one_field (n integer, field text, overrides jsonb);
INSERT INTO one_field VALUES
    (1, 'name', '{"name": "Harbour Car Park 2"}'),
    (2, 'timezone', '{"timezone": "Europe/Dublin"}'),
    (3, 'handover', '{"handover": "attended"}'),
    (4, 'online_bookable', '{"online_bookable": false}'),
    (5, 'capacity', '{"capacity": 121}'),
    (6, 'latitude', '{"latitude": "51.500001"}'),
    (7, 'longitude', '{"longitude": -0.127757}'),
    (8, 'city', '{"city": "Leeds"}'),
    (9, 'country_code', '{"country_code": "IE"}'),
    (10, 'features', '{"features": ["cameras"]}'),
    (11, 'arrival', '{"arrival": {"entrance": "South gate"}}'),
    (12, 'media', '{"media": {"heroUrl": "https://photos.example.test/hero.jpg", "galleryUrls": []}}'),
    (13, 'min_advance_days', '{"min_advance_days": 2}'),
    (14, 'min_stay_days', '{"min_stay_days": 2}'),
    (15, 'max_stay_days', '{"max_stay_days": 31}'),
    (16, 'cancellation_free_until_hours_before_check_in',
         '{"cancellation": {"free_until_hours_before_check_in": 48, "penalty_percent_after": "50.00", "no_show_forfeits_full": true}}'),
    (17, 'cancellation_penalty_percent_after',
         '{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.01", "no_show_forfeits_full": true}}'),
    (18, 'cancellation_no_show_forfeits_full',
         '{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.00", "no_show_forfeits_full": false}}');

SELECT is(pg_temp.changed_from_base(overrides), ARRAY[field], format('changing %s alone lists exactly %s', overrides, field))
  FROM one_field ORDER BY n;

-- A full representation: an absent key means null ---------------------------------------------------------------

SELECT is(pg_temp.changed_from_base('{}', ARRAY['city']), ARRAY['city'], 'a PUT without city after one with it lists city');
SELECT is((tests.lot(a, 'diff')).city, NULL, 'and the stored city is now null') FROM fx;
SELECT is(pg_temp.changed_from_base('{}', ARRAY['capacity']), ARRAY['capacity'], 'a PUT without capacity lists capacity');
SELECT is(pg_temp.changed_from_base('{}', ARRAY['latitude', 'longitude']), ARRAY['latitude', 'longitude'],
          'a PUT without coordinates lists latitude and longitude');
SELECT is(pg_temp.changed_from_base('{}', ARRAY['features']), ARRAY['features'], 'a PUT without features lists features');
SELECT is((tests.lot(a, 'diff')).features, '{}'::text[], 'and the stored features are empty') FROM fx;
SELECT is(pg_temp.changed_from_base('{}', ARRAY['arrival']), ARRAY['arrival'], 'a PUT without arrival lists arrival');
SELECT is(pg_temp.changed_from_base('{}', ARRAY['media']), ARRAY['media'], 'a PUT without media lists media');
SELECT is(pg_temp.changed_from_base('{}', ARRAY['min_advance_days']), ARRAY['min_advance_days'],
          'a PUT without min_advance_days (1 before) lists it');
SELECT is((tests.lot(a, 'diff')).min_advance_days, 0, 'and the stored min_advance_days is the default 0') FROM fx;
SELECT is(pg_temp.changed_from_base('{}', ARRAY['min_stay_days', 'max_stay_days']), ARRAY['min_stay_days', 'max_stay_days'],
          'a PUT without stay bounds lists both');
SELECT is(pg_temp.changed_from_base('{}', ARRAY['cancellation']),
          ARRAY['cancellation_free_until_hours_before_check_in', 'cancellation_penalty_percent_after', 'cancellation_no_show_forfeits_full'],
          'a PUT without cancellation lists the three cancellation keys');
SELECT is((SELECT body -> 'lot' -> 'cancellation' FROM pg_temp.put('diff', tests.lot_body(p_without => ARRAY['cancellation']))), 'null'::jsonb,
          'and reads back cancellation null');
SELECT is(pg_temp.changed_from_base('{"cancellation": {}}'),
          ARRAY['cancellation_free_until_hours_before_check_in', 'cancellation_penalty_percent_after', 'cancellation_no_show_forfeits_full'],
          'cancellation {} removes the policy like null');
SELECT is(
    (SELECT body -> 'lot' FROM pg_temp.put('diff', tests.minimal_lot_body('{"name": "Harbour Car Park"}'))),
    '{"external_id": "diff", "name": "Harbour Car Park", "timezone": "Europe/London", "handover": "self", "online_bookable": true,
      "capacity": null, "latitude": null, "longitude": null, "city": null, "country_code": null, "features": [], "arrival": null,
      "media": null, "min_advance_days": 0, "min_stay_days": null, "max_stay_days": null, "cancellation": null}'::jsonb,
    'a PUT of the required fields alone over a full lot clears every other field');

-- The order of changed is the field table's, whatever the body's order ---------------------------------------------

SELECT is(pg_temp.changed_between(tests.lot_body(),
                                  '{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "1", "no_show_forfeits_full": true},'
                                  || ' "city": "Hull", "capacity": 5, "name": "N", ' || substr(tests.lot_body(p_without => ARRAY['cancellation', 'city', 'capacity', 'name']), 2)),
          ARRAY['name', 'capacity', 'city', 'cancellation_penalty_percent_after'],
          'several changes are listed in the field table''s order, not the body''s');
SELECT is(pg_temp.changed_from_base('{"name": "N", "timezone": "UTC", "handover": "attended", "online_bookable": false, "capacity": 1, "latitude": 1, "longitude": 1,
                                      "city": "C", "country_code": "FR", "features": [], "arrival": {}, "media": {}, "min_advance_days": 0,
                                      "min_stay_days": 3, "max_stay_days": 4, "cancellation": null}'),
          ARRAY['name', 'timezone', 'handover', 'online_bookable', 'capacity', 'latitude', 'longitude', 'city', 'country_code', 'features',
                'arrival', 'media', 'min_advance_days', 'min_stay_days', 'max_stay_days', 'cancellation_free_until_hours_before_check_in',
                'cancellation_penalty_percent_after', 'cancellation_no_show_forfeits_full'],
          'every field changed at once lists all eighteen names in order');

-- What is equal once stored is no change ----------------------------------------------------------------------------

SELECT is(pg_temp.changed_from_base('{"features": ["indoor", "cameras"]}'), '{}'::text[], 'features in another order are unchanged');
SELECT is(pg_temp.changed_from_base('{"features": ["indoor", "cameras", "indoor", "cameras"]}'), '{}'::text[],
          'features repeated are unchanged');
SELECT is(pg_temp.changed_from_base('{"latitude": "51.5000004"}'), '{}'::text[], 'a latitude that rounds to the stored one is unchanged');
SELECT is(pg_temp.changed_from_base('{"latitude": 51.50000000, "longitude": "-0.1277580"}'), '{}'::text[],
          'coordinates as numbers or with trailing zeros are unchanged');
SELECT is(pg_temp.changed_from_base('{"longitude": -0.12775849}'), '{}'::text[], 'a longitude that rounds to the stored one is unchanged');
SELECT is(pg_temp.changed_from_base('{"longitude": -0.1277585}'), ARRAY['longitude'], 'a longitude that rounds to another value is a change');
SELECT is(pg_temp.changed_from_base('{"capacity": 120.0}'), '{}'::text[], 'capacity 120.0 is unchanged from 120');
SELECT is(pg_temp.changed_from_base('{"country_code": " gb "}'), '{}'::text[], 'country_code " gb " is unchanged from GB');
SELECT is(pg_temp.changed_from_base('{"arrival": {"entrance":"North gate, Dock Road"}}'), '{}'::text[],
          'arrival with other white space between tokens is unchanged');
SELECT is(pg_temp.changed_from_base('{"media": {"galleryUrls": ["https://photos.example.test/1.jpg"], "heroUrl": "https://photos.example.test/hero.jpg"}}'),
          '{}'::text[], 'media with its keys in another order is unchanged');
SELECT is(pg_temp.changed_from_base('{"media": {"heroUrl": "https://photos.example.test/hero.jpg", "galleryUrls": ["https://photos.example.test/1.jpg"], "x": null}}'),
          ARRAY['media'], 'media with an extra null key is a change (stored as sent)');
SELECT is(pg_temp.changed_from_base('{"cancellation": {"free_until_hours_before_check_in": 24.0, "penalty_percent_after": 50, "no_show_forfeits_full": true}}'),
          '{}'::text[], 'cancellation 24.0 and 50 are unchanged from 24 and "50.00"');
SELECT is(pg_temp.changed_between(tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.50", "no_show_forfeits_full": true}}'),
                                  tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": 50.5, "no_show_forfeits_full": true}}')),
          '{}'::text[], 'penalty 50.5 is unchanged from "50.50"');
SELECT is(pg_temp.changed_between(tests.lot_body('{"min_advance_days": 0}'), tests.lot_body(p_without => ARRAY['min_advance_days'])), '{}'::text[],
          'an absent min_advance_days is unchanged from a stored 0');
SELECT is(pg_temp.changed_between(tests.lot_body(p_without => ARRAY['cancellation']), tests.lot_body('{"cancellation": {}}')), '{}'::text[],
          'cancellation {} is unchanged from no policy');
SELECT is(pg_temp.changed_between(tests.lot_body(p_without => ARRAY['features']), tests.lot_body('{"features": []}')), '{}'::text[],
          'features [] is unchanged from absent features');
SELECT is(pg_temp.changed_from_base('{"external_id": "diff"}'), '{}'::text[], 'a body external_id equal to the path is no change');
SELECT is(pg_temp.changed_from_base('{"name": "Harbour Car Park "}'), ARRAY['name'], 'a trailing space in the name is a change (stored verbatim)');
SELECT is(pg_temp.changed_from_base('{"arrival": {"entrance": "North gate, Dock Road", "access": null}}'), ARRAY['arrival'],
          'an arrival with an extra null key is a change (stored as sent)');

SELECT is(pg_temp.answer_between(tests.lot_body(), tests.lot_body('{"features": ["indoor", "cameras", "cameras"]}')) ->> 'result', 'unchanged',
          'a PUT differing only in the order of features answers unchanged');

-- The PUT is an upsert of the caller's own lot only --------------------------------------------------------------------

SELECT is(tests.lot_count(a), 4::bigint, 'operator A holds four lots: lot-1, bare, Lot-1, diff') FROM fx;
SELECT is(tests.lot_count(b), 1::bigint, 'operator B holds its one lot') FROM fx;

-- The field registry (app.lot_fields) is the one list: the read form has exactly its keys, every
-- field is a column of the lot, and only online_bookable is not reviewed.
SELECT set_eq($$SELECT jsonb_object_keys(app.lot_read_form(NULL::app.lots))$$,
              $$SELECT 'external_id' UNION SELECT body_path[1] FROM app.lot_fields()$$,
              'the read form has exactly the keys of the field registry, and external_id');
SELECT set_eq($$SELECT jsonb_object_keys(app.lot_read_form(
                  jsonb_populate_record(NULL::app.lots, '{"cancellation_no_show_forfeits_full": false}')) -> 'cancellation')$$,
              $$SELECT body_path[2] FROM app.lot_fields() WHERE body_path[1] = 'cancellation'$$,
              'the read form''s cancellation object has exactly the registry''s cancellation keys');
SELECT is(ARRAY(SELECT DISTINCT kind FROM app.lot_fields()
                 WHERE kind NOT IN ('text', 'integer', 'boolean', 'money', 'date', 'choice', 'choice_set',
                                    'zone', 'coordinate', 'country', 'arrival', 'media')), '{}'::text[],
          'every kind in the registry has a reader (app.json_field or app.lot_from_body)');
SELECT is(ARRAY(SELECT DISTINCT r FROM app.lot_fields(), unnest(rules_before) AS r
                 WHERE r NOT IN ('coordinates_paired', 'stay_bounds', 'cancellation_complete')), '{}'::text[],
          'every rule between fields in the registry is one app.lot_rule_between_fields runs');
SELECT is(tests.names_not_columns_of('app.lots', ARRAY(SELECT name FROM app.lot_fields())), '{}'::text[],
          'every field of the registry is a column of app.lots under its name');
SELECT is(ARRAY(SELECT name FROM app.lot_fields() WHERE NOT reviewed), ARRAY['online_bookable'],
          'only online_bookable is not reviewed');

SELECT * FROM finish();
ROLLBACK;
