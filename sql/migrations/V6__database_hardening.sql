-- Database hardening (issue 9).
--
-- 1. No role the project creates may make temporary objects. A temporary object named like a
--    built-in type or an unqualified relation would be found through pg_temp; every function already
--    lists pg_temp last in its search_path, and without TEMPORARY no login can even try. PUBLIC holds
--    TEMPORARY on every new database by default, so it is revoked here for this database; a DBA must
--    never grant it back to PUBLIC or to any role below (sql/tests/22 fails if one holds it).
DO $temp$
DECLARE
    v_role text;
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    FOREACH v_role IN ARRAY ARRAY['ingest_owner', 'ingest_gateway', 'authenticator', 'anon', 'authenticated',
                                  'platform_service', 'webhook_worker'] LOOP
        EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM %I', current_database(), v_role);
    END LOOP;
    -- Only the database's owner (or a superuser) can take it from PUBLIC; anyone else gets a warning
    -- from REVOKE and nothing changes. Say what the DBA must do rather than fail the migration.
    IF has_database_privilege('public', current_database(), 'TEMPORARY') THEN
        RAISE WARNING 'PUBLIC still holds TEMPORARY on database %', current_database()
            USING HINT = format('As the database owner: REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    END IF;
END
$temp$;

-- 2. The one row-level policy keyed on a setting other than the operator context: the credential
--    being authenticated. Any connection can set `app.authenticating_key_id`, so the policy now
--    also requires that no operator context is entered. app.authenticate leaves any operator context
--    (a caller may have forged one), sets the key id, reads the row and clears the key id in one call;
--    every other function enters its operator before reading a table (app.enter_operator also clears
--    the key id), so a forged key id widens nothing anywhere else.
SET LOCAL ROLE ingest_owner;
DROP POLICY "a credential is readable by its key id during authentication" ON app.api_credentials;
CREATE POLICY "a credential is readable by its key id while authenticating, before any operator is entered"
    ON app.api_credentials
    FOR SELECT
    USING (key_id = (SELECT nullif(current_setting('app.authenticating_key_id', true), ''))
           AND (SELECT coalesce(current_setting('app.operator_id', true), '') = ''));
RESET ROLE;
