-- PUT /lots/{external_id}?dry_run=true (spec: Dry run): the write runs in full, with the same
-- statements and triggers, and is rolled back. The answer is the real write's report plus
-- dry_run: true, always 200; refusals are the real write's; nothing is stored, changed or voided;
-- the credential is still recorded as used.
BEGIN;
SELECT plan(50);

CREATE TEMP TABLE fx AS
SELECT a, tests.issue_credential(a, ARRAY['write_supply']) AS bearer, tests.issue_credential(a, ARRAY['read_supply']) AS read_bearer
  FROM tests.make_operator('Harbour Parking', 'GBP', 'harbour') AS a;
GRANT SELECT ON fx TO PUBLIC;

-- PUT lot p_external_id of A; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text, p_dry_run boolean DEFAULT false)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_lot(fx.bearer, p_external_id, p_body, p_dry_run) AS p;
$$;

-- The whole stored row of a lot of A and its visible tuple's place and version (ctid, xmin), as the
-- superuser. (Not xmax: the rolled-back write of a dry run leaves its aborted id there.)
CREATE FUNCTION pg_temp.stored(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT to_jsonb(l) || jsonb_build_object('ctid', l.ctid::text, 'xmin', l.xmin::text)
      FROM app.lots AS l, fx WHERE l.operator_id = fx.a AND l.external_id = p_external_id;
$$;

-- Created ------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE dry_created AS SELECT * FROM pg_temp.put('new', tests.lot_body(), true);
SELECT is((SELECT status FROM dry_created), 200, 'a dry run that would create answers 200, not 201');
SELECT is((SELECT body ->> 'result' FROM dry_created), 'created', 'its result states what the write would have done: created');
SELECT is((SELECT body -> 'dry_run' FROM dry_created), 'true'::jsonb, 'its answer carries dry_run: true');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM dry_created),
          ARRAY['changed', 'dry_run', 'external_id', 'listing_review_superseded', 'lot', 'result'],
          'a dry run answers the report''s keys plus dry_run');
SELECT is(pg_temp.stored('new'), NULL, 'after a dry-run create no lot is stored');
SELECT is(tests.lot_count(a), 0::bigint, 'the operator holds no lot') FROM fx;

CREATE TEMP TABLE real_created AS SELECT * FROM pg_temp.put('new', tests.lot_body());
SELECT is((SELECT status FROM real_created), 201, 'the real write of the same body answers 201');
SELECT is((SELECT body FROM dry_created), (SELECT body || '{"dry_run": true}' FROM real_created),
          'the dry run''s answer is the real write''s report plus dry_run: true (the Lot read back included)');
SELECT is((SELECT body -> 'dry_run' FROM real_created), NULL, 'a real write''s answer has no dry_run key');

-- Updated ------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE before_update AS SELECT pg_temp.stored('new') AS row;
CREATE TEMP TABLE dry_updated AS SELECT * FROM pg_temp.put('new', tests.lot_body('{"city": "Leeds", "online_bookable": false}'), true);
SELECT is((SELECT status FROM dry_updated), 200, 'a dry-run update answers 200');
SELECT is((SELECT body ->> 'result' FROM dry_updated), 'updated', 'its result is updated');
SELECT is((SELECT body -> 'changed' FROM dry_updated), '["online_bookable", "city"]'::jsonb, 'it lists what would change');
SELECT is((SELECT body -> 'lot' ->> 'city' FROM dry_updated), 'Leeds', 'it reads back the Lot as it would be stored');
SELECT is(pg_temp.stored('new'), (SELECT row FROM before_update),
          'after a dry-run update the stored row is exactly as before (values, ctid, xmin: the same tuple version)');
CREATE TEMP TABLE real_updated AS SELECT * FROM pg_temp.put('new', tests.lot_body('{"city": "Leeds", "online_bookable": false}'));
SELECT is((SELECT body FROM dry_updated), (SELECT body || '{"dry_run": true}' FROM real_updated),
          'the dry-run update''s answer is the real update''s report plus dry_run: true');
SELECT is((SELECT status FROM real_updated), 200, 'the real update answers 200');

-- Unchanged ----------------------------------------------------------------------------------------------------

CREATE TEMP TABLE dry_unchanged AS SELECT * FROM pg_temp.put('new', tests.lot_body('{"city": "Leeds", "online_bookable": false}'), true);
SELECT is((SELECT status FROM dry_unchanged), 200, 'a dry run of an unchanged lot answers 200');
SELECT is((SELECT body - 'dry_run' FROM dry_unchanged),
          (SELECT body || '{"result": "unchanged", "changed": []}' FROM real_updated),
          'it answers unchanged with an empty changed list and the stored Lot');
SELECT is((SELECT body -> 'dry_run' FROM dry_unchanged), 'true'::jsonb, 'with dry_run: true');

-- The write runs in full: the same statements fire the same triggers ----------------------------------------------

CREATE FUNCTION pg_temp.refuse_lot_write()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'PTEST', MESSAGE = 'a ' || TG_OP || ' of app.lots ran';
END
$$;
SAVEPOINT trigger_probe;
CREATE TRIGGER refuse_lot_write BEFORE INSERT OR UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION pg_temp.refuse_lot_write();
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L, true)', bearer, 'other', tests.lot_body()),
                     'PTEST', 'a INSERT of app.lots ran', NULL, 'a dry-run create runs the INSERT and its triggers') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_lot(%L, %L, %L, true)', bearer, 'new', tests.lot_body()),
                     'PTEST', 'a UPDATE of app.lots ran', NULL, 'a dry-run update runs the UPDATE and its triggers') FROM fx;
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('new', tests.lot_body('{"city": "Leeds", "online_bookable": false}'), true)), 'unchanged',
          'a dry run of an unchanged lot runs no write (the trigger did not fire)');
ROLLBACK TO SAVEPOINT trigger_probe;

-- Nothing is voided ----------------------------------------------------------------------------------------------

SELECT is(tests.make_lot_sell(a, 'new') ->> 'review_state', 'approved', 'the fixture: the lot approved with its zone confirmed') FROM fx;
CREATE TEMP TABLE before_void AS SELECT pg_temp.stored('new') AS row;
CREATE TEMP TABLE dry_void AS SELECT * FROM pg_temp.put('new', tests.lot_body('{"city": "York", "online_bookable": false, "timezone": "Europe/Dublin"}'), true);
SELECT is((SELECT body -> 'listing_review_superseded' FROM dry_void), 'true'::jsonb,
          'a dry-run change of reviewed fields reports listing_review_superseded true (what the write would do)');
SELECT is((SELECT body -> 'changed' FROM dry_void), '["timezone", "city"]'::jsonb, 'and lists the fields it would change');
SELECT is(tests.listing_status(a, 'new') ->> 'review_state', 'approved', 'the approved lot stays approved after the dry run') FROM fx;
SELECT is((tests.lot(a, 'new')).timezone_confirmed, true, 'the zone confirmation stays after a dry-run zone change') FROM fx;
SELECT is(pg_temp.stored('new'), (SELECT row FROM before_void), 'the stored row is exactly as before the dry run');
SELECT is((SELECT body FROM pg_temp.put('new', tests.lot_body('{"city": "York", "online_bookable": false, "timezone": "Europe/Dublin"}'))),
          (SELECT body - 'dry_run' FROM dry_void), 'the real write then answers what the dry run reported');
SELECT is(tests.listing_status(a, 'new') ->> 'review_state', 'superseded', 'and the real write supersedes the review') FROM fx;

-- Refusals are the real write's ----------------------------------------------------------------------------------------

CREATE TEMP TABLE bad_body (n integer, what text, bearer_of text, external_id text, body text);
INSERT INTO bad_body VALUES
    (1, 'invalid_json', 'bearer', 'x', '{"name": '),
    (2, 'too_many_lots', 'bearer', 'x', '[{}]'),
    (3, 'invalid_body (not an object)', 'bearer', 'x', '"lot"'),
    (4, 'field_belongs_to_another_route', 'bearer', 'x', tests.lot_body('{"rates": {}}')),
    (5, 'unknown_field', 'bearer', 'x', tests.lot_body('{"colour": "blue"}')),
    (6, 'missing_field', 'bearer', 'x', tests.lot_body('{"name": " "}')),
    (7, 'invalid_timezone', 'bearer', 'x', tests.lot_body('{"timezone": "posix/UTC"}')),
    (8, 'invalid_coordinates', 'bearer', 'x', tests.lot_body(p_without => ARRAY['longitude'])),
    (9, 'invalid_country_code', 'bearer', 'x', tests.lot_body('{"country_code": "UK"}')),
    (10, 'invalid_stay_bounds', 'bearer', 'x', tests.lot_body('{"min_stay_days": 3, "max_stay_days": 2}')),
    (11, 'incomplete_cancellation_policy', 'bearer', 'x', tests.lot_body('{"cancellation": {"no_show_forfeits_full": true}}')),
    (12, 'invalid_body (the media rule)', 'bearer', 'x', tests.lot_body('{"media": {"heroUrl": "https://cdn.test/lot-media/quay/a.jpg"}}')),
    (13, 'invalid_body (external_id differs)', 'bearer', 'x', tests.lot_body('{"external_id": "y"}')),
    (14, 'invalid_body (a penalty with three decimals)', 'bearer', 'new',
         tests.lot_body('{"cancellation": {"free_until_hours_before_check_in": 1, "penalty_percent_after": "1.005", "no_show_forfeits_full": true}}')),
    (15, 'unauthorized (a read-only credential)', 'read_bearer', 'x', tests.lot_body());

-- The error (SQLSTATE, MESSAGE, DETAIL) of a PUT, real or dry.
CREATE FUNCTION pg_temp.error_of_put(p_bearer text, p_external_id text, p_body text, p_dry_run boolean)
RETURNS text
LANGUAGE sql
AS $$
    SELECT e.code || ' ' || e.message || coalesce(' DETAIL ' || e.detail, '')
      FROM tests.error_of(format('SELECT tests.put_lot(%L, %L, %L, %L)', p_bearer, p_external_id, p_body, p_dry_run)) AS e;
$$;

SELECT is(pg_temp.error_of_put(CASE bearer_of WHEN 'bearer' THEN fx.bearer ELSE fx.read_bearer END, external_id, body, true),
          pg_temp.error_of_put(CASE bearer_of WHEN 'bearer' THEN fx.bearer ELSE fx.read_bearer END, external_id, body, false),
          format('a dry run is refused exactly as the real write: %s', what))
  FROM bad_body, fx ORDER BY n;
SELECT is_empty(
    $$SELECT n FROM bad_body, fx
       WHERE pg_temp.error_of_put(CASE bearer_of WHEN 'bearer' THEN fx.bearer ELSE fx.read_bearer END, external_id, body, true) IS NULL$$,
    'every one of those dry runs was refused (the comparison above is not of two successes)');
SELECT is((SELECT count(*) FROM app.lots WHERE external_id = 'x'), 0::bigint, 'the refused dry runs and writes stored nothing');

-- The credential is recorded as used --------------------------------------------------------------------------------

UPDATE app.api_credentials SET last_used_at = NULL WHERE key_id = (SELECT tests.key_id(bearer) FROM fx);
SELECT is((SELECT status FROM pg_temp.put('used', tests.lot_body(), true)), 200, 'the fixture: a dry run with a credential never used');
SELECT is((SELECT last_used_at FROM app.api_credentials WHERE key_id = (SELECT tests.key_id(bearer) FROM fx)), now(),
          'a dry run records the credential''s use (it is not rolled back with the write)');
SELECT is(pg_temp.stored('used'), NULL, 'while the lot it would have created is not stored');

SELECT * FROM finish();
ROLLBACK;
