//! `ingest migrate` leaves the database exactly as the tree says: a function, trigger or grant that no
//! file of `sql/functions` defines does not survive a run; runs at once take turns; running again
//! changes nothing. While a run's migrations are committed and its functions are not, a gateway is
//! unready (`schema_behind`) and answers 503 rather than calling functions that are not there.

use std::process::Stdio;
use std::time::Duration;

use http::Method;
use serde_json::json;
use tokio::process::Command;

use crate::common::lots::json_headers;
use crate::common::{backend_pid, connect, create_database, wait_for_sessions_blocked_by, TestApp};

/// Everything a run decides, as one text: the functions of the project's schemas with their body,
/// settings and grants; the triggers; the policies; the table grants; the database's grants; the
/// migration history.
const CATALOG: &str = r#"
SELECT string_agg(x, E'\n' ORDER BY x COLLATE "C") FROM (
    SELECT format('function %s %s %s %s %s', p.oid::regprocedure, md5(p.prosrc), p.proconfig, p.prosecdef, p.proacl)
      FROM pg_proc AS p
     WHERE p.pronamespace IN ('app'::regnamespace, 'api'::regnamespace, 'console'::regnamespace, 'platform'::regnamespace)
    UNION ALL
    SELECT format('trigger %s', pg_get_triggerdef(t.oid))
      FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
     WHERE c.relnamespace = 'app'::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT format('policy %s %s %s %s', p.polrelid::regclass, p.polname, pg_get_expr(p.polqual, p.polrelid),
                  pg_get_expr(p.polwithcheck, p.polrelid))
      FROM pg_policy AS p
    UNION ALL
    SELECT format('relation %s %s', c.oid::regclass, c.relacl)
      FROM pg_class AS c
     WHERE c.relnamespace IN ('app'::regnamespace, 'api'::regnamespace, 'console'::regnamespace, 'platform'::regnamespace)
    UNION ALL
    SELECT format('database %s', datacl) FROM pg_database WHERE datname = current_database()
    UNION ALL
    SELECT format('migration %s %s %s', version, name, checksum) FROM refinery_schema_history
) AS s(x)"#;

async fn catalog(url: &str) -> String {
    connect(url).await.query_one(CATALOG, &[]).await.expect("reading the catalog").get(0)
}

/// `ingest migrate` as a separate process, as a deployment runs it.
fn migrate_process(url: &str) -> tokio::process::Child {
    Command::new(env!("CARGO_BIN_EXE_ingest"))
        .arg("migrate")
        .env("DATABASE_URL", url)
        .env("LOG_LEVEL", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starting ingest migrate")
}

#[tokio::test]
async fn two_runs_at_once_take_turns_both_succeed_and_a_third_changes_nothing() {
    let url = create_database(false).await;

    // Hold the migration lock, so both runs are seen waiting for it before either starts.
    let holder = connect(&url).await;
    holder.execute("SELECT pg_advisory_lock($1)", &[&gateway::migrate::MIGRATION_LOCK]).await.unwrap();
    let first = migrate_process(&url);
    let second = migrate_process(&url);
    wait_for_sessions_blocked_by(&url, backend_pid(&holder).await, 2).await;
    let tables: i64 = holder
        .query_one("SELECT count(*) FROM pg_class WHERE relname = 'refinery_schema_history'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "a run waiting for the lock has not begun migrating");
    holder.execute("SELECT pg_advisory_unlock($1)", &[&gateway::migrate::MIGRATION_LOCK]).await.unwrap();

    for (name, child) in [("first", first), ("second", second)] {
        let output = tokio::time::timeout(Duration::from_secs(120), child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("the {name} run did not finish"))
            .unwrap();
        assert!(output.status.success(), "the {name} run failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let versions: Vec<i32> = holder
        .query("SELECT version FROM refinery_schema_history ORDER BY version", &[])
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let mut expected: Vec<i32> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../sql/migrations"))
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_prefix('V')?.split_once("__")?.0.parse().ok()
        })
        .collect();
    expected.sort();
    assert_eq!(versions, expected, "each migration of sql/migrations applied exactly once");

    let settings: Vec<String> = holder
        .query(
            "SELECT r.rolname || ' ' || array_to_string(array(SELECT unnest(s.setconfig) ORDER BY 1), ' ') \
               FROM pg_db_role_setting AS s JOIN pg_roles AS r ON r.oid = s.setrole \
              WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND r.rolname IN ('ingest_gateway', 'authenticator', 'webhook_worker') \
              ORDER BY r.rolname",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let keep = "log_parameter_max_length=0 log_parameter_max_length_on_error=0 plan_cache_mode=force_generic_plan";
    assert_eq!(
        settings,
        [format!("authenticator {keep}"), format!("ingest_gateway {keep}"), format!("webhook_worker {keep}")],
        "every login role keeps parameter values out of the server log"
    );
    // ... and so does any login that switches to one of them with SET ROLE (which applies no role
    // setting): the database's own settings.
    let database_settings: String = holder
        .query_one(
            "SELECT array_to_string(array(SELECT unnest(s.setconfig) ORDER BY 1), ' ') \
               FROM pg_db_role_setting AS s \
              WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.setrole = 0",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(database_settings, "log_parameter_max_length=0 log_parameter_max_length_on_error=0");

    let before = catalog(&url).await;
    let third = migrate_process(&url).wait_with_output().await.unwrap();
    assert!(third.status.success(), "the third run failed: {}", String::from_utf8_lossy(&third.stderr));
    assert_eq!(catalog(&url).await, before, "running migrate again changes nothing");
}

#[tokio::test]
async fn temporary_granted_to_public_since_the_last_run_is_taken_back_by_the_next() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    let public_may = "SELECT has_database_privilege('public', current_database(), 'TEMPORARY')";
    assert!(!admin.query_one(public_may, &[]).await.unwrap().get::<_, bool>(0));
    let database: String = admin.query_one("SELECT current_database()", &[]).await.unwrap().get(0);
    admin.batch_execute(&format!("GRANT TEMPORARY ON DATABASE \"{database}\" TO PUBLIC")).await.unwrap();
    assert!(admin.query_one(public_may, &[]).await.unwrap().get::<_, bool>(0));

    let run = migrate_process(&url).wait_with_output().await.unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!admin.query_one(public_may, &[]).await.unwrap().get::<_, bool>(0), "PUBLIC keeps TEMPORARY");
}

#[tokio::test]
async fn what_the_tree_does_not_define_is_dropped_and_grants_come_from_the_tree_alone() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    let clean = catalog(&url).await;

    admin
        .batch_execute(
            r#"
            SET ROLE ingest_owner;
            -- A SECURITY DEFINER function removed from the tree, and a re-signed one (old signature).
            CREATE FUNCTION api.stale_probe() RETURNS integer SECURITY DEFINER LANGUAGE sql
                SET search_path = pg_catalog, pg_temp AS 'SELECT 1';
            GRANT EXECUTE ON FUNCTION api.stale_probe() TO ingest_gateway;
            CREATE FUNCTION api.ping(p_authorization text, p_extra integer) RETURNS integer SECURITY DEFINER
                LANGUAGE sql SET search_path = pg_catalog, pg_temp AS 'SELECT 1';
            GRANT EXECUTE ON FUNCTION api.ping(text, integer) TO ingest_gateway;
            -- A trigger and its function removed from the tree.
            CREATE FUNCTION app.stale_trigger() RETURNS trigger LANGUAGE plpgsql
                SET search_path = pg_catalog, pg_temp AS 'BEGIN RETURN NEW; END';
            CREATE TRIGGER stale_trigger BEFORE UPDATE ON app.lots FOR EACH ROW EXECUTE FUNCTION app.stale_trigger();
            -- Grants no file makes.
            GRANT EXECUTE ON FUNCTION api.ping(text) TO authenticated, PUBLIC;
            GRANT EXECUTE ON FUNCTION app.authenticate(text, text, boolean) TO ingest_gateway;
            RESET ROLE;
            "#,
        )
        .await
        .expect("planting stale objects");

    gateway::migrate::run(&url).await.expect("migrate");

    let row = admin
        .query_one(
            "SELECT to_regprocedure('api.stale_probe()')::text, to_regprocedure('api.ping(text, integer)')::text, \
                    to_regprocedure('app.stale_trigger()')::text, \
                    (SELECT tgname::text FROM pg_trigger WHERE tgname = 'stale_trigger')",
            &[],
        )
        .await
        .unwrap();
    for (index, what) in
        ["api.stale_probe()", "api.ping(text, integer)", "app.stale_trigger()", "trigger stale_trigger"]
            .iter()
            .enumerate()
    {
        assert_eq!(row.get::<_, Option<String>>(index), None, "{what} was not dropped");
    }
    let privileges = admin
        .query_one(
            "SELECT has_function_privilege('authenticated', 'api.ping(text)', 'EXECUTE'), \
                    has_function_privilege('public', 'api.ping(text)', 'EXECUTE'), \
                    has_function_privilege('ingest_gateway', 'app.authenticate(text, text, boolean)', 'EXECUTE'), \
                    has_function_privilege('ingest_gateway', 'api.ping(text)', 'EXECUTE')",
            &[],
        )
        .await
        .unwrap();
    assert!(!privileges.get::<_, bool>(0), "the grant of api.ping to authenticated was taken back");
    assert!(!privileges.get::<_, bool>(1), "the grant of api.ping to PUBLIC was taken back");
    assert!(!privileges.get::<_, bool>(2), "the grant of app.authenticate to ingest_gateway was taken back");
    assert!(privileges.get::<_, bool>(3), "the tree's grant of api.ping to ingest_gateway stays");
    assert_eq!(catalog(&url).await, clean, "the catalog is again exactly what the tree makes");
}

#[tokio::test]
async fn a_removed_function_that_a_migration_object_still_uses_fails_the_run_and_changes_nothing() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    admin
        .batch_execute(
            r#"
            SET ROLE ingest_owner;
            CREATE FUNCTION app.stale_default() RETURNS text LANGUAGE sql
                SET search_path = pg_catalog, pg_temp AS 'SELECT ''x''';
            ALTER TABLE app.settings ALTER COLUMN value SET DEFAULT app.stale_default();
            RESET ROLE;
            "#,
        )
        .await
        .unwrap();
    let before = catalog(&url).await;

    let error = gateway::migrate::run(&url).await.expect_err("the run must fail, not drop the column default");
    assert!(error.contains("removing functions the tree no longer defines"), "{error}");
    assert_eq!(catalog(&url).await, before, "a failed run changes nothing");
    let default: Option<String> = admin
        .query_one("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'app.settings'::regclass", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(default.as_deref(), Some("app.stale_default()"));
}

/// Patience for tests: short waits, a few tries.
fn brief(attempts: u32) -> gateway::migrate::Patience {
    gateway::migrate::Patience { lock_timeout: Duration::from_millis(300), attempts, pause: Duration::from_millis(50) }
}

/// Each trigger of the project's tables with the transaction that last wrote its catalog row.
async fn triggers_made(admin: &tokio_postgres::Client) -> Vec<String> {
    admin
        .query(
            "SELECT format('%s %s %s', t.tgrelid::regclass, t.tgname, t.xmin) FROM pg_trigger AS t \
              WHERE t.tgrelid IN ('app.bookings'::regclass, 'app.lots'::regclass) AND NOT t.tgisinternal ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

#[tokio::test]
async fn a_run_with_nothing_new_makes_no_trigger_and_waits_for_no_writer_of_the_tables() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    let before = triggers_made(&admin).await;
    assert!(before.len() >= 9, "the tree's triggers are there: {before:?}");

    // A writer of bookings and lots with its transaction open: making a trigger would wait for it.
    let writer = connect(&url).await;
    writer.batch_execute("BEGIN; LOCK TABLE app.bookings, app.lots IN ROW EXCLUSIVE MODE").await.unwrap();
    gateway::migrate::run_with(&url, brief(1)).await.expect("a run with nothing new does not wait for the writer");
    writer.batch_execute("COMMIT").await.unwrap();
    assert_eq!(triggers_made(&admin).await, before, "no trigger was made again");
}

#[tokio::test]
async fn a_trigger_whose_definition_changed_or_that_is_missing_is_made_again() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    let comment = "SELECT obj_description(oid, 'pg_trigger') FROM pg_trigger \
                   WHERE tgrelid = 'app.bookings'::regclass AND tgname = 'stamp_change'";
    let defined: String = admin.query_one(comment, &[]).await.unwrap().get(0);
    assert!(defined.starts_with("defined by sql/functions, sha256 "), "{defined}");

    // A trigger made from another definition (its comment says so), and one dropped by hand.
    admin
        .batch_execute(
            "COMMENT ON TRIGGER stamp_change ON app.bookings IS 'defined by sql/functions, sha256 0000'; \
             DROP TRIGGER leave_hint ON app.bookings",
        )
        .await
        .unwrap();
    let before = triggers_made(&admin).await;
    gateway::migrate::run_with(&url, brief(1)).await.expect("migrate");
    let after = triggers_made(&admin).await;
    let changed: Vec<&String> = after.iter().filter(|row| !before.contains(row)).collect();
    assert_eq!(changed.len(), 2, "exactly the changed and the missing trigger were made: {changed:?}");
    assert!(
        changed.iter().any(|row| row.contains(" stamp_change "))
            && changed.iter().any(|row| row.contains(" leave_hint "))
    );
    let restored: String = admin.query_one(comment, &[]).await.unwrap().get(0);
    assert_eq!(restored, defined, "the comment carries the tree's definition again");
}

#[tokio::test]
async fn a_migration_behind_a_long_transaction_gives_up_naming_the_lock_while_requests_are_answered() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    // V16 made pending again (and the migrations after it, which refinery would not apply before
    // it, undone): V16 adds a constraint to app.settings, which needs the table alone.
    admin
        .batch_execute(
            "DELETE FROM refinery_schema_history WHERE version >= 16; \
             DROP INDEX app.webhook_hints_finished_by_occurrence; \
             ALTER TABLE app.settings DROP CONSTRAINT settings_webhook_hint_retention_in_days; \
             DELETE FROM app.settings WHERE name = 'webhook_hint_retention'; \
             DROP TABLE app.booking_writers_published; \
             DELETE FROM app.server_secrets WHERE name = 'read_assertion_key'; \
             ALTER TABLE app.deployed_rules DROP COLUMN schema_version; \
             DROP SEQUENCE app.booking_stamps_capped",
        )
        .await
        .unwrap();
    let app = TestApp::spawn_on(&url, |_| {}).await;
    let (_, credential) = app.operator_with_credential().await;
    let bearer = credential.bearer();

    // A long transaction that read the settings (as every feed page does) and stays open.
    let reader = connect(&url).await;
    reader.batch_execute("BEGIN; SELECT count(*) FROM app.settings").await.unwrap();
    let reader_pid = backend_pid(&reader).await;

    let run = tokio::spawn({
        let url = url.clone();
        async move { gateway::migrate::run_with(&url, brief(3)).await }
    });
    // Feed pages meanwhile: each may wait behind the migration's queued lock, for its timeout at most.
    let mut pages = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !run.is_finished() {
        assert!(std::time::Instant::now() < deadline, "the run never gave up waiting for the lock");
        let page = app.get("/v1/bookings", &[("authorization", bearer.as_str())]).await;
        assert_eq!(page.status, 200, "a feed page while the migration waits: {}", page.text());
        pages += 1;
    }
    assert!(pages >= 2, "requests were answered while the migration waited ({pages})");
    let error = run.await.unwrap().expect_err("the run gives up");
    assert!(error.contains("gave up after 3 tries"), "{error}");
    assert!(error.contains("AccessExclusiveLock on app.settings"), "the lock is named: {error}");
    assert!(error.contains(&format!("held by pid {reader_pid} (")), "the holder is named: {error}");
    assert!(error.contains("idle in transaction"), "the holder's state is named: {error}");
    let applied: i64 =
        admin.query_one("SELECT count(*) FROM refinery_schema_history WHERE version = 16", &[]).await.unwrap().get(0);
    assert_eq!(applied, 0, "the migration that gave up is not recorded");

    reader.batch_execute("COMMIT").await.unwrap();
    gateway::migrate::run_with(&url, brief(3)).await.expect("once the transaction ends, the run succeeds");
    app.shutdown().await;
}

#[tokio::test]
async fn a_trigger_changed_by_hand_is_put_back_before_a_function_it_points_to_is_dropped() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    // stamp_change made again by hand to call a function no file defines (its comment unchanged),
    // and keep_history (which refuses deletes) disabled.
    admin
        .batch_execute(
            "SET ROLE ingest_owner; \
             CREATE FUNCTION app.stale_stamp() RETURNS trigger LANGUAGE plpgsql \
                 SET search_path = pg_catalog, pg_temp AS 'BEGIN RETURN NEW; END'; \
             CREATE OR REPLACE TRIGGER stamp_change BEFORE INSERT OR UPDATE ON app.bookings \
                 FOR EACH ROW EXECUTE FUNCTION app.stale_stamp(); \
             ALTER TABLE app.bookings DISABLE TRIGGER keep_history; \
             RESET ROLE",
        )
        .await
        .unwrap();
    gateway::migrate::run_with(&url, brief(1)).await.expect("the run puts both back, then drops the stale function");
    let row = admin
        .query_one(
            "SELECT to_regprocedure('app.stale_stamp()')::text, \
                    (SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'app.bookings'::regclass AND tgname = 'stamp_change'), \
                    (SELECT tgenabled::text FROM pg_trigger WHERE tgrelid = 'app.bookings'::regclass AND tgname = 'keep_history')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, Option<String>>(0), None, "the function no file defines is dropped");
    assert!(
        row.get::<_, String>(1).ends_with("EXECUTE FUNCTION app.booking_stamp_change()"),
        "{}",
        row.get::<_, String>(1)
    );
    assert_eq!(row.get::<_, String>(2), "O", "keep_history fires again");
}

#[tokio::test]
async fn a_trigger_to_make_behind_a_writer_gives_up_naming_the_lock() {
    let url = create_database(true).await;
    let admin = connect(&url).await;
    admin
        .batch_execute("COMMENT ON TRIGGER stamp_change ON app.bookings IS 'defined by sql/functions, sha256 0'")
        .await
        .unwrap();
    let writer = connect(&url).await;
    writer.batch_execute("BEGIN; LOCK TABLE app.bookings IN ROW EXCLUSIVE MODE").await.unwrap();
    let error = gateway::migrate::run_with(&url, brief(2)).await.expect_err("the run gives up");
    assert!(error.contains("gave up after 2 tries"), "{error}");
    assert!(error.contains("ShareRowExclusiveLock on app.bookings"), "the lock is named: {error}");
    assert!(error.contains(&format!("held by pid {} (", backend_pid(&writer).await)), "{error}");
    writer.batch_execute("COMMIT").await.unwrap();
    gateway::migrate::run_with(&url, brief(1)).await.expect("once the writer is gone, the run succeeds");
}

#[tokio::test]
async fn while_the_functions_lag_the_schema_the_gateway_is_unready_and_answers_503_until_a_run_completes() {
    let url = create_database(true).await;
    let app = TestApp::spawn_on(&url, |_| {}).await;
    let (_, credential) = app.operator_with_credential().await;
    let admin = connect(&url).await;
    let lot = || async {
        let body = json!({"name": "Behind", "timezone": "Europe/London", "handover": "self", "online_bookable": true});
        app.request(Method::PUT, "/v1/lots/behind", json_headers(&credential), body.to_string()).await
    };
    // The functions of the previous version, as a run that gave up leaves them: its migrations
    // committed, its functions' transaction not (the write of a lot is still the old one, which this
    // gateway does not call; one of the tree's triggers is to be made again).
    admin
        .batch_execute(
            "UPDATE app.deployed_rules SET schema_version = schema_version - 1; \
             DROP FUNCTION api.lot_put(text, text, text, boolean, jsonb); \
             COMMENT ON TRIGGER stamp_change ON app.bookings IS 'defined by sql/functions, sha256 0'",
        )
        .await
        .unwrap();
    let writer = connect(&url).await;
    writer.batch_execute("BEGIN; LOCK TABLE app.bookings IN ROW EXCLUSIVE MODE").await.unwrap();
    let error = gateway::migrate::run_with(&url, brief(2)).await.expect_err("the run gives up behind the writer");
    assert!(error.contains("gave up after 2 tries"), "{error}");

    let readiness = app.admin().get("/readyz", &[]).await;
    assert_eq!(
        (readiness.status.as_u16(), readiness.json()),
        (503, json!({"status": "unready", "reason": "schema_behind"}))
    );
    let refused = lot().await;
    refused.assert_error(503, "try_again", None);
    assert_eq!(refused.header("retry-after"), Some("1"));
    let cause = app.log_of(&refused)["cause"].as_str().unwrap_or_default().to_string();
    assert!(cause.starts_with("schema_behind: sqlstate 42883"), "the log line says why: {cause}");
    assert_eq!(app.metric("ingest_db_calls_total{outcome=\"schema_behind\"}").await, 1.0);

    writer.batch_execute("COMMIT").await.unwrap();
    gateway::migrate::run_with(&url, brief(1)).await.expect("once the writer is gone, the run succeeds");
    let readiness = app.admin().get("/readyz", &[]).await;
    assert_eq!((readiness.status.as_u16(), readiness.json()), (200, json!({"status": "ready"})));
    assert_eq!(lot().await.status, 201, "the lot is written with the functions in place");
    app.shutdown().await;
}

#[tokio::test]
async fn a_function_missing_inside_a_functions_body_is_a_fault_of_ours_not_a_schema_behind() {
    let url = create_database(true).await;
    let app = TestApp::spawn_on(&url, |_| {}).await;
    let (_, credential) = app.operator_with_credential().await;
    // api.ping as the gateway calls it, its body calling a function that does not exist.
    connect(&url)
        .await
        .batch_execute(
            "CREATE OR REPLACE FUNCTION api.ping(p_authorization text, OUT status integer, OUT body jsonb) \
                 SECURITY DEFINER LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp \
                 AS $$ BEGIN PERFORM app.no_such_function(); END $$",
        )
        .await
        .unwrap();
    let answer = app.ping(Some(&credential.bearer())).await;
    answer.assert_error(500, "internal_error", None);
    let cause = app.log_of(&answer)["cause"].as_str().unwrap_or_default().to_string();
    assert!(cause.starts_with("sqlstate 42883 at PL/pgSQL function api.ping"), "{cause}");
    assert_eq!(app.metric("ingest_db_calls_total{outcome=\"schema_behind\"}").await, 0.0);
    assert_eq!(app.metric("ingest_db_calls_total{outcome=\"internal\"}").await, 1.0);
    app.shutdown().await;
}
