-- The operator's recent hints, newest first (any member): booking_reference, occurred_at, state
-- (undelivered, delivered, dead; one in flight is undelivered), attempts, last_status (the HTTP
-- status of the last attempt, when it got one), last_failure (its reason), next_attempt_at (while
-- undelivered). p_limit 1-500, default 50; otherwise PT422 invalid_parameter p_limit.
CREATE OR REPLACE FUNCTION console.webhook_deliveries(p_limit integer DEFAULT 50)
RETURNS TABLE (
    booking_reference text,
    occurred_at       timestamptz,
    state             text,
    attempts          integer,
    last_status       integer,
    last_failure      text,
    next_attempt_at   timestamptz)
SECURITY DEFINER
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager', 'staff'], 'forbidden');
    IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 500 THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_limit');
    END IF;
    RETURN QUERY
    SELECT h.booking_reference::text, h.occurred_at, h.state, h.attempts, h.last_status, h.last_failure,
           h.next_attempt_at
      FROM app.webhook_hints AS h
     WHERE h.operator_id = v_caller.operator_id
     ORDER BY h.id DESC
     LIMIT p_limit;
END
$$;
REVOKE ALL ON FUNCTION console.webhook_deliveries(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.webhook_deliveries(integer) TO authenticated;
