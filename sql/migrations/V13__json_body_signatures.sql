-- Functions of app.json_body that changed their arguments or result, or are gone. CREATE OR
-- REPLACE cannot change a result type, and a changed argument list makes a second function beside
-- the old one, so the old forms go here, before the function files create the new ones:
--   the keys sent and held are now counted in texts written alike (app.json_countable,
--   app.json_key_marks), which replaced app.json_keys_sent, app.json_keys_held and
--   app.json_quotes_delimiting; app.json_first_repeating bisects over those texts, and
--   app.json_first_repeated_key takes the counted text too;
--   app.json_member_with_exponent_beyond_range returns the member or NULL (it once returned a
--   found flag beside it).
-- Nothing depends on them in the catalog (SQL and PL/pgSQL bodies are not dependencies).
SET LOCAL ROLE ingest_owner;

DROP FUNCTION IF EXISTS app.json_keys_sent(text);
DROP FUNCTION IF EXISTS app.json_keys_held(jsonb);
DROP FUNCTION IF EXISTS app.json_keys_held(text);
DROP FUNCTION IF EXISTS app.json_quotes_delimiting(text);
DROP FUNCTION IF EXISTS app.json_first_repeating(text[], jsonb);
DROP FUNCTION IF EXISTS app.json_first_repeated_key(json, jsonb);
DROP FUNCTION IF EXISTS app.json_member_with_exponent_beyond_range(text);

RESET ROLE;
