-- The delivery worker's claim (role webhook_worker). First the sweep: hints of disarmed endpoints
-- die. Then up to p_limit due hints are claimed under a lease of p_lease_seconds: waiting ones whose
-- next attempt is due, and in-flight ones whose worker's lease ran out (it died). FOR UPDATE SKIP
-- LOCKED, and the due condition re-checked on the locked row, so two workers never claim the same
-- attempt. No operator gets more than p_per_operator hints in flight at once, so a slow or dead
-- endpoint holds at most that many of the worker's slots and never delays another operator's hints.
--
-- Answers, per claimed hint, what one attempt needs: where to send it, the secret to sign it with,
-- the exact body (the same bytes on every retry), the attempt's number, the booking reference (for
-- the worker's log line), and the lease token that webhook.record_attempt must present.
CREATE OR REPLACE FUNCTION webhook.claim_due_hints(p_limit integer, p_per_operator integer, p_lease_seconds integer)
RETURNS TABLE (
    operator_id uuid,
    hint_id     bigint,
    lease_token uuid,
    attempt     integer,
    url         text,
    host        text,
    secret      text,
    body        text,
    booking_reference text)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 1000
       OR p_per_operator IS NULL OR p_per_operator NOT BETWEEN 1 AND 1000
       OR p_lease_seconds IS NULL OR p_lease_seconds NOT BETWEEN 1 AND 3600 THEN
        PERFORM app.refuse(422, 'invalid_parameter');
    END IF;
    PERFORM app.enter_webhook_sweep();
    PERFORM app.webhook_hints_of_disarmed_endpoints_die(NULL);

    RETURN QUERY
    WITH busy AS (
        SELECT b.operator_id, count(*) AS n
          FROM app.webhook_hints AS b
         WHERE b.state = 'undelivered' AND b.in_flight AND b.lease_until > now()
         GROUP BY b.operator_id),
    due AS (
        SELECT h.operator_id, h.id,
               row_number() OVER (PARTITION BY h.operator_id ORDER BY h.next_attempt_at, h.id) AS place
          FROM app.webhook_hints AS h
          JOIN app.webhook_endpoints AS e
            ON e.operator_id = h.operator_id AND e.id = h.endpoint_id AND e.disarmed_at IS NULL
         WHERE h.state = 'undelivered'
           AND ((NOT h.in_flight AND h.next_attempt_at <= now()) OR (h.in_flight AND h.lease_until <= now()))),
    picked AS (
        SELECT d.operator_id, d.id
          FROM due AS d
          LEFT JOIN busy AS b ON b.operator_id = d.operator_id
         WHERE d.place + coalesce(b.n, 0) <= p_per_operator
         ORDER BY d.place, d.id
         LIMIT p_limit),
    locked AS (
        SELECT h.operator_id, h.id
          FROM app.webhook_hints AS h
          JOIN picked AS p ON p.operator_id = h.operator_id AND p.id = h.id
           FOR UPDATE OF h SKIP LOCKED),
    claimed AS (
        UPDATE app.webhook_hints AS h
           SET in_flight = true, lease_token = gen_random_uuid(),
               lease_until = now() + make_interval(secs => p_lease_seconds)
          FROM locked AS l
         WHERE h.operator_id = l.operator_id AND h.id = l.id
           AND h.state = 'undelivered'
           AND ((NOT h.in_flight AND h.next_attempt_at <= now()) OR (h.in_flight AND h.lease_until <= now()))
        RETURNING h.*)
    SELECT c.operator_id, c.id, c.lease_token, c.attempts + 1, e.url, e.host, e.secret,
           format('{"event":"booking.changed","booking_reference":%s,"occurred_at":%s}',
                  to_json(c.booking_reference::text), to_json(app.utc_text(c.occurred_at))),
           c.booking_reference::text
      FROM claimed AS c
      JOIN app.webhook_endpoints AS e ON e.operator_id = c.operator_id AND e.id = c.endpoint_id;

    PERFORM app.leave_webhook_sweep();
END
$$;
REVOKE ALL ON FUNCTION webhook.claim_due_hints(integer, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.claim_due_hints(integer, integer, integer) TO webhook_worker;
