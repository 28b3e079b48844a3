-- The schema version of this database as its functions stand: the highest migration applied when
-- `ingest migrate` last applied sql/functions (app.deployed_rules, written in that transaction). A
-- migration applied since, whose functions are not in place yet (a run under way, or one that gave
-- up), does not count. The gateway's admin listener compares it with the highest migration its
-- binary holds (readiness: `schema_behind` while the database is older). Reads no operator data.
CREATE OR REPLACE FUNCTION api.schema_version()
RETURNS integer
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.schema_version FROM app.deployed_rules AS d;
$$;
REVOKE ALL ON FUNCTION api.schema_version() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.schema_version() TO ingest_gateway;
