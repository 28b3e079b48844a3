-- The schema version of this database as its functions stand: the highest migration applied when
-- `ingest migrate` last applied sql/functions (app.deployed_rules, written in that transaction). A
-- migration applied since, whose functions are not in place yet (a run under way, or one that gave
-- up), does not count. The gateway's readiness compares it with the highest migration its binary
-- holds (`schema_behind` while the functions are older). A name of its own: the functions of an
-- older tree have none by it, so a gateway reading it is never told a version their migrations
-- reached before their functions did. Reads no operator data.
CREATE OR REPLACE FUNCTION api.functions_version()
RETURNS integer
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.schema_version FROM app.deployed_rules AS d;
$$;
REVOKE ALL ON FUNCTION api.functions_version() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.functions_version() TO ingest_gateway;

-- The same version, by the name gateways older than api.functions_version() read for readiness: they
-- keep serving, ready, while newer migrations roll out.
CREATE OR REPLACE FUNCTION api.schema_version()
RETURNS integer
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT api.functions_version();
$$;
REVOKE ALL ON FUNCTION api.schema_version() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.schema_version() TO ingest_gateway;
