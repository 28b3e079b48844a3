-- Activate or suspend an operator account. A suspended account's credentials answer 401 and its
-- console members are refused.
CREATE OR REPLACE FUNCTION platform.operator_set_status(p_operator_id uuid, p_status text)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_status IS NULL OR p_status NOT IN ('active', 'suspended') THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_status');
    END IF;
    PERFORM app.set_operator_context(p_operator_id);
    UPDATE app.operators AS o SET status = p_status WHERE o.id = p_operator_id;
    IF NOT FOUND THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_operator_id');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION platform.operator_set_status(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.operator_set_status(uuid, text) TO platform_service;
