-- The names of the fields that differ between the stored lot and the one written, in the order of
-- the spec's field table (app.lot_fields), the cancellation keys under their reviewed-list names. A
-- new lot (p_old NULL) differs in every field. Values are compared as stored (normalised), so
-- features in another order, or coordinates that round to the stored value, are no change.
CREATE OR REPLACE FUNCTION app.lot_changes(p_old app.lots, p_new app.lots)
RETURNS text[]
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.fields_that_differ(
        CASE WHEN p_old.id IS NOT NULL THEN pg_catalog.to_jsonb(p_old) END, pg_catalog.to_jsonb(p_new),
        ARRAY(SELECT f.name FROM app.lot_fields() AS f ORDER BY f.ordinal));
END
$$;
REVOKE ALL ON FUNCTION app.lot_changes(app.lots, app.lots) FROM PUBLIC;

-- Whether any of `p_changed` (field names) is reviewed: a change to it voids a pending or approved
-- listing review.
CREATE OR REPLACE FUNCTION app.lot_changes_reviewed(p_changed text[])
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN EXISTS (SELECT FROM app.lot_fields() AS f WHERE f.reviewed AND f.name = ANY (p_changed));
END
$$;
REVOKE ALL ON FUNCTION app.lot_changes_reviewed(text[]) FROM PUBLIC;
