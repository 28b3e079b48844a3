-- A booking created or changed in any way, while its operator has an armed endpoint, leaves one
-- waiting hint for that booking: a change while one already waits merges into it (keeping its first
-- occurred_at); a change while the booking's hint is in flight leaves a new waiting hint behind it.
-- Runs after the stamp trigger, so occurred_at is the change's own stamp (changed_at).
CREATE OR REPLACE FUNCTION app.booking_leave_hint()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO app.webhook_hints (operator_id, endpoint_id, booking_reference, occurred_at, next_attempt_at)
    SELECT e.operator_id, e.id, NEW.reference, NEW.changed_at, now()
      FROM app.webhook_endpoints AS e
     WHERE e.operator_id = NEW.operator_id AND e.disarmed_at IS NULL
        ON CONFLICT (operator_id, endpoint_id, booking_reference) WHERE state = 'undelivered' AND NOT in_flight
        DO NOTHING;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.booking_leave_hint() FROM PUBLIC;
CREATE OR REPLACE TRIGGER leave_hint AFTER INSERT OR UPDATE ON app.bookings
    FOR EACH ROW EXECUTE FUNCTION app.booking_leave_hint();
