-- Register the operator's webhook endpoint (owner or manager). The secret `whsec_` + 64 lowercase
-- hex is generated in the console and shown there once; it is stored for the delivery worker and
-- never returned by any console or API function. Refused while an endpoint is armed: an endpoint is
-- never edited; a new URL or secret is a new endpoint after disarming the old one. Every refusal of
-- the URL, the secret or the armed endpoint is PT422 invalid_webhook_endpoint (DETAIL p_url,
-- p_secret, or none for "one is armed").
CREATE OR REPLACE FUNCTION console.webhook_endpoint_register(p_url text, p_secret text)
RETURNS TABLE (id uuid, url text, created_at timestamptz)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
    v_host text;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'forbidden');
    v_host := app.webhook_endpoint_host(p_url);
    IF p_secret IS NULL OR p_secret !~ '^whsec_[0-9a-f]{64}$' THEN
        PERFORM app.refuse(422, 'invalid_webhook_endpoint', 'p_secret');
    END IF;
    -- Two registrations at once: the second waits on the armed-endpoint index, then is refused.
    BEGIN
        RETURN QUERY
        INSERT INTO app.webhook_endpoints AS e (operator_id, url, host, secret, created_by)
        VALUES (v_caller.operator_id, p_url, v_host, p_secret, v_caller.user_id)
        RETURNING e.id, e.url, e.created_at;
    EXCEPTION
        WHEN unique_violation THEN
            PERFORM app.refuse(422, 'invalid_webhook_endpoint');
    END;
END
$$;
REVOKE ALL ON FUNCTION console.webhook_endpoint_register(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.webhook_endpoint_register(text, text) TO authenticated;
