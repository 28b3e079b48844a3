-- The fingerprint of the rules in force (app.deployed_rules, V11): SHA-256 over the newest applied
-- migration (the reference lists come from migrations) and the identity, settings and source of
-- every function of the project's schemas (those the owner role owns), in a fixed order. Written by
-- `ingest migrate` once it has applied sql/functions; a digest of an accepted body
-- (app.lot_body_digest) holds it, so that a deployment changing any rule voids every stored digest.
-- Beside it, the newest applied migration itself (V18): the schema version these functions were
-- made for, which readiness reads (api.schema_version), written in the functions' own transaction.
CREATE OR REPLACE FUNCTION app.deployed_rules_refresh()
RETURNS bytea
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
    WITH rules AS (
        SELECT (SELECT max(h.version) FROM app.migration_history AS h) AS schema_version,
               sha256(convert_to(
                   coalesce((SELECT max(h.version)::text FROM app.migration_history AS h), '')
                   || string_agg(p.oid::regprocedure::text || E'\n' || coalesce(array_to_string(p.proconfig, E'\n'), '')
                                 || E'\n' || p.prosrc, E'\n' ORDER BY p.oid::regprocedure::text),
                   'UTF8')) AS fingerprint
          FROM pg_catalog.pg_proc AS p
          JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
         WHERE n.nspowner = (SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolname = 'ingest_owner')),
    recorded AS (
        -- written only when it differs: a run that changes nothing writes nothing
        INSERT INTO app.deployed_rules AS d (singleton, fingerprint, schema_version)
        SELECT true, rules.fingerprint, rules.schema_version FROM rules
        ON CONFLICT (singleton) DO UPDATE
           SET fingerprint = excluded.fingerprint, schema_version = excluded.schema_version, deployed_at = now()
         WHERE d.fingerprint <> excluded.fingerprint OR d.schema_version IS DISTINCT FROM excluded.schema_version)
    SELECT rules.fingerprint FROM rules;
$$;
REVOKE ALL ON FUNCTION app.deployed_rules_refresh() FROM PUBLIC;
