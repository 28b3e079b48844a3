-- Disarm the operator's armed webhook endpoint (owner or manager): no hint is made for it from now
-- on, and its undelivered hints are dead (the worker's sweep also kills any it finds); none is
-- delivered later. Answers the disarmed endpoint, or nothing when none was armed.
CREATE OR REPLACE FUNCTION console.webhook_endpoint_disarm()
RETURNS TABLE (id uuid, url text, created_at timestamptz, disarmed_at timestamptz)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
    v_endpoint app.webhook_endpoints;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'forbidden');
    UPDATE app.webhook_endpoints AS e
       SET disarmed_at = now(), disarmed_by = v_caller.user_id
     WHERE e.operator_id = v_caller.operator_id AND e.disarmed_at IS NULL
    RETURNING e.* INTO v_endpoint;
    IF v_endpoint.id IS NULL THEN
        RETURN;
    END IF;
    PERFORM app.webhook_hints_of_disarmed_endpoints_die(v_caller.operator_id);
    RETURN QUERY SELECT v_endpoint.id, v_endpoint.url, v_endpoint.created_at, v_endpoint.disarmed_at;
END
$$;
REVOKE ALL ON FUNCTION console.webhook_endpoint_disarm() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.webhook_endpoint_disarm() TO authenticated;
