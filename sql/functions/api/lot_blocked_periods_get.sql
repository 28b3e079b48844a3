-- GET /lots/{external_id}/blocked-periods: the lot's closures, earliest first, with
-- overlapping_bookings counts. read_supply. A lot that is not the caller's: the uniform 401.
CREATE OR REPLACE FUNCTION api.lot_blocked_periods_get(p_authorization text, p_external_id text, OUT status integer, OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
    v_lot app.lots;
BEGIN
    v_caller := app.authenticate(p_authorization, 'read_supply', true);
    v_lot := app.caller_lot(v_caller.operator_id, p_external_id);
    status := 200;
    body := jsonb_build_object('external_id', v_lot.external_id, 'blocked_periods', app.blocked_periods_read(v_lot));
END
$$;
REVOKE ALL ON FUNCTION api.lot_blocked_periods_get(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.lot_blocked_periods_get(text, text) TO ingest_gateway;
