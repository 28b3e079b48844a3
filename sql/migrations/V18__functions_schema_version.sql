-- The schema version the functions in force were made for: written by `ingest migrate` in the same
-- transaction that applies sql/functions (app.deployed_rules_refresh), and read by readiness
-- (api.schema_version). Each versioned migration commits on its own before the functions are
-- applied, so the newest applied migration alone would call a database ready while its functions
-- are still the previous version's (a gateway would then call functions that do not exist yet).
-- Null until the next functions transaction: not ready.
SET LOCAL ROLE ingest_owner;

ALTER TABLE app.deployed_rules ADD COLUMN schema_version integer;

RESET ROLE;
