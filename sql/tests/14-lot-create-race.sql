-- Two concurrent first PUTs of one new external_id (spec: Errors 409; docs/reference/errors.md):
-- one creates, the other waits for it and answers PT409 `conflict` (the gateway adds Retry-After).
-- Real concurrency: two more sessions through dblink, on data they can see, so this file commits
-- its fixture (an operator of its own) and deletes it again at the end, and before it starts in
-- case an earlier run stopped half-way.
BEGIN;
SELECT plan(15);

CREATE EXTENSION dblink;  -- rolled back with the file

CREATE TEMP TABLE conn AS SELECT tests.own_database_conninfo() AS info;

-- Everything an earlier, interrupted run committed for this file's operator is removed first.
SELECT tests.remove_committed_operators('pgTAP race operator');

-- The fixture, committed: an operator with two write credentials, one for each session (with one
-- credential the second request would wait for the first's record of its use instead, and then
-- find the lot committed).
CREATE TEMP TABLE fx AS
SELECT r.op::uuid AS a, r.bearer, r.second_bearer
  FROM dblink((SELECT info FROM conn), $q$
           SELECT o, tests.issue_credential(o, ARRAY['write_supply']), tests.issue_credential(o, ARRAY['write_supply'])
             FROM tests.make_operator('pgTAP race operator') AS o
       $q$) AS r(op text, bearer text, second_bearer text);
GRANT SELECT ON fx TO PUBLIC;

SELECT dblink_connect('first', (SELECT info FROM conn));
SELECT dblink_connect('second', (SELECT info FROM conn));
CREATE TEMP TABLE second_pid AS SELECT pid FROM dblink('second', 'SELECT pg_backend_pid()') AS t(pid integer);

-- Whether session `second` is waiting for a lock, polled for up to five seconds.
CREATE FUNCTION pg_temp.second_waits_for_a_lock()
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    FOR i IN 1 .. 500 LOOP
        IF EXISTS (SELECT FROM pg_stat_activity WHERE pid = (SELECT pid FROM second_pid) AND wait_event_type = 'Lock') THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.01);
        PERFORM pg_stat_clear_snapshot();
    END LOOP;
    RETURN false;
END
$$;

-- The first commits: the second answers conflict ----------------------------------------------------------------

SELECT is((SELECT status FROM dblink('first', format($q$BEGIN; SELECT status FROM tests.put_lot(%L, 'race', %L)$q$, bearer, tests.lot_body()))
                                AS t(status integer)), 201,
          'the first PUT of a new id creates it (not yet committed)') FROM fx;
SELECT is(dblink_send_query('second', format($q$SELECT status, body::text FROM tests.put_lot(%L, 'race', %L)$q$, second_bearer, tests.lot_body('{"name": "Second"}'))),
          1, 'a second PUT of the same new id is sent meanwhile') FROM fx;
SELECT ok(pg_temp.second_waits_for_a_lock(), 'the second PUT waits for the first');
SELECT is(dblink_is_busy('second'), 1, 'the second PUT has not answered yet');
SELECT is(dblink_exec('first', 'COMMIT'), 'COMMIT', 'the first PUT commits');
SELECT tests.refuses($$SELECT * FROM dblink_get_result('second') AS t(status integer, body text)$$, 'PT409', 'conflict', NULL,
                     'the second PUT answers PT409 conflict (no DETAIL)');
SELECT is_empty($$SELECT * FROM dblink_get_result('second') AS t(status integer, body text)$$, 'the second session has nothing more to answer');
SELECT is((SELECT name FROM app.lots WHERE operator_id = (SELECT a FROM fx) AND external_id = 'race'), 'Harbour Car Park',
          'the first PUT''s lot is stored, once');
SELECT is((SELECT status FROM dblink('second', format($q$SELECT status FROM tests.put_lot(%L, 'race', %L)$q$, second_bearer, tests.lot_body('{"name": "Second"}')))
                                AS t(status integer)), 200,
          'retried, the second PUT updates the lot (200)') FROM fx;

-- The first rolls back: the second creates -------------------------------------------------------------------------

SELECT is((SELECT status FROM dblink('first', format($q$BEGIN; SELECT status FROM tests.put_lot(%L, 'race 2', %L)$q$, bearer, tests.lot_body()))
                                AS t(status integer)), 201, 'a first PUT of another new id creates it (not yet committed)') FROM fx;
SELECT is(dblink_send_query('second', format($q$SELECT status, body::text FROM tests.put_lot(%L, 'race 2', %L)$q$, second_bearer, tests.lot_body())),
          1, 'a second PUT of that id is sent meanwhile') FROM fx;
SELECT ok(pg_temp.second_waits_for_a_lock(), 'the second PUT waits for the first');
SELECT is(dblink_exec('first', 'ROLLBACK'), 'ROLLBACK', 'the first PUT rolls back');
SELECT is((SELECT status FROM dblink_get_result('second') AS t(status integer, body text)), 201,
          'the second PUT then creates the lot (201)');
SELECT is((SELECT count(*) FROM app.lots WHERE operator_id = (SELECT a FROM fx)), 2::bigint, 'the operator holds the two lots, once each');

SELECT dblink_disconnect('first');
SELECT dblink_disconnect('second');
SELECT tests.remove_committed_operators('pgTAP race operator');

SELECT * FROM finish();
ROLLBACK;
