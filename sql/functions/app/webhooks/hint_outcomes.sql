-- What happens to a hint: the retry schedule, and the deaths by disarming.

-- The wait before the next attempt after `p_failed` failed attempts (spec: Retry schedule), or NULL
-- when none follows: the fifth failure makes the hint dead.
CREATE OR REPLACE FUNCTION app.webhook_retry_after(p_failed integer)
RETURNS interval
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (ARRAY[interval '1 minute', interval '5 minutes', interval '30 minutes', interval '2 hours'])[p_failed];
$$;
REVOKE ALL ON FUNCTION app.webhook_retry_after(integer) FROM PUBLIC;

-- Waiting hints of disarmed endpoints die (with their reason), and so do in-flight ones whose lease
-- ran out: none of them is delivered later. For one operator (its console's disarm, in its context)
-- or, with NULL, for all (the worker's sweep, in the sweep context).
CREATE OR REPLACE FUNCTION app.webhook_hints_of_disarmed_endpoints_die(p_operator_id uuid)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    UPDATE app.webhook_hints AS h
       SET state = 'dead', last_failure = 'endpoint_disarmed', next_attempt_at = NULL,
           in_flight = false, lease_token = NULL, lease_until = NULL
      FROM app.webhook_endpoints AS e
     WHERE e.operator_id = h.operator_id AND e.id = h.endpoint_id AND e.disarmed_at IS NOT NULL
       AND (p_operator_id IS NULL OR h.operator_id = p_operator_id)
       AND h.state = 'undelivered'
       AND (NOT h.in_flight OR h.lease_until <= now());
$$;
REVOKE ALL ON FUNCTION app.webhook_hints_of_disarmed_endpoints_die(uuid) FROM PUBLIC;
