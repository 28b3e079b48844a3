-- The moment before which delivered and dead hints are deleted (now() less the
-- `webhook_hint_retention` setting): what the console's delivery log reaches back to at least.
CREATE OR REPLACE FUNCTION app.webhook_hints_kept_since()
RETURNS timestamptz
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN now() - (SELECT s.value::interval FROM app.settings AS s WHERE s.name = 'webhook_hint_retention');
END
$$;
REVOKE ALL ON FUNCTION app.webhook_hints_kept_since() FROM PUBLIC;
