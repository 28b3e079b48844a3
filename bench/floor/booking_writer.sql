-- The role the booking writes' floors run as (bench/floor/booking_*.sql): a login that owns nothing,
-- is no superuser and bypasses no row-level security, so its writes pass the same forced policies
-- as the platform's functions' writes, and every trigger runs as it. It holds only what those
-- statements and triggers need. Its operator is the session's app.operator_id, given in the
-- connection's options (the functions set it per call; the floor has no call to set it in).
-- Run by make bench (bench/driver) as the superuser on each bench database: the role is the cluster's, the
-- grants the database's.
\set ON_ERROR_STOP 1
SELECT NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'bench_booking_writer') AS missing \gset
\if :missing
CREATE ROLE bench_booking_writer LOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT NOCREATEDB NOCREATEROLE;
\endif
GRANT USAGE ON SCHEMA app, extensions TO bench_booking_writer;
GRANT SELECT ON app.lots, app.webhook_endpoints TO bench_booking_writer;
-- (the stamp trigger reads the watermark's lag, and counts a capped stamp, when two writes meet in
-- one microsecond)
GRANT SELECT ON app.settings TO bench_booking_writer;
GRANT USAGE ON SEQUENCE app.booking_stamps_capped TO bench_booking_writer;
GRANT SELECT, INSERT, UPDATE ON app.bookings TO bench_booking_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON app.lot_booking_days TO bench_booking_writer;   -- (UPDATE: FOR UPDATE)
GRANT SELECT, INSERT ON app.webhook_hints TO bench_booking_writer;
GRANT EXECUTE ON FUNCTION app.booking_writer_lock(uuid), app.booking_writer_key(uuid), app.booking_writer_presence(),
                          pg_catalog.pg_advisory_xact_lock_shared(integer, integer),
                          extensions.gen_random_bytes(integer) TO bench_booking_writer;
