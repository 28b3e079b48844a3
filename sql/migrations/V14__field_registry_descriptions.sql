-- The field registries gained what the published OpenAPI document reads off them (the document's
-- body schemas come from these functions' own text: gateway/src/registry.rs): a description per
-- field, and app.rates_fields the bounds and which names are stored. CREATE OR REPLACE cannot change
-- a function's result type, so the old ones go here, before the function files create the new ones.
-- Nothing depends on them in the catalog (SQL and PL/pgSQL bodies are not dependencies).
SET LOCAL ROLE ingest_owner;

DROP FUNCTION IF EXISTS app.lot_fields();
DROP FUNCTION IF EXISTS app.rates_fields();

RESET ROLE;
