-- The payment provider's report on whether the operator's account can be paid out. No lot of the
-- account lists until it can.
CREATE OR REPLACE FUNCTION platform.payouts_set(p_operator_id uuid, p_can_pay_out boolean)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_can_pay_out IS NULL THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_can_pay_out');
    END IF;
    PERFORM app.set_operator_context(p_operator_id);
    UPDATE app.operators AS o SET can_pay_out = p_can_pay_out WHERE o.id = p_operator_id;
    IF NOT FOUND THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_operator_id');
    END IF;
END
$$;
REVOKE ALL ON FUNCTION platform.payouts_set(uuid, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.payouts_set(uuid, boolean) TO platform_service;
