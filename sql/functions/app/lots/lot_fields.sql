-- The lot's fields, once, in the order of the spec's field table (the order fields are checked in,
-- and the order of `changed`). Each field's
--   name       as `changed` lists it, and as its column is named;
--   body_path  where the write body carries it (the cancellation keys sit in one object);
--   kind       how its value is read (app.lot_from_body), with min_value/max_value (a range, a
--              text's or a list's length), choices (the allowed strings) and default_value (for
--              absent or null) where the kind takes them;
--   required   whether absent or null is refused (`missing_field`);
--   rules_before  the rules between fields that run just before it is read, once every field they
--              read has been read (app.lot_rule_between_fields);
--   reviewed   whether a change to it voids a pending or approved listing review.
-- The body's keys, the reader, the diff, `changed` and the review voiding all come from here; the
-- read form's keys are checked against it (sql/tests/10-lot-write-and-diff.sql). PL/pgSQL rather than
-- SQL: its plan is kept for the session, where a SQL function's VALUES is planned again at every call
-- (30 µs against 180 µs, and a write reads the registry several times).
CREATE OR REPLACE FUNCTION app.lot_fields()
RETURNS TABLE (
    ordinal integer, name text, body_path text[], kind text, required boolean, min_value numeric,
    max_value numeric, choices text[], default_value jsonb, rules_before text[], reviewed boolean)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (1, 'name', '{name}'::text[], 'text', true, NULL::numeric, 200::numeric, NULL::text[], NULL::jsonb, NULL::text[], true),
        (2, 'timezone', '{timezone}', 'zone', true, NULL, NULL, NULL, NULL, NULL, true),
        (3, 'handover', '{handover}', 'choice', true, NULL, NULL, '{self,attended}', NULL, NULL, true),
        (4, 'online_bookable', '{online_bookable}', 'boolean', true, NULL, NULL, NULL, NULL, NULL, false),
        (5, 'capacity', '{capacity}', 'integer', false, 0, 1000000, NULL, NULL, NULL, true),
        (6, 'latitude', '{latitude}', 'coordinate', false, -90, 90, NULL, NULL, '{coordinates_paired}', true),
        (7, 'longitude', '{longitude}', 'coordinate', false, -180, 180, NULL, NULL, NULL, true),
        (8, 'city', '{city}', 'text', false, NULL, 120, NULL, NULL, NULL, true),
        (9, 'country_code', '{country_code}', 'country', false, NULL, NULL, NULL, NULL, NULL, true),
        (10, 'features', '{features}', 'choice_set', false, NULL, 32,
            '{indoor,security,cameras,gate_automation,plate_recognition,ev_charging,disabled_access,oversize_vehicle,valet}',
            '[]', NULL, true),
        (11, 'arrival', '{arrival}', 'arrival', false, NULL, NULL, NULL, NULL, NULL, true),
        (12, 'media', '{media}', 'media', false, NULL, NULL, NULL, NULL, NULL, true),
        (13, 'min_advance_days', '{min_advance_days}', 'integer', false, 0, 365, NULL, '0', NULL, true),
        (14, 'min_stay_days', '{min_stay_days}', 'integer', false, 1, 365, NULL, NULL, NULL, true),
        (15, 'max_stay_days', '{max_stay_days}', 'integer', false, 1, 365, NULL, NULL, NULL, true),
        (16, 'cancellation_free_until_hours_before_check_in', '{cancellation,free_until_hours_before_check_in}',
            'integer', false, 0, 8760, NULL, NULL, '{stay_bounds,cancellation_complete}', true),
        (17, 'cancellation_penalty_percent_after', '{cancellation,penalty_percent_after}', 'money', false, NULL, 100,
            NULL, NULL, NULL, true),
        (18, 'cancellation_no_show_forfeits_full', '{cancellation,no_show_forfeits_full}', 'boolean', false, NULL,
            NULL, NULL, NULL, NULL, true);
END
$$;
REVOKE ALL ON FUNCTION app.lot_fields() FROM PUBLIC;
