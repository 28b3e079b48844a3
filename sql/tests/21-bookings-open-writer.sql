-- The bookings feed never skips a booking that commits late (docs/design.md, the feed's guarantee;
-- "no booking is ever skipped"): while a transaction that wrote a booking is open, the
-- watermark is no later than that transaction's start (the oldest such transaction's), so `next`
-- never passes a booking that is not visible yet; once it commits, a pull from the saved `next`
-- delivers it, a new booking or a change alike. A transaction that wrote no booking, and a reader,
-- hold nothing back; a writer that rolls back releases the watermark. Real concurrency: more
-- sessions through dblink, on data they can see, so this file commits its fixture (an operator of
-- its own) and removes it again at the end, and before it starts in case an earlier run stopped
-- half-way. This transaction writes no booking itself and sets the watermark lag to -1 hour, so
-- only open writers hold the watermark.
BEGIN;
SELECT plan(51);

CREATE EXTENSION dblink;  -- rolled back with the file

-- Everything an earlier, interrupted run committed for this file's operator is removed first.
SELECT tests.remove_committed_operators('pgTAP open writer operator');

-- The fixture, committed: an operator with a lot l1, a read_bookings and a write_supply credential.
CREATE TEMP TABLE fx AS
SELECT c.operator_id AS f, c.read_bearer AS bearer, c.write_bearer, c.lot_status
  FROM tests.committed_operator_with_lot('pgTAP open writer operator') AS c;
GRANT SELECT ON fx TO PUBLIC;
SELECT is(lot_status, 201, 'the fixture: the operator''s lot l1, committed, and its read credential used') FROM fx;

-- The statement that records the operator's booking with this reference (and p_overrides).
CREATE FUNCTION pg_temp.record_sql(p_reference text, p_overrides jsonb DEFAULT '{}')
RETURNS text
LANGUAGE sql
AS $$
    SELECT format('SELECT tests.record_booking(%L, tests.booking_body(''l1'', %L))', f, jsonb_build_object('reference', p_reference) || p_overrides)
      FROM fx;
$$;

-- The statement that places the operator's booking at p_at in the feed.
CREATE FUNCTION pg_temp.place_sql(p_reference text, p_at timestamptz)
RETURNS text
LANGUAGE sql
AS $$
    SELECT format('SELECT tests.restamp_booking(%L, %L, %L)::text', f, p_reference, p_at) FROM fx;
$$;

-- One answer of GET /bookings for the operator: (status, body).
CREATE FUNCTION pg_temp.pull(p_since text, p_limit integer DEFAULT 500)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT g.status, g.body FROM fx, tests.get_bookings(fx.bearer, p_since, p_limit) AS g;
$$;

-- The references of one answer, in order.
CREATE FUNCTION pg_temp.refs(p_since text)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'reference' FROM pg_temp.pull(p_since) AS p, jsonb_array_elements(p.body -> 'bookings') AS e);
$$;

-- The `next` of one answer.
CREATE FUNCTION pg_temp.next(p_since text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT body ->> 'next' FROM pg_temp.pull(p_since);
$$;

-- The operator's committed booking's change time.
CREATE FUNCTION pg_temp.changed_at(p_reference text)
RETURNS timestamptz
LANGUAGE sql
AS $$
    SELECT (tests.booking(f, p_reference)).changed_at FROM fx;
$$;

SELECT is(tests.committed(pg_temp.place_sql(tests.committed(pg_temp.record_sql('EARLY-1')), now() - interval '1 hour')), 'true',
          'the fixture: EARLY-1, committed an hour ago');
SELECT tests.set_bookings_watermark_lag('-1 hour');
SELECT is((SELECT app.bookings_watermark(f) FROM fx), now() + interval '1 hour', 'with no booking writer open the watermark is now minus the lag (here -1 hour)');

SELECT dblink_connect('writer', tests.own_database_conninfo());
SELECT dblink_connect('second', tests.own_database_conninfo());

-- Open transactions that wrote no booking hold nothing back -------------------------------------------------------------

SELECT is((SELECT status FROM dblink('writer', format($q$BEGIN; SELECT (tests.put_lot(%L, 'l2', %L)).status$q$, write_bearer, tests.lot_body()))
                                AS t(status integer)), 201,
          'a session begins, writes a lot (no booking) and stays open') FROM fx;
SELECT is((SELECT app.bookings_watermark(f) FROM fx), now() + interval '1 hour', 'it does not hold the watermark back');
SELECT is(dblink_exec('writer', 'ROLLBACK'), 'ROLLBACK', 'it rolls back');
SELECT is(pg_temp.refs(NULL), ARRAY['EARLY-1'], 'a pull from the beginning reads EARLY-1');
SELECT is_empty($$SELECT FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'$$, 'a reader takes no writer lock');

-- A new booking: an open writer holds the watermark back until it commits ------------------------------------------------

SELECT is((SELECT reference FROM dblink('writer', 'BEGIN; ' || pg_temp.record_sql('LATE-1')) AS t(reference text)), 'LATE-1',
          'a writer begins, records LATE-1 and stays open');
CREATE TEMP TABLE writer_tx AS
SELECT * FROM dblink('writer', $q$SELECT now(), (SELECT changed_at FROM app.bookings WHERE reference = 'LATE-1')$q$) AS t(started timestamptz, stamped timestamptz);
SELECT is(tests.committed(pg_temp.record_sql('OTHER-1')), 'OTHER-1', 'meanwhile another session records OTHER-1 and commits');
SELECT cmp_ok(pg_temp.changed_at('OTHER-1'), '>', stamped, 'the fixture: OTHER-1 is stamped after LATE-1 (it commits first)') FROM writer_tx;
SELECT cmp_ok((SELECT app.bookings_watermark(f) FROM fx), '<=', started, 'the watermark is no later than the open writer''s start') FROM writer_tx;
SELECT cmp_ok((SELECT app.bookings_watermark(f) FROM fx), '>', started - interval '1 second', 'it is that start (to the second)') FROM writer_tx;
SELECT is(app.bookings_watermark(gen_random_uuid()), now() + interval '1 hour',
          'another operator''s watermark is not held back by this operator''s open writer');
CREATE TEMP TABLE saved AS SELECT pg_temp.next(NULL) AS next;
GRANT SELECT ON saved TO PUBLIC;
SELECT is(pg_temp.refs(NULL), ARRAY['EARLY-1', 'OTHER-1'], 'a pull reads EARLY-1 and OTHER-1 (LATE-1 is not visible yet)');
SELECT is((SELECT body -> 'has_more' FROM pg_temp.pull(NULL)), 'false'::jsonb, 'has_more false');
SELECT is((tests.cursor_position(next)).changed_at, (SELECT app.bookings_watermark(f) FROM fx), 'its next is the watermark, not OTHER-1') FROM saved;
SELECT cmp_ok((tests.cursor_position(next)).changed_at, '<', stamped, 'so next does not pass LATE-1''s position') FROM saved, writer_tx;
SELECT is(pg_temp.refs(next), ARRAY['OTHER-1'], 'a pull from the saved next reads OTHER-1 again') FROM saved;
SELECT is(dblink_exec('writer', 'COMMIT'), 'COMMIT', 'the writer commits');
SELECT is((SELECT app.bookings_watermark(f) FROM fx), now() + interval '1 hour', 'the watermark is released');
SELECT is(pg_temp.refs(next), ARRAY['LATE-1', 'OTHER-1'], 'the next pull from the saved next delivers LATE-1: not skipped') FROM saved;

-- A change: likewise ---------------------------------------------------------------------------------------------------

SELECT is(tests.committed(pg_temp.place_sql('LATE-1', now() - interval '30 minutes')) || tests.committed(pg_temp.place_sql('OTHER-1', now() - interval '29 minutes')),
          'truetrue', 'the fixture: LATE-1 and OTHER-1 placed half an hour ago');
UPDATE saved SET next = pg_temp.next(NULL);
SELECT is(pg_temp.changed_at('OTHER-1'), (tests.cursor_position(next)).changed_at, 'a pull from the beginning saves next at OTHER-1') FROM saved;
SELECT is(dblink_exec('writer', 'BEGIN'), 'BEGIN', 'a writer begins');
SELECT is((SELECT x FROM dblink('writer', format($q$SELECT tests.update_booking(%L, 'EARLY-1', '{"payment_status": "partial"}')::text$q$, f)) AS t(x text)),
          '', 'changes EARLY-1 and stays open') FROM fx;
SELECT is(tests.committed(pg_temp.record_sql('OTHER-2')), 'OTHER-2', 'meanwhile another session records OTHER-2 and commits');
SELECT is(pg_temp.refs(next), ARRAY['OTHER-2'], 'a pull from the saved next reads OTHER-2 (the change of EARLY-1 is not visible yet)') FROM saved;
UPDATE saved SET next = pg_temp.next(next);
SELECT cmp_ok((tests.cursor_position(next)).changed_at, '<=', (SELECT started FROM dblink('writer', 'SELECT now()') AS t(started timestamptz)),
              'and saves a next no later than the writer''s start') FROM saved;
SELECT is(dblink_exec('writer', 'COMMIT'), 'COMMIT', 'the writer commits');
SELECT is(pg_temp.refs(next), ARRAY['EARLY-1', 'OTHER-2'], 'the next pull from the saved next delivers the changed EARLY-1') FROM saved;
SELECT is((SELECT e ->> 'payment_status' FROM saved, pg_temp.pull(saved.next) AS p, jsonb_array_elements(p.body -> 'bookings') AS e
            WHERE e ->> 'reference' = 'EARLY-1'), 'partial', 'as changed');

-- The oldest open writer holds the watermark; a rollback releases it --------------------------------------------------------

SELECT is((SELECT reference FROM dblink('writer', 'BEGIN; ' || pg_temp.record_sql('OLD-1')) AS t(reference text)), 'OLD-1',
          'a writer begins, records OLD-1 and stays open');
SELECT pg_sleep(1.1);
SELECT is((SELECT reference FROM dblink('second', 'BEGIN; ' || pg_temp.record_sql('NEW-1')) AS t(reference text)), 'NEW-1',
          'a second writer begins more than a second later, records NEW-1 and stays open');
CREATE TEMP TABLE starts AS
SELECT (SELECT s FROM dblink('writer', 'SELECT now()') AS t(s timestamptz)) AS older,
       (SELECT s FROM dblink('second', 'SELECT now()') AS t(s timestamptz)) AS newer;
SELECT is((SELECT app.bookings_watermark(f) FROM fx), date_trunc('second', older), 'the watermark is the older writer''s start (to the second)') FROM starts;
SELECT is(dblink_exec('writer', 'COMMIT'), 'COMMIT', 'the older writer commits');
SELECT is((SELECT app.bookings_watermark(f) FROM fx), date_trunc('second', newer), 'the watermark moves to the start of the writer still open') FROM starts;
SELECT is(dblink_exec('second', 'ROLLBACK'), 'ROLLBACK', 'the second writer rolls back');
SELECT is((SELECT app.bookings_watermark(f) FROM fx), now() + interval '1 hour', 'the watermark is released');
SELECT is(pg_temp.refs(NULL), ARRAY['LATE-1', 'OTHER-1', 'EARLY-1', 'OTHER-2', 'OLD-1'], 'the rolled-back NEW-1 never reaches the feed; every committed booking does');

-- A poll that wrote nothing learns there is no writer from the presence lock, not pg_locks --------------------------------
-- (A third session polls afresh each time, under the committed lag of 5 minutes.)

SELECT dblink_connect('poller', tests.own_database_conninfo());
-- The poller's (no writer of the operator open?, watermark = now() - 5 minutes?), in a fresh transaction.
CREATE FUNCTION pg_temp.poll()
RETURNS text
LANGUAGE sql
AS $$
    SELECT t.none || ' ' || t.lagged
      FROM fx, dblink('poller', format($q$SELECT app.booking_writers_none(%1$L), app.bookings_watermark(%1$L) = now() - interval '5 minutes'$q$, f))
               AS t(none boolean, lagged boolean);
$$;
SELECT is(pg_temp.poll(), 'true true', 'with no writer open a poll finds the presence lock free, and the watermark is now minus the lag');
SELECT is((SELECT reference FROM dblink('writer', 'BEGIN; ' || pg_temp.record_sql('PRESENT-1')) AS t(reference text)), 'PRESENT-1',
          'a writer begins, records PRESENT-1 and stays open');
SELECT is(pg_temp.poll(), 'false true',
          'a poll finds the presence lock held, so it reads pg_locks (the writer began within the lag: the lag holds the watermark)');
SELECT is(dblink_exec('writer', 'ROLLBACK'), 'ROLLBACK', 'the writer rolls back');
SELECT is(pg_temp.poll(), 'true true', 'the presence lock is free again');
SELECT is(dblink_exec('poller', 'BEGIN'), 'BEGIN', 'the poller begins a transaction');
SELECT is((SELECT x FROM dblink('poller', format($q$SELECT app.booking_writers_none(%L)::text || ' ' ||
                                                      (SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory')$q$, f))
                       AS t(x text)), 'true 0', 'after the try it holds no advisory lock: the exclusive presence lock was let go at once') FROM fx;
SELECT is((SELECT x FROM dblink('poller', format($q$SELECT pg_current_xact_id()::text <> '' AND app.booking_writers_none(%L)$q$, f))
                       AS t(x boolean)), true,
          'a transaction with an xid (a credential''s use stamped) still finds it free: it does not read pg_locks') FROM fx;
SELECT is((SELECT x FROM dblink('poller', format($q$SELECT app.booking_writer_lock(%L)::text$q$, f)) AS t(x text)), '',
          'the poller takes the operator''s writer lock, as a booking write does') FROM fx;
SELECT is((SELECT x FROM dblink('poller', format($q$SELECT app.booking_writers_none(%L)$q$, f)) AS t(x boolean)), true,
          'its own writer lock is not another writer: its own bookings are visible to it, stamped past the watermark') FROM fx;
SELECT is(dblink_exec('poller', 'ROLLBACK'), 'ROLLBACK', 'the poller rolls back');
SELECT dblink_disconnect('poller');

SELECT dblink_disconnect('writer');
SELECT dblink_disconnect('second');
SELECT tests.remove_committed_operators('pgTAP open writer operator');

SELECT * FROM finish();
ROLLBACK;
