-- The Lot read form: exactly the spec's keys, all always present. Coordinates are decimal strings
-- without trailing zeros; the cancellation percentage a two-decimal string; features never null.
-- PL/pgSQL rather than SQL: a SQL function's body is parsed and planned again at every statement
-- that calls it (a large share of a one-lot GET); PL/pgSQL keeps its plan for the session.
CREATE OR REPLACE FUNCTION app.lot_read_form(p_lot app.lots)
RETURNS jsonb
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN jsonb_build_object(
        'external_id', p_lot.external_id,
        'name', p_lot.name,
        'timezone', p_lot.timezone,
        'handover', p_lot.handover,
        'online_bookable', p_lot.online_bookable,
        'capacity', p_lot.capacity,
        'latitude', trim_scale(p_lot.latitude)::text,
        'longitude', trim_scale(p_lot.longitude)::text,
        'city', p_lot.city,
        'country_code', p_lot.country_code,
        'features', to_jsonb(coalesce(p_lot.features, '{}')),
        'arrival', p_lot.arrival,
        'media', p_lot.media,
        'min_advance_days', p_lot.min_advance_days,
        'min_stay_days', p_lot.min_stay_days,
        'max_stay_days', p_lot.max_stay_days,
        'cancellation', CASE WHEN p_lot.cancellation_no_show_forfeits_full IS NOT NULL THEN jsonb_build_object(
            'free_until_hours_before_check_in', p_lot.cancellation_free_until_hours_before_check_in,
            'penalty_percent_after', to_char(p_lot.cancellation_penalty_percent_after, 'FM990.00'),
            'no_show_forfeits_full', p_lot.cancellation_no_show_forfeits_full) END);
END
$$;
REVOKE ALL ON FUNCTION app.lot_read_form(app.lots) FROM PUBLIC;
