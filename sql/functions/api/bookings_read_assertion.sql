-- GET /bookings served by a standby, first half, on the primary: the request's credential
-- authenticated with the read_bookings scope (every refusal as api.bookings_get's: the uniform
-- PT401), and a read assertion of its operator for the standby (app/credentials/read_assertion.sql).
-- Answers (200, the token); the gateway hands the token to api.bookings_get_standby and never
-- shows it to anyone.
CREATE OR REPLACE FUNCTION api.bookings_read_assertion(p_authorization text, OUT status integer, OUT body text)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
    body := app.read_assertion((app.authenticate(p_authorization, 'read_bookings', false)).operator_id);
    status := 200;
END
$$;
REVOKE ALL ON FUNCTION api.bookings_read_assertion(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.bookings_read_assertion(text) TO ingest_gateway;
