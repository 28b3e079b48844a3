-- The choices of one of app.booking_fields' `choice` fields. IMMUTABLE like the registry, so a call
-- with a constant name is folded into a constant when the calling statement is planned: PL/pgSQL
-- keeps that plan for the session, and a booking write reads no registry (a query on every write
-- was a sizeable share of app.booking_from_json).
CREATE OR REPLACE FUNCTION app.booking_field_choices(p_name text)
RETURNS text[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT f.choices FROM app.booking_fields() AS f WHERE f.name = p_name);
END
$$;
REVOKE ALL ON FUNCTION app.booking_field_choices(text) FROM PUBLIC;
