-- The schema version of this database: the highest migration `ingest migrate` applied. The
-- gateway's admin listener compares it with the highest migration its binary holds (readiness:
-- `schema_behind` while the database is older). Reads no operator data.
CREATE OR REPLACE FUNCTION api.schema_version()
RETURNS integer
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT max(h.version)::integer FROM app.migration_history AS h;
$$;
REVOKE ALL ON FUNCTION api.schema_version() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.schema_version() TO ingest_gateway;
