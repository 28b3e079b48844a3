-- The console's closure edit: the same list, rules and answer as PUT /lots/{external_id}/blocked-periods
-- (without dry run). Owners and managers; an unknown lot is PT422 invalid_parameter.
CREATE OR REPLACE FUNCTION console.lot_blocked_periods_put(p_external_id text, p_blocked_periods jsonb)
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'forbidden');
    RETURN app.blocked_periods_replace(app.named_lot(v_caller.operator_id, p_external_id), p_blocked_periods);
END
$$;
REVOKE ALL ON FUNCTION console.lot_blocked_periods_put(text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.lot_blocked_periods_put(text, jsonb) TO authenticated;
