-- The listing status of an operator's lot, as the console shows it.
CREATE OR REPLACE FUNCTION platform.lot_listing_status(p_operator_id uuid, p_external_id text)
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.set_operator_context(p_operator_id);
    RETURN app.lot_listing_status(p_operator_id, p_external_id);
END
$$;
REVOKE ALL ON FUNCTION platform.lot_listing_status(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.lot_listing_status(uuid, text) TO platform_service;
