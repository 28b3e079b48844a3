-- The bookings feed runs only under READ COMMITTED: its watermark is right only when the
-- statement sees every booking committed before it started. Under another level it refuses with
-- SQLSTATE 25000 (a server fault, 500), never answering a page that could skip a booking. The gateway
-- sets READ COMMITTED on its connections (gateway/tests/integration/bookings_feed.rs shows it under
-- a server whose default is SERIALIZABLE); every other pgTAP file runs under READ COMMITTED.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT plan(2);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS SELECT tests.issue_credential(tests.make_operator('Isolation')) AS bearer;
GRANT SELECT ON fx TO PUBLIC;

SELECT is(current_setting('transaction_isolation'), 'repeatable read', 'this file runs under REPEATABLE READ');
SELECT tests.act_as_gateway();
SELECT throws_ok(format('SELECT * FROM api.bookings_get(%L, NULL, 10)', bearer), '25000',
                 'the bookings feed needs READ COMMITTED',
                 'GET /bookings under REPEATABLE READ refuses to answer (25000)') FROM fx;

SELECT * FROM finish();
ROLLBACK;
