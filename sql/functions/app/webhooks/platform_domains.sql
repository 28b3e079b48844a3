-- The platform's own domains, as the deployment sets them in the app.settings row
-- `webhook_platform_domains` (a comma list; each a name and every name under it, a leading dot
-- changing nothing): lower-cased, without surrounding spaces or leading dots, blanks left out. The
-- one reading of the setting: the registration refuses by it (app.webhook_endpoint_host), and the
-- worker warns at start while it is empty (webhook.platform_domains_configured), as it is after
-- `ingest migrate` until the deployment sets it.
CREATE OR REPLACE FUNCTION app.webhook_platform_domains()
RETURNS text[]
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(d.domain), '{}')
      FROM app.settings AS s,
           regexp_split_to_table(s.value, ',') AS p(item),
           LATERAL (SELECT ltrim(lower(btrim(p.item)), '.') AS domain) AS d
     WHERE s.name = 'webhook_platform_domains' AND d.domain <> '';
$$;
REVOKE ALL ON FUNCTION app.webhook_platform_domains() FROM PUBLIC;
