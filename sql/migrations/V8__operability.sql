-- Operability (issue 15): what the admin listener and the webhook worker read for readiness and
-- metrics, each read cheap whatever the size of the tables.
--
-- 1. The schema version, for readiness (api.schema_version). refinery keeps its history in a table
--    of the migrating login's (found here by name, with refinery's own search path); the view binds
--    it once, so the function that reads it needs no search path, and only the owner reads it.
GRANT SELECT ON TABLE refinery_schema_history TO ingest_owner;
CREATE VIEW app.migration_history AS SELECT h.version FROM refinery_schema_history AS h;
ALTER VIEW app.migration_history OWNER TO ingest_owner;
REVOKE ALL ON TABLE app.migration_history FROM PUBLIC;

SET LOCAL ROLE ingest_owner;

-- 2. The webhook backlog (webhook.backlog), without a scan of the hints table: delivered hints are
--    the bulk of it and are never visited. The undelivered ones are read through the claim's partial
--    index (webhook_hints_due, V7), which holds them alone; the hints that died after failed
--    attempts through this one, by their last attempt, for "dead in the last day" (hints killed by a
--    disarm are no fault to alert on). Built in the migration's transaction: on a very large hints
--    table, expect writes to it to wait while the index builds.
CREATE INDEX webhook_hints_dead_by_last_attempt ON app.webhook_hints (last_attempt_at)
    WHERE state = 'dead' AND last_failure <> 'endpoint_disarmed';

RESET ROLE;
