//! `migrate`: the versioned migrations (refinery, embedded from `sql/migrations`), then every file
//! of `sql/functions` (CREATE OR REPLACE) in one transaction as the owner role. Afterwards the
//! functions, triggers and function grants of the project's schemas are exactly those of the tree: a
//! function or trigger the tree no longer defines is dropped, and a grant no file makes is taken
//! back; the fingerprint of the functions then in force is recorded (`app.deployed_rules`). Last,
//! the login roles get the settings that keep secrets out of the server log. Re-runnable; an
//! advisory lock makes concurrent runs (several instances starting at once) take turns, each
//! waiting for the one before.

use crate::db_tls::DatabaseLink;

mod embedded {
    refinery::embed_migrations!("../sql/migrations");
}

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// The session-level advisory lock every run holds from start to end: any 64-bit number unique to
/// this purpose.
pub const MIGRATION_LOCK: i64 = 0x696e_6765_7374_6d67;

/// The highest migration this binary holds: the schema version `migrate` brings a database to, and
/// the one readiness expects (`api.schema_version()` at least this).
pub fn latest_version() -> i64 {
    embedded::migrations::runner().get_migrations().iter().map(|m| i64::from(m.version())).max().unwrap_or(0)
}

pub async fn run(database_url: &str) -> Result<(), String> {
    let link = DatabaseLink::parse(database_url, "DATABASE_URL")?;
    let (mut client, connection) =
        link.connect().await.map_err(|error| format!("cannot connect to the database: {}", link.explain(&error)))?;
    let connection = tokio::spawn(connection);

    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| format!("cannot take the migration lock: {e}"))?;
    let report =
        embedded::migrations::runner().run_async(&mut client).await.map_err(|e| format!("migration failed: {e}"))?;
    for migration in report.applied_migrations() {
        tracing::info!(migration = %migration, "applied");
    }
    apply_functions(&mut client).await?;
    keep_secrets_out_of_the_server_log(&client).await?;
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| format!("cannot release the migration lock: {e}"))?;

    drop(client);
    let _ = connection.await;
    Ok(())
}

/// Applies every function file twice in one transaction: first without checking function bodies,
/// so that the files need no order among themselves, then again with the checks, so that a body
/// referring to something missing still fails the migration. Between the two passes, what the tree
/// no longer defines is dropped and every function grant is taken back, so the second pass leaves
/// exactly the tree's grants.
async fn apply_functions(client: &mut tokio_postgres::Client) -> Result<(), String> {
    let transaction = client.transaction().await.map_err(|e| format!("functions: {e}"))?;
    for checks in ["off", "on"] {
        transaction
            .batch_execute(&format!("SET LOCAL ROLE ingest_owner; SET LOCAL check_function_bodies = {checks}"))
            .await
            .map_err(|e| format!("functions: {e}"))?;
        for (name, sql) in FUNCTION_FILES {
            transaction.batch_execute(sql).await.map_err(|e| format!("sql/functions/{name}: {}", describe(&e)))?;
        }
        if checks == "off" {
            transaction
                .batch_execute(PRUNE_WHAT_THE_TREE_DOES_NOT_DEFINE)
                .await
                .map_err(|e| format!("removing functions the tree no longer defines: {}", describe(&e)))?;
        }
    }
    // The fingerprint of the rules now in force: a stored digest of an accepted lot body made under
    // other rules no longer matches (app.lot_body_digest).
    transaction
        .batch_execute("SELECT app.deployed_rules_refresh()")
        .await
        .map_err(|e| format!("recording the rules in force: {}", describe(&e)))?;
    transaction.commit().await.map_err(|e| format!("functions: {e}"))?;
    tracing::info!(files = FUNCTION_FILES.len(), "functions applied");
    Ok(())
}

/// The login roles whose sessions carry secrets as bind parameters: the gateway's (bearer secrets),
/// PostgREST's (webhook secrets) and the webhook worker's.
const LOGIN_ROLES: [&str; 3] = ["ingest_gateway", "authenticator", "webhook_worker"];

/// Gives each login role, in the migrated database and on every run (so a privilege granted later
/// takes effect at the next run): `log_parameter_max_length = 0` and
/// `log_parameter_max_length_on_error = 0`, so no parameter value is logged beside a statement, and
/// `plan_cache_mode = force_generic_plan`, so no plan holds a parameter folded into a constant for
/// auto_explain to print. Role settings apply at login.
///
/// `ALTER ROLE … IN DATABASE`, not cluster-wide: the setting belongs to the database this run
/// migrates, it takes precedence over a role-wide setting a DBA may have left, and two runs migrating
/// two databases of one cluster at once write different catalog rows (a cluster-wide `ALTER ROLE`
/// from both rewrites one shared row and one of them fails with "tuple concurrently updated"; runs on
/// the same database already take turns on the migration lock).
/// `log_parameter_max_length` needs a superuser or SET on it (PostgreSQL 15: `GRANT SET ON PARAMETER`);
/// without, the run goes on and says what a superuser must run.
///
/// The same two logging settings are also set for the whole database (`ALTER DATABASE … SET`): a
/// deployment may log in as another role and `SET ROLE` to one of these (`DATABASE_ROLE`,
/// `WEBHOOK_DATABASE_ROLE`), and `SET ROLE` applies no role setting. That needs the database's
/// owner (or a superuser) as well; without, the run says what to run.
async fn keep_secrets_out_of_the_server_log(client: &tokio_postgres::Client) -> Result<(), String> {
    let may: bool = client
        .query_one(
            "SELECT coalesce((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false) \
                 OR pg_catalog.has_parameter_privilege('log_parameter_max_length', 'SET')",
            &[],
        )
        .await
        .map_err(|e| format!("login settings: {}", describe(&e)))?
        .get(0);
    let database: String = client
        .query_one("SELECT pg_catalog.quote_ident(pg_catalog.current_database())", &[])
        .await
        .map_err(|e| format!("login settings: {}", describe(&e)))?
        .get(0);
    for role in LOGIN_ROLES {
        let alter = format!("ALTER ROLE {role} IN DATABASE {database} SET");
        let mut statements =
            format!("{alter} log_parameter_max_length_on_error = 0; {alter} plan_cache_mode = force_generic_plan;");
        if may {
            statements.push_str(&format!(" {alter} log_parameter_max_length = 0;"));
        } else {
            tracing::warn!(
                role,
                "secrets can reach the server log: as a superuser, run {alter} log_parameter_max_length = 0"
            );
        }
        client.batch_execute(&statements).await.map_err(|e| format!("login settings of {role}: {}", describe(&e)))?;
    }
    let owns_the_database: bool = client
        .query_one(
            "SELECT pg_catalog.pg_has_role(d.datdba, 'USAGE') FROM pg_catalog.pg_database AS d \
              WHERE d.datname = pg_catalog.current_database()",
            &[],
        )
        .await
        .map_err(|e| format!("database settings: {}", describe(&e)))?
        .get(0);
    let alter = format!("ALTER DATABASE {database} SET");
    if may && owns_the_database {
        client
            .batch_execute(&format!(
                "{alter} log_parameter_max_length = 0; {alter} log_parameter_max_length_on_error = 0;"
            ))
            .await
            .map_err(|e| format!("database settings: {}", describe(&e)))?;
    } else {
        tracing::warn!(
            "secrets can reach the server log from a login that switches role: as a superuser, run \
             {alter} log_parameter_max_length = 0; {alter} log_parameter_max_length_on_error = 0"
        );
    }
    Ok(())
}

/// Run as the owner right after the first pass. CREATE OR REPLACE rewrites the catalog row of every
/// function and trigger a file defines, so within this transaction those rows carry its id: any
/// function of the project's schemas (extension members aside), or trigger on their tables, whose
/// row does not was not defined by the tree, and is dropped — a stale SECURITY DEFINER function
/// never stays callable. Without CASCADE: something a migration made that still uses a dropped
/// function fails the migration instead of vanishing with it. Then every grant on a function but
/// the owner's is revoked; the second pass grants again exactly what the files grant.
const PRUNE_WHAT_THE_TREE_DOES_NOT_DEFINE: &str = r#"
DO $prune$
DECLARE
    -- The project's schemas: every schema the owner role owns (app, api, console, platform, webhook).
    c_schemas constant oid[] := ARRAY(SELECT n.oid FROM pg_catalog.pg_namespace AS n
                                       WHERE n.nspowner = 'ingest_owner'::pg_catalog.regrole);
    c_this_transaction constant xid := pg_catalog.pg_current_xact_id()::xid;
    v_stale record;
BEGIN
    FOR v_stale IN
        SELECT t.tgname, t.tgrelid::regclass AS tbl
          FROM pg_catalog.pg_trigger AS t
          JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid
         WHERE c.relnamespace = ANY (c_schemas) AND NOT t.tgisinternal AND t.xmin <> c_this_transaction
    LOOP
        RAISE NOTICE 'dropping trigger % on %: no file of sql/functions defines it', v_stale.tgname, v_stale.tbl;
        EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', v_stale.tgname, v_stale.tbl);
    END LOOP;
    FOR v_stale IN
        SELECT p.oid::regprocedure AS fn, p.prokind
          FROM pg_catalog.pg_proc AS p
         WHERE p.pronamespace = ANY (c_schemas) AND p.xmin <> c_this_transaction
           AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend AS d
                            WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
        RAISE NOTICE 'dropping %: no file of sql/functions defines it', v_stale.fn;
        EXECUTE pg_catalog.format('DROP %s %s',
            CASE v_stale.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, v_stale.fn);
    END LOOP;
    FOR v_stale IN
        SELECT DISTINCT p.oid::regprocedure AS fn, p.prokind, a.grantee
          FROM pg_catalog.pg_proc AS p
         CROSS JOIN LATERAL pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) AS a
         WHERE p.pronamespace = ANY (c_schemas) AND a.grantee <> p.proowner
           AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend AS d
                            WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s %s FROM %s',
            CASE v_stale.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, v_stale.fn,
            CASE v_stale.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(v_stale.grantee::regrole::text) END);
    END LOOP;
END
$prune$;
"#;

/// The operator running `migrate` needs the server's own words to fix a broken file.
fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_latest_version_is_the_highest_migration_file() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql/migrations");
        let highest = std::fs::read_dir(folder)
            .unwrap()
            .filter_map(|entry| {
                let name = entry.unwrap().file_name().into_string().unwrap();
                name.strip_prefix('V')?.split_once("__")?.0.parse::<i64>().ok()
            })
            .max()
            .unwrap();
        assert_eq!(super::latest_version(), highest);
    }
}
