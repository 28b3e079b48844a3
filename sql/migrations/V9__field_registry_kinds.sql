-- The field registries (app.lot_fields, app.rates_fields) gained columns: each field's kind, limits,
-- choices, default and the rules between fields. CREATE OR REPLACE cannot change a function's result
-- type, so the old ones go here, before the function files create the new ones. Nothing depends on
-- them in the catalog (SQL and PL/pgSQL bodies are not dependencies).
SET LOCAL ROLE ingest_owner;

DROP FUNCTION IF EXISTS app.lot_fields();
DROP FUNCTION IF EXISTS app.rates_fields();

RESET ROLE;
