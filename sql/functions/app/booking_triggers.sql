-- Triggers that keep the booking rules whatever writes the rows.

-- Every insert and every update of a booking is stamped, so the bookings feed sees the change. The
-- writer lock comes first, then the clock: see app/bookings_feed.sql for why this order means no
-- booking is ever skipped.
CREATE OR REPLACE FUNCTION app.booking_stamp_change()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    PERFORM app.booking_writer_lock();
    NEW.changed_at := clock_timestamp();
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION app.booking_stamp_change() FROM PUBLIC;
CREATE OR REPLACE TRIGGER stamp_change BEFORE INSERT OR UPDATE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.booking_stamp_change();

-- A lot that takes a booking is marked for good: it can never be deleted.
CREATE OR REPLACE FUNCTION app.booking_marks_lot()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    UPDATE app.lots AS l SET has_taken_booking = true
     WHERE l.operator_id = NEW.operator_id AND l.id = NEW.lot_id AND NOT l.has_taken_booking;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.booking_marks_lot() FROM PUBLIC;
CREATE OR REPLACE TRIGGER marks_lot AFTER INSERT OR UPDATE OF lot_id ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.booking_marks_lot();

-- ... and the mark is never taken off.
CREATE OR REPLACE FUNCTION app.keep_lot_booking_mark()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    PERFORM app.refuse(409, 'has_bookings');
    RETURN NULL;  -- not reached
END
$$;
REVOKE ALL ON FUNCTION app.keep_lot_booking_mark() FROM PUBLIC;
CREATE OR REPLACE TRIGGER keep_booking_mark BEFORE UPDATE OF has_taken_booking ON app.lots
    FOR EACH ROW WHEN (OLD.has_taken_booking AND NOT NEW.has_taken_booking)
    EXECUTE FUNCTION app.keep_lot_booking_mark();

-- Bookings are never deleted, and a lot that has ever taken one is never deleted: by anyone.
CREATE OR REPLACE FUNCTION app.refuse_booking_history_delete()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = ''
AS $$
BEGIN
    IF TG_TABLE_NAME = 'bookings' OR TG_OP = 'TRUNCATE' THEN
        PERFORM app.refuse(409, 'has_bookings');
    ELSIF OLD.has_taken_booking THEN
        PERFORM app.refuse(409, 'has_bookings');
    END IF;
    RETURN OLD;
END
$$;
REVOKE ALL ON FUNCTION app.refuse_booking_history_delete() FROM PUBLIC;
CREATE OR REPLACE TRIGGER keep_history BEFORE DELETE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.refuse_booking_history_delete();
CREATE OR REPLACE TRIGGER keep_history_truncate BEFORE TRUNCATE ON app.bookings
    FOR EACH STATEMENT EXECUTE FUNCTION app.refuse_booking_history_delete();
CREATE OR REPLACE TRIGGER keep_history BEFORE DELETE ON app.lots
    FOR EACH ROW EXECUTE FUNCTION app.refuse_booking_history_delete();
CREATE OR REPLACE TRIGGER keep_history_truncate BEFORE TRUNCATE ON app.lots
    FOR EACH STATEMENT EXECUTE FUNCTION app.refuse_booking_history_delete();
