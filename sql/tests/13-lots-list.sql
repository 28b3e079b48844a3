-- GET /lots (api.lots_get, as the gateway): the caller's lots, keyset-paged on external_id in byte
-- order; next_after is the last id of a full page, else null; each entry is the Lot read form plus
-- rates (null while the lot has no price; 15-rates.sql shows a price). read_supply lists,
-- write_supply writes, nothing else does.
-- The gateway owns the query's syntax (limit 1-200, default 50; after 1-200 characters: refused
-- before authentication, gateway/tests/integration/lots_list.rs) and passes valid values only.
BEGIN;
SELECT plan(42);

CREATE TEMP TABLE fx AS
SELECT a, b,
       tests.issue_credential(a, ARRAY['read_supply']) AS read_bearer,
       tests.issue_credential(a, ARRAY['write_supply']) AS write_bearer,
       tests.issue_credential(a, ARRAY['read_bookings']) AS bookings_bearer,
       tests.issue_credential(b, ARRAY['read_supply', 'write_supply']) AS b_bearer
  FROM tests.make_operator('Harbour Parking') AS a, tests.make_operator('Quay Parking') AS b;
GRANT SELECT ON fx TO PUBLIC;

-- A's lots, made in an order that is no sort order; B holds lots of its own, one with an id of A's.
CREATE TEMP TABLE ids (id text);
INSERT INTO ids VALUES ('a/b'), ('é'), ('B'), ('~'), ('a'), ('0'), ('aa'), ('Z'), ('a b');
GRANT SELECT ON ids TO PUBLIC;
SELECT is_empty(
    $$SELECT i.id FROM ids AS i, fx, tests.put_lot(fx.write_bearer, i.id, tests.lot_body(jsonb_build_object('name', 'Lot ' || i.id))) AS p
       WHERE p.status <> 201$$,
    'the fixture: A''s nine lots are created');
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'a', tests.minimal_lot_body('{"name": "Quay a"}')) AS p), 201,
          'the fixture: B''s lot a');
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'b2', tests.minimal_lot_body('{"name": "Quay b2"}')) AS p), 201,
          'the fixture: B''s lot b2');

-- One page for A: (status, body).
CREATE FUNCTION pg_temp.page(p_after text, p_limit integer)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT g.status, g.body FROM fx, tests.get_lots(fx.read_bearer, p_after, p_limit) AS g;
$$;

-- The external_ids of one page for A.
CREATE FUNCTION pg_temp.page_ids(p_after text, p_limit integer)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'external_id' FROM pg_temp.page(p_after, p_limit) AS p, jsonb_array_elements(p.body -> 'lots') AS e);
$$;

-- The next_after of one page for A (JSON: a string or null).
CREATE FUNCTION pg_temp.next_after(p_after text, p_limit integer)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT body -> 'next_after' FROM pg_temp.page(p_after, p_limit);
$$;

-- Every page for A with this limit, following next_after from the start until it is null: the pages'
-- ids, one array per call.
CREATE FUNCTION pg_temp.walk(p_limit integer)
RETURNS text[]
LANGUAGE plpgsql
AS $$
DECLARE
    v_after text;
    v_page jsonb;
    v_pages text[] := '{}';
BEGIN
    FOR i IN 1 .. 50 LOOP
        SELECT body INTO v_page FROM pg_temp.page(v_after, p_limit);
        v_pages := v_pages || ARRAY(SELECT e ->> 'external_id' FROM jsonb_array_elements(v_page -> 'lots') AS e)::text;
        v_after := v_page ->> 'next_after';
        EXIT WHEN v_after IS NULL;
    END LOOP;
    RETURN v_pages;
END
$$;

-- The whole list ----------------------------------------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.page(NULL, 200)), 200, 'GET /lots with read_supply answers 200');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM pg_temp.page(NULL, 200)), ARRAY['lots', 'next_after'],
          'the answer has exactly lots and next_after');
SELECT is(pg_temp.page_ids(NULL, 200), ARRAY['0', 'B', 'Z', 'a', 'a b', 'a/b', 'aa', '~', 'é'],
          'the lots come in byte order of external_id: 0 < B < Z < a < a b < a/b < aa < ~ < é');
SELECT is(pg_temp.page_ids(NULL, 200), ARRAY(SELECT id FROM ids ORDER BY convert_to(id, 'UTF8')),
          'which is the order of the ids'' UTF-8 bytes, whatever the database''s collation');
SELECT is(pg_temp.next_after(NULL, 200), 'null'::jsonb, 'a page that is not full has next_after null');
SELECT is((SELECT e FROM pg_temp.page(NULL, 200) AS p, jsonb_array_elements(p.body -> 'lots') AS e WHERE e ->> 'external_id' = 'a/b'),
          tests.lot_body('{"name": "Lot a/b"}')::jsonb || '{"external_id": "a/b", "rates": null}',
          'an entry is the Lot read form plus rates: null');
SELECT is_empty(
    $$SELECT e ->> 'external_id' FROM pg_temp.page(NULL, 200) AS p, jsonb_array_elements(p.body -> 'lots') AS e
       WHERE ARRAY(SELECT jsonb_object_keys(e) ORDER BY 1) <> ARRAY['arrival', 'cancellation', 'capacity', 'city', 'country_code', 'external_id',
             'features', 'handover', 'latitude', 'longitude', 'max_stay_days', 'media', 'min_advance_days', 'min_stay_days', 'name',
             'online_bookable', 'rates', 'timezone']$$,
    'every entry has exactly the read form''s keys plus rates');
SELECT is_empty(
    $$SELECT e FROM pg_temp.page(NULL, 200) AS p, jsonb_array_elements(p.body -> 'lots') AS e, fx
       WHERE e - 'rates' <> (SELECT q.body -> 'lot' FROM tests.put_lot(fx.write_bearer, e ->> 'external_id', tests.lot_body(jsonb_build_object('name', e ->> 'name'))) AS q)$$,
    'every entry equals the Lot a PUT reads back');
SELECT is((SELECT e FROM fx, tests.get_lots(fx.b_bearer, NULL, 10) AS p, jsonb_array_elements(p.body -> 'lots') AS e WHERE e ->> 'external_id' = 'b2'),
          tests.minimal_lot_body('{"name": "Quay b2"}')::jsonb || '{"external_id": "b2", "capacity": null, "latitude": null, "longitude": null, "city": null,
             "country_code": null, "features": [], "arrival": null, "media": null, "min_advance_days": 0, "min_stay_days": null, "max_stay_days": null,
             "cancellation": null, "rates": null}',
          'an entry of a bare lot has every key, nulls included');

-- Only the caller's lots ----------------------------------------------------------------------------------------

SELECT is_empty($$SELECT e FROM pg_temp.page(NULL, 200) AS p, jsonb_array_elements(p.body -> 'lots') AS e WHERE e ->> 'name' LIKE 'Quay%'$$,
                'another operator''s lots are never listed, not even one with the same external_id');
SELECT is((SELECT ARRAY(SELECT e ->> 'name' FROM jsonb_array_elements(p.body -> 'lots') AS e) FROM fx, tests.get_lots(fx.b_bearer, NULL, 200) AS p),
          ARRAY['Quay a', 'Quay b2'], 'the other operator lists just its own two lots');

-- Keyset paging --------------------------------------------------------------------------------------------------

SELECT is(pg_temp.page_ids(NULL, 4), ARRAY['0', 'B', 'Z', 'a'], 'limit 4 answers the first four');
SELECT is(pg_temp.next_after(NULL, 4), '"a"'::jsonb, 'a full page''s next_after is its last id');
SELECT is(pg_temp.page_ids('a', 4), ARRAY['a b', 'a/b', 'aa', '~'], 'after a: the next four, a itself excluded');
SELECT is(pg_temp.next_after('a', 4), '"~"'::jsonb, 'that full page''s next_after is ~');
SELECT is(pg_temp.page_ids('~', 4), ARRAY['é'], 'after ~: the last lot');
SELECT is(pg_temp.next_after('~', 4), 'null'::jsonb, 'the last page, not full, has next_after null');
SELECT is(pg_temp.page_ids(NULL, 9), ARRAY['0', 'B', 'Z', 'a', 'a b', 'a/b', 'aa', '~', 'é'], 'limit 9 answers all nine');
SELECT is(pg_temp.next_after(NULL, 9), '"é"'::jsonb, 'a full page has next_after its last id even when nothing follows');
SELECT is(pg_temp.page_ids('é', 9), '{}'::text[], 'after the last id the page is empty');
SELECT is(pg_temp.next_after('é', 9), 'null'::jsonb, 'an empty page has next_after null');
SELECT is(pg_temp.page_ids('a b', 2), ARRAY['a/b', 'aa'], 'an id with a space works as after');
SELECT is(pg_temp.page_ids('a/b', 2), ARRAY['aa', '~'], 'an id with a slash works as after');
SELECT is(pg_temp.page_ids('A', 2), ARRAY['B', 'Z'], 'after need not be an id: after A comes B (byte order, case-sensitive)');
SELECT is(pg_temp.page_ids('b', 2), ARRAY['~', 'é'], 'after b (no such id) comes ~');
SELECT is(pg_temp.page_ids(NULL, 1), ARRAY['0'], 'limit 1 answers one lot');
SELECT is(pg_temp.next_after(NULL, 1), '"0"'::jsonb, 'and its id as next_after');
SELECT is(pg_temp.page_ids(repeat('z', 200), 200), ARRAY['~', 'é'], 'an after of 200 characters is accepted');
SELECT is(pg_temp.walk(2), ARRAY['{0,B}', '{Z,a}', '{"a b",a/b}', '{aa,~}', '{é}'],
          'following next_after with limit 2 visits every lot once, in five pages');
SELECT is(pg_temp.walk(3), ARRAY['{0,B,Z}', '{a,"a b",a/b}', '{aa,~,é}', '{}'],
          'with limit 3 the third page is full, so a fourth, empty page ends the walk');

-- The largest page ------------------------------------------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.page(NULL, 200)), 200, 'limit 200 is accepted');

-- Scopes ------------------------------------------------------------------------------------------------------------

SELECT tests.refuses(format('SELECT tests.get_lots(%L, NULL, 10)', write_bearer), 'PT401', 'unauthorized', NULL,
                     'a write_supply-only credential cannot list lots: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.get_lots(%L, NULL, 10)', bookings_bearer), 'PT401', 'unauthorized', NULL,
                     'a read_bookings-only credential cannot list lots') FROM fx;
SELECT tests.refuses('SELECT tests.get_lots(NULL, NULL, 10)', 'PT401', 'unauthorized', NULL, 'no credential cannot list lots');
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L)', read_bearer, 'new', tests.lot_body()), 'PT401', 'unauthorized', NULL,
                     'a read_supply-only credential cannot write a lot: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L, true)', read_bearer, 'new', tests.lot_body()), 'PT401', 'unauthorized', NULL,
                     'nor dry-run one') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L)', bookings_bearer, 'new', tests.lot_body()), 'PT401', 'unauthorized', NULL,
                     'a read_bookings-only credential cannot write a lot') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L)', read_bearer, 'new', 'not json'), 'PT401', 'unauthorized', NULL,
                     'the scope is checked before the body: a bad body with the wrong scope is still 401') FROM fx;
SELECT is((tests.lot(a, 'new')).id, NULL, 'the refused writes stored nothing') FROM fx;

SELECT * FROM finish();
ROLLBACK;
