-- Whether the deployment has named the platform's own domains (app.settings
-- `webhook_platform_domains`, empty after `ingest migrate`): the worker asks at start and warns while
-- it is not, since until then no registration is refused as pointing at the platform. Answers one
-- boolean, never the domains. SECURITY DEFINER: the settings are the owner's alone.
CREATE OR REPLACE FUNCTION webhook.platform_domains_configured()
RETURNS boolean
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT cardinality(app.webhook_platform_domains()) > 0;
$$;
REVOKE ALL ON FUNCTION webhook.platform_domains_configured() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.platform_domains_configured() TO webhook_worker;
