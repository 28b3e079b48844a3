-- The lot's fields, once: each field's name (as `changed` lists it, and as its column is named), the
-- body key that carries it, and whether a change to it is reviewed (voids a pending or approved
-- listing review). In the order of the spec's field table, which is the order of `changed`. The body
-- reader takes its keys from here, the diff its fields and order, the review voiding its reviewed
-- set; the read form's keys are checked against it (sql/tests/10-lot-write-and-diff.sql).
CREATE OR REPLACE FUNCTION app.lot_fields()
RETURNS TABLE (ordinal integer, name text, body_key text, reviewed boolean)
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    VALUES
        (1, 'name', 'name', true),
        (2, 'timezone', 'timezone', true),
        (3, 'handover', 'handover', true),
        (4, 'online_bookable', 'online_bookable', false),
        (5, 'capacity', 'capacity', true),
        (6, 'latitude', 'latitude', true),
        (7, 'longitude', 'longitude', true),
        (8, 'city', 'city', true),
        (9, 'country_code', 'country_code', true),
        (10, 'features', 'features', true),
        (11, 'arrival', 'arrival', true),
        (12, 'media', 'media', true),
        (13, 'min_advance_days', 'min_advance_days', true),
        (14, 'min_stay_days', 'min_stay_days', true),
        (15, 'max_stay_days', 'max_stay_days', true),
        (16, 'cancellation_free_until_hours_before_check_in', 'cancellation', true),
        (17, 'cancellation_penalty_percent_after', 'cancellation', true),
        (18, 'cancellation_no_show_forfeits_full', 'cancellation', true);
$$;
REVOKE ALL ON FUNCTION app.lot_fields() FROM PUBLIC;
