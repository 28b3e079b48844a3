-- GET /ping: diagnose a credential. Any valid credential passes; no operator context is left set
-- and no operator data is read.
CREATE OR REPLACE FUNCTION api.ping(p_authorization text, OUT status integer, OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
BEGIN
    v_caller := app.authenticate(p_authorization, NULL, false);
    status := 200;
    body := jsonb_build_object(
        'ok', true,
        'key_id', v_caller.key_id,
        'scopes', to_jsonb(v_caller.scopes),
        'server_time', app.utc_text(now()));
END
$$;
REVOKE ALL ON FUNCTION api.ping(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.ping(text) TO ingest_gateway;
