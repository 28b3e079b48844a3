-- Triggers that keep the booking rules whatever writes the rows.

-- Every insert and every update of a booking is stamped, so the bookings feed sees the change. The
-- writer lock comes first, then the clock: see app/bookings/bookings_feed.sql for why this order means no
-- booking is ever skipped.
CREATE OR REPLACE FUNCTION app.booking_stamp_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.booking_writer_lock(NEW.operator_id);
    NEW.changed_at := clock_timestamp();
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION app.booking_stamp_change() FROM PUBLIC;
CREATE OR REPLACE TRIGGER stamp_change BEFORE INSERT OR UPDATE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.booking_stamp_change();

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
