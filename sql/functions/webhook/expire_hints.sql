-- Retention (role webhook_worker): deletes at most p_limit (1-10 000) delivered or dead hints that
-- occurred before now() less app.webhook_hint_retention(), oldest first, and answers how many.
-- Undelivered hints (waiting or in flight) are never deleted, whatever their age. One call is one short
-- transaction: the worker calls it again while a call fills its limit, so no lock on the hints is
-- held for long, and rows another session holds are skipped, not waited for.
CREATE OR REPLACE FUNCTION webhook.expire_hints(p_limit integer)
RETURNS integer
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- (computed once: a function call compared with the indexed column would run for every row)
    c_kept_since constant timestamptz := now() - app.webhook_hint_retention();
    v_deleted integer;
BEGIN
    IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 10000 THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_limit');
    END IF;
    PERFORM app.enter_webhook_sweep();
    WITH expired AS (
        SELECT h.operator_id, h.id
          FROM app.webhook_hints AS h
         WHERE h.state <> 'undelivered' AND h.occurred_at < c_kept_since
         ORDER BY h.occurred_at
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED)
    DELETE FROM app.webhook_hints AS h
     USING expired AS e
     WHERE h.operator_id = e.operator_id AND h.id = e.id;
    GET DIAGNOSTICS v_deleted = ROW_COUNT;
    PERFORM app.leave_webhook_sweep();
    RETURN v_deleted;
END
$$;
REVOKE ALL ON FUNCTION webhook.expire_hints(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.expire_hints(integer) TO webhook_worker;
