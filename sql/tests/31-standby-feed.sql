-- The bookings feed from a hot standby (docs/design.md, "The feed on a standby"): what the
-- primary publishes of its open booking writers (api.bookings_feed_publish), the watermark a standby
-- computes from the last publication it holds (app.bookings_watermark_published), the read
-- assertion the primary signs for a request's operator (api.bookings_read_assertion), and the page a
-- standby serves for it (api.bookings_get_standby). The functions are the same on either server;
-- here they run on the primary, and gateway/tests/integration/standby.rs runs them on a real
-- standby. Real concurrency through dblink, as in 21: the fixture (an operator of its own) and every
-- publication are committed, and put back at the end.
BEGIN;
SELECT plan(49);

CREATE EXTENSION dblink;  -- rolled back with the file

SELECT tests.remove_committed_operators('pgTAP standby operator');

-- The fixture, committed: an operator with a lot l1, a read_bookings and a write_supply credential.
CREATE TEMP TABLE fx AS
SELECT c.operator_id AS f, c.read_bearer AS bearer, c.write_bearer, c.lot_status
  FROM tests.committed_operator_with_lot('pgTAP standby operator') AS c;
GRANT SELECT ON fx TO PUBLIC;
SELECT is(lot_status, 201, 'the fixture: the operator''s lot l1, committed, and its read credential used') FROM fx;

-- A publication, made and committed in a session of its own (as the gateway makes them).
CREATE FUNCTION pg_temp.publish()
RETURNS timestamptz
LANGUAGE sql
AS $$
    SELECT tests.committed('SELECT api.bookings_feed_publish()::text')::timestamptz;
$$;

-- The publication in place, as the superuser reads it.
CREATE FUNCTION pg_temp.published()
RETURNS app.booking_writers_published
LANGUAGE sql
AS $$
    SELECT p FROM app.booking_writers_published AS p;
$$;

-- A read assertion of p_operator issued p_age ago (negative: ahead), signed with this database's key.
CREATE FUNCTION pg_temp.assertion_issued(p_operator uuid, p_age interval)
RETURNS text
LANGUAGE sql
AS $$
    SELECT app.signed_token('read_assertion_key', p.payload, '')
      FROM (SELECT format('1|read_bookings|%s|%s', p_operator,
                          (extract(epoch FROM clock_timestamp() - p_age) * 1000000)::bigint) AS payload) AS p;
$$;

-- The references of a page.
CREATE FUNCTION pg_temp.refs(p_body jsonb)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY(SELECT e ->> 'reference' FROM jsonb_array_elements(p_body -> 'bookings') AS e);
$$;

SELECT tests.set_bookings_watermark_lag('-1 hour');
SELECT is(tests.committed(format('SELECT tests.record_booking(%L, tests.booking_body(''l1'', ''{"reference": "EARLY-1"}''))', f)),
          'EARLY-1', 'the fixture: EARLY-1, committed') FROM fx;

-- Publications ------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE first AS SELECT pg_temp.publish() AS at;
SELECT cmp_ok(at, '>', now(), 'a publication is the moment the primary looked') FROM first;
SELECT is((pg_temp.published()).published_at, at, 'it is in place') FROM first;
SELECT is((pg_temp.published()).writers, '{}'::jsonb, 'no booking writer was open: none is published');
SELECT is(app.bookings_watermark_published(f), at, 'an operator''s watermark from it is the moment published (the lag here is -1 hour)')
  FROM fx, first;

SELECT dblink_connect('writer', tests.own_database_conninfo());
SELECT is((SELECT reference FROM dblink('writer', format('BEGIN; SELECT tests.record_booking(%L, tests.booking_body(''l1'', ''{"reference": "LATE-1"}''))', f))
                                AS t(reference text)), 'LATE-1', 'a writer begins, records LATE-1 and stays open') FROM fx;
CREATE TEMP TABLE writer_tx AS SELECT * FROM dblink('writer', 'SELECT now()') AS t(started timestamptz);
CREATE TEMP TABLE second AS SELECT pg_temp.publish() AS at;
SELECT is((pg_temp.published()).writers ->> app.booking_writer_lock_class(f)::text,
          floor(extract(epoch FROM started - timestamptz '2020-01-01 00:00:00+00'))::text,
          'a publication made while it is open lists the operator''s writer lock with the writer''s start (whole seconds)')
  FROM fx, writer_tx;
SELECT is(app.bookings_watermark_published(f), date_trunc('second', started),
          'the operator''s watermark is that start, earlier than the moment published') FROM fx, writer_tx;
SELECT is(app.bookings_watermark_published(gen_random_uuid()), at, 'another operator''s watermark is the moment published')
  FROM second;
SELECT is(tests.committed(format('SELECT tests.record_booking(%L, tests.booking_body(''l1'', ''{"reference": "OTHER-1"}''))', f)),
          'OTHER-1', 'meanwhile another session records OTHER-1 and commits') FROM fx;
SELECT is(dblink_exec('writer', 'COMMIT'), 'COMMIT', 'the writer commits');
SELECT is(app.bookings_watermark_published(f), date_trunc('second', started),
          'until the next publication the watermark stays at the writer''s start: a stale publication is only more cautious')
  FROM fx, writer_tx;
CREATE TEMP TABLE third AS SELECT pg_temp.publish() AS at;
SELECT is(app.bookings_watermark_published(f), at, 'the next publication releases it') FROM fx, third;
SELECT is((pg_temp.published()).writers, '{}'::jsonb, 'and lists no writer');
SELECT tests.set_bookings_watermark_lag('1 hour');
SELECT is(app.bookings_watermark_published(f), now() - interval '1 hour', 'the lag still bounds it: the earliest of the three') FROM fx;
SELECT tests.set_bookings_watermark_lag('-1 hour');

SELECT is(tests.committed($q$UPDATE app.booking_writers_published SET published_at = clock_timestamp() + interval '1 day' RETURNING 'ok'$q$),
          'ok', 'the fixture: a publication dated tomorrow in place (made before the clock stepped back)');
CREATE TEMP TABLE fourth AS SELECT pg_temp.publish() AS at;
SELECT is((pg_temp.published()).published_at, at,
          'a publication replaces it all the same: one dated in the future must not hide the writers opened since')
  FROM fourth;

-- Read assertions -----------------------------------------------------------------------------------------------------

SELECT is(tests.committed($q$UPDATE app.booking_writers_published SET published_at = clock_timestamp() RETURNING 'ok'$q$),
          'ok', 'the fixture: a publication of now in place');
CREATE TEMP TABLE token AS SELECT tests.read_assertion(bearer) AS assertion FROM fx;
GRANT SELECT ON token TO PUBLIC;
SELECT matches(assertion, '^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$', 'the primary answers a read assertion for a read_bookings credential')
  FROM token;
SELECT is(app.read_assertion_operator(assertion), f, 'it names the credential''s operator') FROM fx, token;
SELECT tests.refuses(format('SELECT tests.read_assertion(%L)', bearer || 'x'), 'PT401', 'unauthorized', NULL,
                     'a wrong secret gets no assertion: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.read_assertion(%L)', write_bearer), 'PT401', 'unauthorized', NULL,
                     'a credential without read_bookings gets none') FROM fx;
SELECT tests.refuses($$SELECT tests.read_assertion(NULL)$$, 'PT401', 'unauthorized', NULL, 'no credential gets none');

CREATE TEMP TABLE pages AS
SELECT (tests.get_bookings_standby(assertion, NULL, 500, 60000)).*, (tests.get_bookings(bearer, NULL, 500)).body AS primary_body
  FROM fx, token;
SELECT is(status, 200, 'the standby answers 200 for the assertion') FROM pages;
SELECT is(pg_temp.refs(body), ARRAY['EARLY-1', 'LATE-1', 'OTHER-1'], 'with the operator''s bookings in feed order') FROM pages;
SELECT is(body - 'next', primary_body - 'next', 'the same page as the primary''s') FROM pages;
SELECT is((tests.get_bookings(bearer, body ->> 'next', 500)).status, 200, 'its next is a cursor the primary takes too')
  FROM fx, pages;
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, ''junk'', 500, 60000)', assertion), 'PT422', 'invalid_cursor', 'since',
                     'a since that is not a token of ours is invalid_cursor, as on the primary') FROM token;

SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)', assertion || 'x'), '28000',
                     'not a read assertion of this database', NULL, 'a token changed by one character is no assertion (28000)')
  FROM token;
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)', (SELECT cursor FROM (
                         SELECT (tests.get_bookings(bearer, NULL, 1)).body ->> 'next' AS cursor FROM fx) AS c)), '28000',
                     'not a read assertion of this database', NULL, 'a cursor is no assertion');
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)',
                            app.signed_token('cursor_key', p.payload, '')),
                     '28000', 'not a read assertion of this database', NULL,
                     'an assertion''s very payload signed with the cursor key is none')
  FROM (SELECT format('1|read_bookings|%s|%s', f, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint) AS payload FROM fx) AS p;
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)',
                            tests.base64url(convert_to(replace(tests.cursor_payload(assertion), f::text, gen_random_uuid()::text), 'UTF8'))
                            || '.' || split_part(assertion, '.', 2)),
                     '28000', 'not a read assertion of this database', NULL,
                     'another operator put in an assertion, its signature kept, is none') FROM fx, token;
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)', pg_temp.assertion_issued(f, interval '31 seconds')),
                     '28000', 'an expired read assertion', NULL, 'an assertion issued more than 30 seconds ago is refused') FROM fx;
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 60000)', pg_temp.assertion_issued(f, interval '-6 seconds')),
                     '28000', 'an expired read assertion', NULL, 'so is one issued more than 5 seconds ahead of this clock') FROM fx;
SELECT is((tests.get_bookings_standby(pg_temp.assertion_issued(f, interval '25 seconds'), NULL, 500, 60000)).status, 200,
          'one issued 25 seconds ago is taken') FROM fx;

-- Freshness ----------------------------------------------------------------------------------------------------------

SELECT is(tests.committed(format($q$UPDATE app.booking_writers_published SET published_at = %L::timestamptz - interval '10 seconds' RETURNING 'ok'$q$, now())),
          'ok', 'the fixture: the last publication 10 seconds older than this transaction''s now(), which the standby''s check reads');
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 5000)', assertion), '55000',
                     'the last publication of the booking writers is too old', NULL,
                     'older than the gateway''s bound (5 s): no page (55000), the gateway reads the primary') FROM token;
SELECT is((tests.get_bookings_standby(assertion, NULL, 500, 60000)).status, 200, 'within it (60 s): the page') FROM token;
SELECT is(tests.committed(format($q$UPDATE app.booking_writers_published SET published_at = %L::timestamptz + interval '6 seconds' RETURNING 'ok'$q$, now())),
          'ok', 'the fixture: the last publication dated 6 seconds ahead of this server''s clock (the primary''s clock stepped back)');
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 3600000)', assertion), '55000',
                     'the last publication of the booking writers is too old', NULL,
                     'more than the 5 seconds of clock skew ahead: stale whatever the bound, the gateway reads the primary') FROM token;
SELECT is(tests.committed(format($q$UPDATE app.booking_writers_published SET published_at = %L::timestamptz + interval '4 seconds' RETURNING 'ok'$q$, now())),
          'ok', 'the fixture: dated 4 seconds ahead');
SELECT is((tests.get_bookings_standby(assertion, NULL, 500, 5000)).status, 200, 'within the clock skew: the page') FROM token;
SELECT is(tests.committed($q$UPDATE app.booking_writers_published SET published_at = '-infinity', writers = '{}' RETURNING 'ok'$q$),
          'ok', 'never published (as after the migration)');
SELECT tests.refuses(format('SELECT tests.get_bookings_standby(%L, NULL, 500, 3600000)', assertion), '55000',
                     'the last publication of the booking writers is too old', NULL, 'no page whatever the bound') FROM token;

-- Revocation and privileges --------------------------------------------------------------------------------------------

SELECT is(tests.committed(format($q$UPDATE app.api_credentials SET revoked_at = now() WHERE key_id = %L RETURNING 'ok'$q$, tests.key_id(bearer))),
          'ok', 'the credential is revoked (committed)') FROM fx;
SELECT tests.refuses(format('SELECT tests.read_assertion(%L)', bearer), 'PT401', 'unauthorized', NULL,
                     'a revoked credential gets no assertion from the moment the revocation is seen on the primary') FROM fx;
SELECT tests.act_as_gateway();
SELECT throws_ok($$SELECT * FROM app.booking_writers_published$$, '42501', NULL, 'the gateway''s role cannot read the publication');
SELECT throws_ok($$SELECT app.read_assertion(gen_random_uuid())$$, '42501', NULL, 'nor make an assertion itself');
SELECT tests.act_as_superuser();

SELECT dblink_disconnect('writer');
SELECT tests.remove_committed_operators('pgTAP standby operator');

SELECT * FROM finish();
ROLLBACK;
