-- PUT /lots/{external_id} sent again with the text of its last write (app.lot_write, V11): the text's
-- digest (app.lot_body_digest: rules fingerprint, media folder, text) is kept with every write, and an
-- equal digest answers `unchanged` without reading the body again. What must hold:
--   - every write (create, update) stores the digest of the text it accepted; an unchanged PUT of
--     another text stores nothing (no statement at all, spec: Diff before update);
--   - the same text answers exactly what the full check answers, and writes nothing;
--   - the digest is only trusted under the rules it was made under: a new fingerprint
--     (app.deployed_rules_refresh, written by `ingest migrate`) voids it, and so does another
--     operator's media folder and any other writer of the lot's fields (the trigger);
--   - the fingerprint follows every function of the project's schemas and nothing else.
BEGIN;
SELECT plan(23);

CREATE TEMP TABLE fx AS
SELECT a, tests.issue_credential(a, ARRAY['write_supply']) AS bearer
  FROM tests.make_operator('Digest Parking', 'EUR', 'digest') AS a;
GRANT SELECT ON fx TO PUBLIC;

-- PUT lot p_external_id of A with this body text; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text, p_dry_run boolean DEFAULT false)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_lot(fx.bearer, p_external_id, p_body, p_dry_run) AS p;
$$;

CREATE FUNCTION pg_temp.stored(p_external_id text)
RETURNS app.lots
LANGUAGE sql
AS $$
    SELECT tests.lot(fx.a, p_external_id) FROM fx;
$$;

-- The transaction that last wrote the lot's row.
CREATE FUNCTION pg_temp.writer(p_external_id text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT l.xmin::text FROM app.lots AS l, fx WHERE l.operator_id = fx.a AND l.external_id = p_external_id;
$$;

-- The same body as tests.lot_body(), as another text: other spacing.
CREATE FUNCTION pg_temp.respaced()
RETURNS text
LANGUAGE sql
AS $$
    SELECT replace(tests.lot_body(), ', "', E',\n  "');
$$;

-- Every write keeps the digest of its text -----------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.put('d-1', tests.lot_body())), 201, 'a first PUT creates the lot');
SELECT is((pg_temp.stored('d-1')).accepted_body_digest, app.lot_body_digest('digest', tests.lot_body()),
          'the created lot holds the digest of the text that made it');
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('d-1', tests.lot_body('{"city": "Leeds"}'))), 'updated',
          'a PUT of another city updates the lot');
SELECT is((pg_temp.stored('d-1')).accepted_body_digest, app.lot_body_digest('digest', tests.lot_body('{"city": "Leeds"}')),
          'the updated lot holds the digest of the text of the update');

-- The same text again answers what the full check answers, and writes nothing ----------------------------

CREATE TEMP TABLE slow AS SELECT * FROM pg_temp.put('d-1', pg_temp.respaced() );
SELECT is((SELECT body ->> 'result' FROM slow), 'updated', 'the respaced text of the first body is a change back to London (full check)');
CREATE TEMP TABLE writer_before AS SELECT pg_temp.writer('d-1') AS tx;
CREATE TEMP TABLE unchanged_other_text AS SELECT * FROM pg_temp.put('d-1', tests.lot_body());
SELECT is((SELECT body ->> 'result' FROM unchanged_other_text), 'unchanged',
          'the first body''s own text, equal in value to what is stored, answers unchanged (full check)');
SELECT is(pg_temp.writer('d-1'), (SELECT tx FROM writer_before),
          'an unchanged PUT of another text writes nothing, not even the digest (same xmin)');
SELECT is((pg_temp.stored('d-1')).accepted_body_digest, app.lot_body_digest('digest', pg_temp.respaced()),
          'the stored digest is still that of the respaced text, the last one written');
CREATE TEMP TABLE unchanged_same_text AS SELECT * FROM pg_temp.put('d-1', pg_temp.respaced());
SELECT is((SELECT status FROM unchanged_same_text), 200, 'the text of the last write sent again answers 200');
SELECT is((SELECT body FROM unchanged_same_text), (SELECT body FROM unchanged_other_text),
          'and exactly the answer of the full check: unchanged, changed [], no review superseded, the Lot read back');
SELECT is(pg_temp.writer('d-1'), (SELECT tx FROM writer_before),
          'and writes nothing (same xmin)');
SELECT is((SELECT body FROM pg_temp.put('d-1', pg_temp.respaced(), true)),
          (SELECT body FROM unchanged_same_text) || '{"dry_run": true}',
          'a dry run of that text answers the same report with dry_run');

-- The digest is what is trusted: shown by planting the digest of a text the full check refuses -----------

SAVEPOINT planted;
UPDATE app.lots SET accepted_body_digest = app.lot_body_digest('digest', 'not json')
 WHERE operator_id = (SELECT a FROM fx) AND external_id = 'd-1';
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('d-1', 'not json')), 'unchanged',
          'a text whose digest is the stored one is not read again (a planted digest of a refused text answers unchanged)');
UPDATE app.deployed_rules SET fingerprint = sha256('other rules'::bytea);
SELECT tests.refuses($$SELECT * FROM pg_temp.put('d-1', 'not json')$$, 'PT422', 'invalid_json', NULL,
                     'under another rules fingerprint the same text is read in full again, and refused');
ROLLBACK TO SAVEPOINT planted;

SELECT isnt(app.lot_body_digest('digest', tests.lot_body()), app.lot_body_digest('other-folder', tests.lot_body()),
            'the digest depends on the operator''s media folder (the media rule reads it)');

-- Any other writer of the lot's fields voids the digest; a write of other columns keeps it -------------------

SAVEPOINT other_writers;
UPDATE app.lots SET review_state = 'pending' WHERE operator_id = (SELECT a FROM fx) AND external_id = 'd-1';
SELECT is((pg_temp.stored('d-1')).accepted_body_digest, app.lot_body_digest('digest', pg_temp.respaced()),
          'a write of the review state alone keeps the digest');
UPDATE app.lots SET capacity = capacity + 1 WHERE operator_id = (SELECT a FROM fx) AND external_id = 'd-1';
SELECT is((pg_temp.stored('d-1')).accepted_body_digest, NULL, 'a write of a body field by any other writer voids the digest');
SELECT is((SELECT body -> 'changed' FROM pg_temp.put('d-1', pg_temp.respaced())), '["capacity"]'::jsonb,
          'so the text sent again is read in full and puts the capacity back');
ROLLBACK TO SAVEPOINT other_writers;

-- The fingerprint of the rules in force -----------------------------------------------------------------------

CREATE TEMP TABLE fingerprint AS SELECT fingerprint FROM app.deployed_rules;
SELECT is(app.deployed_rules_refresh(), (SELECT fingerprint FROM fingerprint),
          'the fingerprint migrate recorded is that of the functions in force, and stays while nothing changes');
SAVEPOINT changed_rule;
CREATE OR REPLACE FUNCTION app.is_blank(p_text text) RETURNS boolean LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp AS $$ SELECT p_text IS NULL $$;
SELECT isnt(app.deployed_rules_refresh(), (SELECT fingerprint FROM fingerprint),
            'replacing any function of the project changes the fingerprint');
SELECT isnt((pg_temp.stored('d-1')).accepted_body_digest, app.lot_body_digest('digest', pg_temp.respaced()),
            'so the stored digest no longer matches the text that made it');
ROLLBACK TO SAVEPOINT changed_rule;
CREATE FUNCTION pg_temp.not_the_project() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$;
SELECT is(app.deployed_rules_refresh(), (SELECT fingerprint FROM fingerprint),
          'a function outside the project''s schemas leaves it as it is');
SELECT is((SELECT count(*) FROM app.deployed_rules), 1::bigint, 'the rules in force are one row');

SELECT * FROM finish();
ROLLBACK;
