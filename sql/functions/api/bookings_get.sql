-- GET /bookings: the operator's bookings from every channel, oldest change first. read_bookings.
-- p_since: the previous answer's `next` (NULL or empty: from the beginning); p_limit 1-500. The
-- query's syntax (limit 1-500, since at most 512 characters) is the gateway's, refused before
-- authentication (docs/design.md); whether a since is a token of ours is decided here.
--
-- On the primary, the watermark from the booking writers' locks (app.bookings_watermark); the page
-- is app.bookings_page's. A standby serves the same page through api.bookings_get_standby.
CREATE OR REPLACE FUNCTION api.bookings_get(
    p_authorization text,
    p_since text,
    p_limit integer,
    OUT status integer,
    OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
BEGIN
    PERFORM app.require_read_committed();
    v_caller := app.authenticate(p_authorization, 'read_bookings', true);
    body := app.bookings_page(v_caller.operator_id, p_since, p_limit, app.bookings_watermark(v_caller.operator_id));
    status := 200;
END
$$;
REVOKE ALL ON FUNCTION api.bookings_get(text, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.bookings_get(text, text, integer) TO ingest_gateway;
