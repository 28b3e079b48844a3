-- GET /bookings served by a hot standby, second half: the page api.bookings_get would answer, for
-- the operator a read assertion of the primary names (api.bookings_read_assertion), with the
-- watermark the primary published (app.bookings_watermark_published). p_since and p_limit as
-- api.bookings_get's; a since that is not a token of ours is PT422 invalid_cursor, as there.
--
-- Refusals that are never a client's answer (the gateway reads the page from the primary instead,
-- and counts why): SQLSTATE 28000 for a token that is not a fresh assertion of this database, and
-- 55000 when the last publication this server holds is older than p_max_lag_ms milliseconds (the
-- standby lags, or nothing publishes): a stale publication is never wrong, only ever more
-- cautious, but a feed that stalls for it is worse than a read from the primary. A publication
-- dated more than the read assertions' clock skew ahead of this server's clock is refused the same
-- way: after the primary's clock stepped back it would otherwise pass for fresh for that offset
-- plus the bound, while the writers it names go on without being published.
CREATE OR REPLACE FUNCTION api.bookings_get_standby(
    p_assertion text,
    p_since text,
    p_limit integer,
    p_max_lag_ms integer,
    OUT status integer,
    OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_operator_id uuid;
BEGIN
    PERFORM app.require_read_committed();
    v_operator_id := app.read_assertion_operator(p_assertion);
    IF NOT EXISTS (SELECT FROM app.booking_writers_published AS p
                    WHERE p.published_at >= now() - make_interval(secs => greatest(p_max_lag_ms, 0) / 1000.0)
                      AND p.published_at <= now() + (app.read_assertion_lifetime()).clock_skew) THEN
        RAISE EXCEPTION 'the last publication of the booking writers is too old' USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    body := app.bookings_page(v_operator_id, p_since, p_limit, app.bookings_watermark_published(v_operator_id));
    status := 200;
END
$$;
REVOKE ALL ON FUNCTION api.bookings_get_standby(text, text, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.bookings_get_standby(text, text, integer, integer) TO ingest_gateway;
