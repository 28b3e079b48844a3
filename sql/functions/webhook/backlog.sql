-- The hints' backlog across operators, for the worker's metrics (role webhook_worker): undelivered
-- hints waiting for an attempt and in flight under one, the age in seconds of the oldest undelivered
-- one (since the change it hints at; 0 when none), and the hints that died after failed attempts in
-- the last day (not those of disarmed endpoints). Counts only; no operator, reference or URL.
--
-- Cheap whatever the size of the table: the first read visits the undelivered hints alone, through
-- the partial index of the worker's claim (webhook_hints_due), the second the hints dead after
-- attempts in the last day, through their partial index (webhook_hints_dead_by_last_attempt);
-- delivered hints, the bulk of the table, are never visited.
CREATE OR REPLACE FUNCTION webhook.backlog(
    OUT waiting bigint,
    OUT in_flight bigint,
    OUT oldest_undelivered_seconds double precision,
    OUT dead_last_day bigint)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.enter_webhook_sweep();
    SELECT count(*) FILTER (WHERE NOT h.in_flight), count(*) FILTER (WHERE h.in_flight),
           coalesce(extract(epoch FROM now() - min(h.occurred_at))::double precision, 0)
      INTO waiting, in_flight, oldest_undelivered_seconds
      FROM app.webhook_hints AS h
     WHERE h.state = 'undelivered';
    SELECT count(*)
      INTO dead_last_day
      FROM app.webhook_hints AS h
     WHERE h.state = 'dead' AND h.last_failure <> 'endpoint_disarmed'
       AND h.last_attempt_at > now() - interval '1 day';
    PERFORM app.leave_webhook_sweep();
END
$$;
REVOKE ALL ON FUNCTION webhook.backlog() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.backlog() TO webhook_worker;
