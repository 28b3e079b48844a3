-- Whether a lot sells and what it still needs: review_state, timezone_confirmed, online_bookable,
-- selling, unmet. Any accepted member.
CREATE OR REPLACE FUNCTION console.lot_listing_status(p_external_id text)
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager', 'staff'], 'forbidden');
    RETURN app.lot_listing_status(v_caller.operator_id, p_external_id);
END
$$;
REVOKE ALL ON FUNCTION console.lot_listing_status(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.lot_listing_status(text) TO authenticated;
