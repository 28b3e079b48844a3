-- overlapping_bookings from counts per lot and day instead of the bookings themselves. A booking
-- (not cancelled) touches a closure [starts_on, ends_on] on the lot's calendar when it checks in on
-- or before ends_on and out on or after starts_on. It never checks out before it checks in, so every
-- booking that checks out before starts_on also checked in before ends_on, and
--     overlapping = check-ins on or before ends_on - check-outs before starts_on,
-- two running sums over the lot's days. Counting the bookings themselves read ~86 000 index entries
-- for 100 closures at a lot of 100 000 bookings (V10); the days are a few hundred rows.
--
-- The trigger that keeps the counts is created here with the table, and the table filled while
-- bookings are locked, so that no booking written between this migration and the function files
-- goes uncounted; sql/functions/app/bookings/booking_triggers.sql defines both again, as for every
-- function and trigger.
SET LOCAL ROLE ingest_owner;

-- Per lot and day of the lot's wall clock: the bookings not cancelled that check in that day and
-- those that check out that day, as the sum of the day's rows. A day has about one row: each
-- booking write adds its change to the day's rows that no open transaction holds, and replaces them
-- (app.booking_days_follow). Never a row updated in place or a unique key: a booking write never
-- waits for another one still open (sql/tests/21), whatever days they share.
CREATE TABLE app.lot_booking_days (
    operator_id uuid NOT NULL,
    lot_id      uuid NOT NULL,
    day         date NOT NULL,
    check_ins   integer NOT NULL,
    check_outs  integer NOT NULL
);
CREATE INDEX lot_booking_days_lot_idx ON app.lot_booking_days (operator_id, lot_id, day);

CREATE FUNCTION app.booking_days_follow()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- (Under a stricter isolation level a row deleted by a writer that committed since the snapshot
    -- would fail the booking's write: only the change is added, for a later writer to gather.)
    v_gather constant boolean := current_setting('transaction_isolation') = 'read committed';
BEGIN
    -- The change: the old row's days down, the new row's up (OLD is null on insert). It is added
    -- together with the rows already there for the same days that no open transaction holds, which
    -- are taken out: each day keeps about one row, and no booking write ever waits for another.
    WITH change AS (
        SELECT c.operator_id, c.lot_id, c.day, sum(c.check_ins)::integer AS check_ins, sum(c.check_outs)::integer AS check_outs
          FROM (VALUES (OLD.operator_id, OLD.lot_id, OLD.check_in_local::date, -1, 0, OLD.status),
                       (OLD.operator_id, OLD.lot_id, OLD.check_out_local::date, 0, -1, OLD.status),
                       (NEW.operator_id, NEW.lot_id, NEW.check_in_local::date, 1, 0, NEW.status),
                       (NEW.operator_id, NEW.lot_id, NEW.check_out_local::date, 0, 1, NEW.status))
               AS c (operator_id, lot_id, day, check_ins, check_outs, status)
         WHERE c.status <> 'cancelled'
         GROUP BY c.operator_id, c.lot_id, c.day),
    gathered AS (
        DELETE FROM app.lot_booking_days AS d
         WHERE d.ctid = ANY (ARRAY(
               SELECT k.ctid
                 FROM app.lot_booking_days AS k
                 JOIN change AS c ON c.operator_id = k.operator_id AND c.lot_id = k.lot_id AND c.day = k.day
                WHERE v_gather
                  FOR UPDATE OF k SKIP LOCKED))
        RETURNING d.operator_id, d.lot_id, d.day, d.check_ins, d.check_outs)
    INSERT INTO app.lot_booking_days (operator_id, lot_id, day, check_ins, check_outs)
    SELECT a.operator_id, a.lot_id, a.day, sum(a.check_ins), sum(a.check_outs)
      FROM (SELECT * FROM change UNION ALL SELECT * FROM gathered) AS a
     GROUP BY a.operator_id, a.lot_id, a.day
    HAVING sum(a.check_ins) <> 0 OR sum(a.check_outs) <> 0;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.booking_days_follow() FROM PUBLIC;

-- No booking is written (or read) from here to the commit: the policy's lift below needs this lock
-- anyway, and taking it first means never waiting for it while holding a weaker one.
LOCK TABLE app.bookings IN ACCESS EXCLUSIVE MODE;

CREATE TRIGGER count_days AFTER INSERT ON app.bookings
    FOR EACH ROW WHEN (NEW.status <> 'cancelled') EXECUTE FUNCTION app.booking_days_follow();
CREATE TRIGGER recount_days AFTER UPDATE ON app.bookings
    FOR EACH ROW WHEN ((OLD.status = 'cancelled') IS DISTINCT FROM (NEW.status = 'cancelled')
                       OR NEW.status <> 'cancelled'
                          AND (OLD.operator_id, OLD.lot_id, OLD.check_in_local::date, OLD.check_out_local::date)
                              IS DISTINCT FROM (NEW.operator_id, NEW.lot_id, NEW.check_in_local::date, NEW.check_out_local::date))
    EXECUTE FUNCTION app.booking_days_follow();

-- Every operator's bookings: the policy binds the owner only while forced. Lifted for one statement
-- of this transaction, under its lock: no one else ever sees it lifted.
ALTER TABLE app.bookings NO FORCE ROW LEVEL SECURITY;
INSERT INTO app.lot_booking_days (operator_id, lot_id, day, check_ins, check_outs)
SELECT e.operator_id, e.lot_id, e.day, sum(e.check_ins), sum(e.check_outs)
  FROM (SELECT b.operator_id, b.lot_id, b.check_in_local::date AS day, 1 AS check_ins, 0 AS check_outs
          FROM app.bookings AS b WHERE b.status <> 'cancelled'
        UNION ALL
        SELECT b.operator_id, b.lot_id, b.check_out_local::date, 0, 1
          FROM app.bookings AS b WHERE b.status <> 'cancelled') AS e
 GROUP BY e.operator_id, e.lot_id, e.day
 ORDER BY e.operator_id, e.lot_id, e.day;  -- a lot's days together: its read touches few pages
ALTER TABLE app.bookings FORCE ROW LEVEL SECURITY;

ALTER TABLE app.lot_booking_days ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.lot_booking_days FORCE ROW LEVEL SECURITY;
CREATE POLICY "booking day counts belong to the operator in context" ON app.lot_booking_days
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

-- V10's indexes served only the old count: each was one more entry to write per booking.
DROP INDEX app.bookings_lot_open_stay_idx;
DROP INDEX app.bookings_lot_longest_stay_idx;

RESET ROLE;
