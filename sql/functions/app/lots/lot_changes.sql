-- The names of the fields that differ between the stored lot and the one written, in the order of
-- the spec's field table, the cancellation keys under their reviewed-list names. A new lot (p_old
-- NULL) differs in every field. Values are compared as stored (normalised), so features in another
-- order, or coordinates that round to the stored value, are no change.
CREATE OR REPLACE FUNCTION app.lot_changes(p_old app.lots, p_new app.lots)
RETURNS text[]
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY(
        SELECT f.name
          FROM (VALUES
                (1, 'name', p_old.name IS DISTINCT FROM p_new.name),
                (2, 'timezone', p_old.timezone IS DISTINCT FROM p_new.timezone),
                (3, 'handover', p_old.handover IS DISTINCT FROM p_new.handover),
                (4, 'online_bookable', p_old.online_bookable IS DISTINCT FROM p_new.online_bookable),
                (5, 'capacity', p_old.capacity IS DISTINCT FROM p_new.capacity),
                (6, 'latitude', p_old.latitude IS DISTINCT FROM p_new.latitude),
                (7, 'longitude', p_old.longitude IS DISTINCT FROM p_new.longitude),
                (8, 'city', p_old.city IS DISTINCT FROM p_new.city),
                (9, 'country_code', p_old.country_code IS DISTINCT FROM p_new.country_code),
                (10, 'features', p_old.features IS DISTINCT FROM p_new.features),
                (11, 'arrival', p_old.arrival IS DISTINCT FROM p_new.arrival),
                (12, 'media', p_old.media IS DISTINCT FROM p_new.media),
                (13, 'min_advance_days', p_old.min_advance_days IS DISTINCT FROM p_new.min_advance_days),
                (14, 'min_stay_days', p_old.min_stay_days IS DISTINCT FROM p_new.min_stay_days),
                (15, 'max_stay_days', p_old.max_stay_days IS DISTINCT FROM p_new.max_stay_days),
                (16, 'cancellation_free_until_hours_before_check_in',
                     p_old.cancellation_free_until_hours_before_check_in
                         IS DISTINCT FROM p_new.cancellation_free_until_hours_before_check_in),
                (17, 'cancellation_penalty_percent_after',
                     p_old.cancellation_penalty_percent_after IS DISTINCT FROM p_new.cancellation_penalty_percent_after),
                (18, 'cancellation_no_show_forfeits_full',
                     p_old.cancellation_no_show_forfeits_full IS DISTINCT FROM p_new.cancellation_no_show_forfeits_full)
               ) AS f(ordinal, name, differs)
         WHERE f.differs OR p_old.id IS NULL
         ORDER BY f.ordinal);
$$;
REVOKE ALL ON FUNCTION app.lot_changes(app.lots, app.lots) FROM PUBLIC;
