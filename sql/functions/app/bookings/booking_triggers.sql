-- Triggers that keep the booking rules whatever writes the rows.

-- Every insert and every update of a booking is stamped, so the bookings feed sees the change. The
-- writer lock comes first, then the clock: see app/bookings/bookings_feed.sql for why this order means no
-- booking is ever skipped.
--
-- The stamp is the clock, or just after the operator's latest stamp when that is later, but never
-- past the clock plus `bookings_watermark_lag`. Every cursor handed out points at or before a stamp
-- already written, and at or before its server's clock less the lag: so each change lands after
-- every cursor while the servers' clocks differ by less than twice the lag. After a failover, a
-- promoted node whose clock is behind the old primary's would otherwise stamp changes before
-- cursors already handed out, and they would be skipped (docs/design.md, "The bookings feed's
-- guarantee"). The latest stamp is one step down the feed's index. (Under REPEATABLE READ a writer
-- sees its snapshot's latest stamp, not one committed since: the platform writes bookings under
-- READ COMMITTED.)
--
-- Why the cap: a stamp far ahead (a clock stepped back, a node resumed with a wrong clock) would
-- otherwise carry every later change of the operator past the watermark until the clock caught up,
-- and a feed page full of them would stall the feed. A capped stamp lands before the stamp ahead in
-- the feed. Each is counted (app.booking_stamps_capped, the metric ingest_booking_stamps_capped)
-- and logged as a WARNING: either a stamp is ahead of the clock, or this server's clock is behind
-- the one that wrote it (docs/operating.md, troubleshooting). A lag set below zero caps at the clock.
CREATE OR REPLACE FUNCTION app.booking_stamp_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_clock timestamptz;
    v_after_latest timestamptz;
    v_cap timestamptz;
BEGIN
    PERFORM app.booking_writer_lock(NEW.operator_id);
    v_clock := clock_timestamp();
    v_after_latest := (SELECT b.changed_at + interval '1 microsecond'
                         FROM app.bookings AS b
                        WHERE b.operator_id = NEW.operator_id
                        ORDER BY b.changed_at DESC
                        LIMIT 1);
    IF v_after_latest > v_clock THEN
        v_cap := v_clock + greatest(interval '0',
                                    (SELECT s.value::interval FROM app.settings AS s WHERE s.name = 'bookings_watermark_lag'));
        IF v_after_latest > v_cap THEN
            PERFORM nextval('app.booking_stamps_capped');
            RAISE WARNING 'booking stamp capped: operator %''s latest stamp is % ahead of the clock',
                NEW.operator_id, v_after_latest - v_clock
                USING HINT = 'a clock stepped back, or this server''s clock is behind the one that wrote it';
            v_after_latest := v_cap;
        END IF;
        NEW.changed_at := v_after_latest;
    ELSE
        NEW.changed_at := v_clock;
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION app.booking_stamp_change() FROM PUBLIC;
CREATE OR REPLACE TRIGGER stamp_change BEFORE INSERT OR UPDATE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.booking_stamp_change();

-- The closures' overlapping_bookings are read from app.lot_booking_days (migration V12): per lot
-- and day of its wall clock, the bookings not cancelled that check in and that check out that day.
-- Only an insert, a cancellation or its undoing, or a change of lot or of a check-in or check-out
-- day moves them (the triggers' WHEN): one or two days of the old lot and of the new.
CREATE OR REPLACE FUNCTION app.booking_days_follow()
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
CREATE OR REPLACE TRIGGER count_days AFTER INSERT ON app.bookings
    FOR EACH ROW WHEN (NEW.status <> 'cancelled') EXECUTE FUNCTION app.booking_days_follow();
CREATE OR REPLACE TRIGGER recount_days AFTER UPDATE ON app.bookings
    FOR EACH ROW WHEN ((OLD.status = 'cancelled') IS DISTINCT FROM (NEW.status = 'cancelled')
                       OR NEW.status <> 'cancelled'
                          AND (OLD.operator_id, OLD.lot_id, OLD.check_in_local::date, OLD.check_out_local::date)
                              IS DISTINCT FROM (NEW.operator_id, NEW.lot_id, NEW.check_in_local::date, NEW.check_out_local::date))
    EXECUTE FUNCTION app.booking_days_follow();

-- Whether a lot has ever taken a booking: one of the operator's bookings is, or was, on it. Read
-- at delete time, never kept as a flag on the lot (a flag written by every first booking would make
-- two transactions recording the first bookings of two lots in crossing order deadlock).
CREATE OR REPLACE FUNCTION app.lot_has_taken_booking(p_lot app.lots)
RETURNS boolean
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (
        SELECT
          FROM app.bookings AS b
         WHERE b.operator_id = p_lot.operator_id
           AND (b.lot_id = p_lot.id OR p_lot.id = ANY (b.previous_lot_ids)));
$$;
REVOKE ALL ON FUNCTION app.lot_has_taken_booking(app.lots) FROM PUBLIC;

-- Bookings are never deleted, and a lot that has ever taken one is never deleted: by anyone. (One
-- function per table, so that each trigger function has one row type for NEW and OLD.)
CREATE OR REPLACE FUNCTION app.refuse_booking_delete()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.refuse(409, 'has_bookings');
    RETURN OLD;
END
$$;
REVOKE ALL ON FUNCTION app.refuse_booking_delete() FROM PUBLIC;
CREATE OR REPLACE TRIGGER keep_history BEFORE DELETE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.refuse_booking_delete();
CREATE OR REPLACE TRIGGER keep_history_truncate BEFORE TRUNCATE ON app.bookings
    FOR EACH STATEMENT EXECUTE FUNCTION app.refuse_booking_delete();

-- A lot row is deleted only if it never took a booking; TRUNCATE, which cannot ask, is refused.
CREATE OR REPLACE FUNCTION app.refuse_taken_lot_delete()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' OR app.lot_has_taken_booking(OLD) THEN
        PERFORM app.refuse(409, 'has_bookings');
    END IF;
    RETURN OLD;
END
$$;
REVOKE ALL ON FUNCTION app.refuse_taken_lot_delete() FROM PUBLIC;
CREATE OR REPLACE TRIGGER keep_history BEFORE DELETE ON app.lots
    FOR EACH ROW EXECUTE FUNCTION app.refuse_taken_lot_delete();
CREATE OR REPLACE TRIGGER keep_history_truncate BEFORE TRUNCATE ON app.lots
    FOR EACH STATEMENT EXECUTE FUNCTION app.refuse_taken_lot_delete();
