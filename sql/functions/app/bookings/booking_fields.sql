-- A booking's fields as the feed (GET /bookings) answers them, once, in the order of the spec's
-- Booking table. Each field's
--   name         as the feed names it;
--   kind         `text`, `integer`, `choice` (one of choices), `currency` (ISO 4217), `money` (a
--                decimal string of two decimals), `local_date_time` (YYYY-MM-DDTHH:MM:SS, the lot's
--                wall clock), `date_time` (UTC, fractional seconds), `customer` (the object of the
--                four customer keys), `text_list`;
--   nullable     whether the feed may answer null;
--   choices      the values a `choice` takes (the platform's writes are refused any other:
--                app.booking_from_json);
--   description  what a client must know of it, as the published OpenAPI document says it.
-- The feed's keys are checked against it (sql/tests/18-bookings-storage.sql). The OpenAPI document's
-- Booking schema is read off this function's text (gateway/src/registry.rs; keep its rows plain
-- literals), and a test compares them with what PostgreSQL returns.
CREATE OR REPLACE FUNCTION app.booking_fields()
RETURNS TABLE (ordinal integer, name text, kind text, nullable boolean, choices text[], description text)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (1, 'reference', 'text', false, NULL::text[],
            'The platform''s booking reference: the de-duplication key.'),
        (2, 'external_reference', 'text', true, NULL,
            'Your own reference, echoed when one was set, never a key; null when none.'),
        (3, 'lot_external_id', 'text', false, NULL, 'Your id of the lot.'),
        (4, 'lot_name', 'text', false, NULL, 'The lot''s name.'),
        (5, 'timezone', 'text', false, NULL, 'The lot''s IANA zone, in which the local times are read.'),
        (6, 'check_in_local', 'local_date_time', false, NULL,
            'Check-in on the lot''s wall clock, YYYY-MM-DDTHH:MM:SS with no zone offset: read it in `timezone`.'),
        (7, 'check_out_local', 'local_date_time', false, NULL, 'Check-out on the lot''s wall clock, same form.'),
        (8, 'parking_days', 'integer', false, NULL, 'Days of parking charged.'),
        (9, 'status', 'choice', false, '{pending,confirmed,checked_in,completed,cancelled}',
            'The booking''s status.'),
        (10, 'payment_status', 'choice', false, '{pending,paid,partial,refunded,expired,not_required}',
            'The payment''s status.'),
        (11, 'currency', 'currency', false, NULL, 'ISO 4217 code of total.'),
        (12, 'total', 'money', false, NULL, 'The booking''s total, a decimal string of two decimals, never a float.'),
        (13, 'channel', 'text', false, NULL,
            'The channel the booking came through (any channel, not only the marketplace); treat it as an open string.'),
        (14, 'flight_number', 'text', true, NULL, 'The traveller''s flight number; null when unknown.'),
        (15, 'customer', 'customer', false, NULL,
            'The traveller: first_name, last_name, email and phone, each a string or null when unknown.'),
        (16, 'vehicle_plates', 'text_list', false, NULL, 'The vehicles'' plates; empty when none.'),
        (17, 'created_at', 'date_time', false, NULL, 'When the booking was recorded (UTC, fractional seconds).'),
        (18, 'cancelled_at', 'date_time', true, NULL, 'When it was cancelled (UTC); null when not cancelled.');
END
$$;
REVOKE ALL ON FUNCTION app.booking_fields() FROM PUBLIC;

-- The choices of one of app.booking_fields' `choice` fields. IMMUTABLE like the registry, so a call
-- with a constant name is folded into a constant when the calling statement is planned: PL/pgSQL
-- keeps that plan for the session, and a booking write reads no registry (a query on every write
-- was a sizeable share of app.booking_from_json).
CREATE OR REPLACE FUNCTION app.booking_field_choices(p_name text)
RETURNS text[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT f.choices FROM app.booking_fields() AS f WHERE f.name = p_name);
END
$$;
REVOKE ALL ON FUNCTION app.booking_field_choices(text) FROM PUBLIC;
