-- PUT /lots/{external_id}: create or amend one lot. write_supply. p_external_id is the decoded path
-- value (NULL when it was not valid UTF-8 of 1-200 characters); p_body the raw body text;
-- p_body_fault the gateway's verdict on its JSON syntax (app.refuse_body_fault). A dry run
-- still records the credential's use (authentication is outside the rolled-back block).
CREATE OR REPLACE FUNCTION api.lot_put(
    p_authorization text,
    p_external_id text,
    p_body text,
    p_dry_run boolean,
    p_body_fault jsonb DEFAULT NULL,
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
    v_written record;
BEGIN
    v_caller := app.authenticate(p_authorization, 'write_supply', true);
    v_written := app.run_write('lot', v_caller.operator_id, p_external_id, p_body, p_body_fault, p_dry_run);
    status := v_written.status;
    body := v_written.body;
END
$$;
REVOKE ALL ON FUNCTION api.lot_put(text, text, text, boolean, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.lot_put(text, text, text, boolean, jsonb) TO ingest_gateway;
