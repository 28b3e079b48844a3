-- How far back the delivery log (console.webhook_deliveries) reaches (any member): `retention`, the
-- `webhook_hint_retention` setting, and `kept_since`, now less it. Delivered and dead hints that
-- occurred before kept_since are deleted by the delivery worker (within minutes of crossing it);
-- undelivered hints are kept whatever their age.
CREATE OR REPLACE FUNCTION console.webhook_delivery_retention(OUT retention interval, OUT kept_since timestamptz)
SECURITY DEFINER
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.console_caller(ARRAY['owner', 'manager', 'staff'], 'forbidden');
    retention := app.webhook_hint_retention();
    kept_since := now() - retention;
END
$$;
REVOKE ALL ON FUNCTION console.webhook_delivery_retention() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.webhook_delivery_retention() TO authenticated;
