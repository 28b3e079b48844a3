-- How long delivered and dead hints are kept: the `webhook_hint_retention` setting (whole days).
CREATE OR REPLACE FUNCTION app.webhook_hint_retention()
RETURNS interval
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT s.value::interval FROM app.settings AS s WHERE s.name = 'webhook_hint_retention');
END
$$;
REVOKE ALL ON FUNCTION app.webhook_hint_retention() FROM PUBLIC;
