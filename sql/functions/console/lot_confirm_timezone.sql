-- A person confirms the lot's current time zone (a zone change withdraws it). Owners and managers.
-- Answers the lot's listing status.
CREATE OR REPLACE FUNCTION console.lot_confirm_timezone(p_external_id text)
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'forbidden');
    UPDATE app.lots AS l
       SET timezone_confirmed = true, updated_at = now()
     WHERE l.operator_id = v_caller.operator_id AND l.external_id = p_external_id AND NOT l.timezone_confirmed;
    RETURN app.lot_listing_status(v_caller.operator_id, p_external_id);
END
$$;
REVOKE ALL ON FUNCTION console.lot_confirm_timezone(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.lot_confirm_timezone(text) TO authenticated;
