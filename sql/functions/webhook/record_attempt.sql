-- The outcome of one attempt, from the worker that holds the hint's lease (role webhook_worker).
-- p_status: the HTTP status the endpoint answered, if it answered; p_failure: why no answer counted
-- when there was none to judge (timeout, connection_refused, connection_failed, tls_failed,
-- dns_failed, unresolvable, private_address). The rule is here: an answer in 2xx is delivered, a
-- 3xx is `redirect` (never followed), any other `http_status`. A failure schedules the next attempt
-- (1 min, 5 min, 30 min, 2 h after this one) or, the fifth time or once the endpoint is disarmed,
-- makes the hint dead. A hint going back to wait takes in a successor left by a change during the
-- attempt (merged: the first occurred_at stays).
--
-- Answers the hint's new state (`delivered`, `undelivered`, `dead`), or `lease_lost` when the lease
-- token is not the hint's current one (it ran out and another worker took over): nothing changes.
CREATE OR REPLACE FUNCTION webhook.record_attempt(
    p_operator_id uuid,
    p_hint_id bigint,
    p_lease_token uuid,
    p_status integer,
    p_failure text)
RETURNS text
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_hint app.webhook_hints;
    v_disarmed boolean;
    v_failure text := p_failure;
    v_state text;
BEGIN
    IF p_status IS NOT NULL AND p_status NOT BETWEEN 100 AND 599 THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_status');
    END IF;
    IF (p_status IS NULL) = (p_failure IS NULL)
       OR p_failure NOT IN ('timeout', 'connection_refused', 'connection_failed', 'tls_failed', 'dns_failed',
                            'unresolvable', 'private_address') THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_failure');
    END IF;
    PERFORM app.enter_webhook_sweep();

    SELECT * INTO v_hint FROM app.webhook_hints AS h
     WHERE h.operator_id = p_operator_id AND h.id = p_hint_id AND h.in_flight AND h.lease_token = p_lease_token
       FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM app.leave_webhook_sweep();
        RETURN 'lease_lost';
    END IF;
    SELECT e.disarmed_at IS NOT NULL INTO v_disarmed FROM app.webhook_endpoints AS e
     WHERE e.operator_id = v_hint.operator_id AND e.id = v_hint.endpoint_id;

    IF p_status BETWEEN 200 AND 299 THEN
        v_state := 'delivered';
    ELSE
        v_failure := coalesce(v_failure, CASE WHEN p_status BETWEEN 300 AND 399 THEN 'redirect' ELSE 'http_status' END);
        v_state := CASE WHEN v_hint.attempts + 1 >= 5 OR v_disarmed THEN 'dead' ELSE 'undelivered' END;
    END IF;

    LOOP
        BEGIN
            IF v_state = 'undelivered' THEN
                DELETE FROM app.webhook_hints AS s
                 WHERE s.operator_id = v_hint.operator_id AND s.endpoint_id = v_hint.endpoint_id
                   AND s.booking_reference = v_hint.booking_reference
                   AND s.state = 'undelivered' AND NOT s.in_flight AND s.id <> v_hint.id;
            END IF;
            UPDATE app.webhook_hints AS h
               SET state = v_state,
                   in_flight = false, lease_token = NULL, lease_until = NULL,
                   attempts = v_hint.attempts + 1,
                   last_attempt_at = now(),
                   last_status = p_status,
                   last_failure = v_failure,
                   delivered_at = CASE WHEN v_state = 'delivered' THEN now() END,
                   next_attempt_at = CASE WHEN v_state = 'undelivered'
                                          THEN now() + app.webhook_retry_after(v_hint.attempts + 1) END
             WHERE h.operator_id = v_hint.operator_id AND h.id = v_hint.id;
            EXIT;
        EXCEPTION
            -- A change committed a successor between the DELETE and the UPDATE: merge it too.
            WHEN unique_violation THEN
                NULL;
        END;
    END LOOP;

    PERFORM app.leave_webhook_sweep();
    RETURN v_state;
END
$$;
REVOKE ALL ON FUNCTION webhook.record_attempt(uuid, bigint, uuid, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.record_attempt(uuid, bigint, uuid, integer, text) TO webhook_worker;
