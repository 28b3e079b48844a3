//! `migrate`: the versioned migrations (refinery, embedded from `sql/migrations`), then every file
//! of `sql/functions` (CREATE OR REPLACE) in one transaction as the owner role. Afterwards the
//! functions, triggers and function grants of the project's schemas are exactly those of the tree: a
//! function or trigger the tree no longer defines is dropped, and a grant no file makes is taken
//! back; the fingerprint of the functions then in force is recorded (`app.deployed_rules`). A
//! trigger is made again only when its definition changed ([`triggers`]). Last, the login roles get
//! the settings that keep secrets out of the server log. Re-runnable; an advisory lock makes
//! concurrent runs (several instances starting at once) take turns, each waiting for the one before.
//!
//! Every other lock a run's statement needs is waited for at most [`Patience::lock_timeout`]: a
//! statement queued behind a long transaction would otherwise queue every request that needs the same
//! table behind itself. The run then rolls back what it was doing, pauses and tries again, and after
//! [`Patience::attempts`] tries stops with a message naming the lock and the sessions holding it
//! ([`lock_wait`]).

use std::time::Duration;

use crate::db_tls::DatabaseLink;

mod lock_wait;
mod triggers;

mod embedded {
    refinery::embed_migrations!("../sql/migrations");
}

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// The session-level advisory lock every run holds from start to end: any 64-bit number unique to
/// this purpose.
pub const MIGRATION_LOCK: i64 = 0x696e_6765_7374_6d67;

/// The longest the lock watcher's connection may take to open, or to close at the end.
const WATCHER_DEADLINE: Duration = Duration::from_secs(5);

/// How long a run waits for locks, and how often it tries.
#[derive(Debug, Clone, Copy)]
pub struct Patience {
    /// The longest one statement waits for a lock (`lock_timeout`); the migration lock is exempt.
    pub lock_timeout: Duration,
    /// Tries before the run gives up; between them it pauses `pause` times the tries made so far.
    pub attempts: u32,
    pub pause: Duration,
}

impl Default for Patience {
    /// 5 s a wait, 4 tries, pauses of 2, 4 and 6 s: a run gives up within about half a minute, and
    /// while it waits, requests needing the same table wait at most 5 s behind it.
    fn default() -> Self {
        Patience { lock_timeout: Duration::from_secs(5), attempts: 4, pause: Duration::from_secs(2) }
    }
}

/// The highest migration this binary holds: the schema version `migrate` brings a database to, and
/// the one readiness expects (`api.functions_version()` at least this).
pub fn latest_version() -> i64 {
    embedded::migrations::runner().get_migrations().iter().map(|m| i64::from(m.version())).max().unwrap_or(0)
}

pub async fn run(database_url: &str) -> Result<(), String> {
    run_with(database_url, Patience::default()).await
}

/// A step of a run that failed, and whether it failed because it waited too long for a lock.
struct Failure {
    message: String,
    lock_timeout: bool,
}

impl Failure {
    fn new(step: &str, error: &tokio_postgres::Error) -> Failure {
        Failure { message: format!("{step}: {}", describe(error)), lock_timeout: is_lock_timeout(error) }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { message, lock_timeout: false }
    }
}

fn is_lock_timeout(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE)
}

pub async fn run_with(database_url: &str, patience: Patience) -> Result<(), String> {
    let link = DatabaseLink::parse(database_url, "DATABASE_URL")?;
    let connect = || async {
        let (client, connection) = link
            .connect()
            .await
            .map_err(|error| format!("cannot connect to the database: {}", link.explain(&error)))?;
        Ok::<_, String>((client, tokio::spawn(connection)))
    };
    let (mut client, connection) = connect().await?;

    // The migration lock is waited for as long as it takes (runs take turns); every other lock not
    // longer than the patience allows.
    client
        .batch_execute("SET lock_timeout = 0")
        .await
        .map_err(|e| format!("cannot set the lock timeout: {}", describe(&e)))?;
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| format!("cannot take the migration lock: {e}"))?;
    client
        .batch_execute(&format!("SET lock_timeout = '{}ms'", patience.lock_timeout.as_millis().max(1)))
        .await
        .map_err(|e| format!("cannot set the lock timeout: {}", describe(&e)))?;
    let pid: i32 = client
        .query_one("SELECT pg_backend_pid()", &[])
        .await
        .map_err(|e| format!("cannot read the session's pid: {}", describe(&e)))?
        .get(0);
    // The watcher is a help, not a need: without it (no connection within its deadline) a run that
    // gives up says "a lock" instead of naming it.
    let every = (patience.lock_timeout / 10).clamp(Duration::from_millis(20), Duration::from_millis(250));
    let (watch, watcher_connection) = match tokio::time::timeout(WATCHER_DEADLINE, connect()).await {
        Ok(Ok((watcher, connection))) => (Some(lock_wait::LockWatch::start(watcher, pid, every)), Some(connection)),
        _ => (None, None),
    };

    let mut attempt = 1;
    loop {
        match migrate_once(&mut client).await {
            Ok(()) => break,
            Err(failure) if failure.lock_timeout => {
                let waited =
                    watch.as_ref().and_then(lock_wait::LockWatch::take).unwrap_or_else(|| "a lock".to_string());
                if attempt >= patience.attempts {
                    return Err(format!(
                        "gave up after {attempt} tries, each waiting {} ms for {waited} ({}); end what holds it, or run \
                         migrate again once it is done",
                        patience.lock_timeout.as_millis(),
                        failure.message
                    ));
                }
                tracing::warn!(attempt, waited = %waited, "a migration statement waited too long for a lock; trying again");
                tokio::time::sleep(patience.pause * attempt).await;
                attempt += 1;
            }
            Err(failure) => return Err(failure.message),
        }
    }
    // (the watcher's client goes with its task: its connection then ends, and is waited for briefly)
    drop(watch);
    if let Some(connection) = watcher_connection {
        let _ = tokio::time::timeout(WATCHER_DEADLINE, connection).await;
    }
    keep_secrets_out_of_the_server_log(&client).await?;
    keep_advisory_locks_to_the_owner(&client).await?;
    keep_temporary_objects_from_public(&client).await?;
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| format!("cannot release the migration lock: {e}"))?;

    drop(client);
    let _ = connection.await;
    Ok(())
}

/// One try: the migrations not yet applied (each in its own transaction: those before a failed one
/// stay applied, and the next try goes on from there), then the functions.
async fn migrate_once(client: &mut tokio_postgres::Client) -> Result<(), Failure> {
    let log_applied = |report: &refinery::Report| {
        for migration in report.applied_migrations() {
            tracing::info!(migration = %migration, "applied");
        }
    };
    let report = embedded::migrations::runner().run_async(client).await.map_err(|error| {
        error.report().map(log_applied);
        let source = match error.kind() {
            refinery::error::Kind::Connection(_, source) => source.downcast_ref::<tokio_postgres::Error>(),
            _ => None,
        };
        Failure { message: format!("migration failed: {error}"), lock_timeout: source.is_some_and(is_lock_timeout) }
    })?;
    log_applied(&report);
    apply_functions(client).await
}

/// Applies every function file twice in one transaction: first without checking function bodies,
/// so that the files need no order among themselves, then again with the checks, so that a body
/// referring to something missing still fails the migration. Between the two passes, what the tree
/// no longer defines is dropped and every function grant is taken back, so the second pass leaves
/// exactly the tree's grants. The files' trigger statements are taken out and run after the first
/// pass, each only when its trigger is not in force ([`triggers`]), before anything is dropped.
async fn apply_functions(client: &mut tokio_postgres::Client) -> Result<(), Failure> {
    let mut files = Vec::with_capacity(FUNCTION_FILES.len());
    let mut definitions = Vec::new();
    for (name, sql) in FUNCTION_FILES {
        let (rest, mut defined) = triggers::split(name, sql)?;
        files.push((name, rest));
        definitions.append(&mut defined);
    }
    let transaction = client.transaction().await.map_err(|e| Failure::new("functions", &e))?;
    let mut made = 0;
    for checks in ["off", "on"] {
        transaction
            .batch_execute(&format!("SET LOCAL ROLE ingest_owner; SET LOCAL check_function_bodies = {checks}"))
            .await
            .map_err(|e| Failure::new("functions", &e))?;
        for (name, sql) in &files {
            transaction.batch_execute(sql).await.map_err(|e| Failure::new(name, &e))?;
        }
        if checks == "off" {
            made = triggers::make_changed(&transaction, &definitions).await?;
            triggers::drop_undefined(&transaction, &definitions).await?;
            transaction
                .batch_execute(PRUNE_WHAT_THE_TREE_DOES_NOT_DEFINE)
                .await
                .map_err(|e| Failure::new("removing functions the tree no longer defines", &e))?;
        }
    }
    // The fingerprint of the rules now in force: a stored digest of an accepted lot body made under
    // other rules no longer matches (app.lot_body_digest).
    transaction
        .batch_execute("SELECT app.deployed_rules_refresh()")
        .await
        .map_err(|e| Failure::new("recording the rules in force", &e))?;
    transaction.commit().await.map_err(|e| Failure::new("functions", &e))?;
    tracing::info!(files = FUNCTION_FILES.len(), triggers_made = made, "functions applied");
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

/// Takes the advisory-lock functions from PUBLIC in the migrated database and gives back only what
/// the project uses: `ingest_owner` takes the bookings feed's writer locks
/// (`pg_advisory_xact_lock_shared(integer, integer)`, in the functions it owns), tries an
/// operator's presence lock for a poll (`pg_try_advisory_xact_lock(integer, integer)`) and, through its
/// members, the migration lock (`pg_advisory_lock(bigint)`, which a CREATEROLE migrating account
/// inherits as a member of `ingest_owner`). `pg_locks` shows any writer's key, so a login that may
/// take advisory locks could take an operator's writer key and hold it: that operator's watermark,
/// on the primary and in the standby's publication, would stay where it is, and its cursor stop
/// advancing. Privileges on `pg_catalog`'s functions need a superuser (they belong to the bootstrap
/// superuser); without one, every run while PUBLIC may still take them says so, naming the
/// statements a superuser runs once.
async fn keep_advisory_locks_to_the_owner(client: &tokio_postgres::Client) -> Result<(), String> {
    let row = client
        .query_one(
            "SELECT coalesce((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false), \
                    pg_catalog.has_function_privilege('public', 'pg_catalog.pg_advisory_xact_lock_shared(integer, integer)', 'EXECUTE'), \
                    pg_catalog.has_function_privilege('ingest_owner', 'pg_catalog.pg_try_advisory_xact_lock(integer, integer)', 'EXECUTE')",
            &[],
        )
        .await
        .map_err(|e| format!("advisory locks: {}", describe(&e)))?;
    let (superuser, open_to_public, owner_tries): (bool, bool, bool) = (row.get(0), row.get(1), row.get(2));
    if superuser {
        client.batch_execute(ADVISORY_LOCKS_TO_THE_OWNER).await.map_err(|e| format!("advisory locks: {}", describe(&e)))
    } else if !open_to_public {
        // (a superuser took them away already, perhaps before the poll's presence lock existed:
        // app.booking_writers_none then answers false, and every poll reads pg_locks)
        if !owner_tries {
            tracing::warn!(
                "polls read the lock table: have a superuser run GRANT EXECUTE ON FUNCTION \
                 pg_try_advisory_xact_lock(integer, integer) TO ingest_owner in this database"
            );
        }
        Ok(())
    } else {
        tracing::warn!(
            "any database login may take the bookings feed's writer lock and hold an operator's feed still: run \
             migrate as a superuser, or have one run the statements of docs/operating.md, \"The database and its \
             roles\", in this database"
        );
        Ok(())
    }
}

/// Takes `TEMPORARY` on the migrated database from PUBLIC again at every run, so a grant made
/// since (by hand, or a restore) does not stay: a temporary object could shadow one the functions
/// use wherever `pg_temp` comes first. Only the database's owner or a superuser may; any other
/// migrating account warns while PUBLIC holds it, naming the statement its owner runs.
async fn keep_temporary_objects_from_public(client: &tokio_postgres::Client) -> Result<(), String> {
    let row = client
        .query_one(
            "SELECT pg_catalog.has_database_privilege('public', pg_catalog.current_database(), 'TEMPORARY'), \
                    pg_catalog.pg_has_role((SELECT datdba FROM pg_catalog.pg_database \
                                             WHERE datname = pg_catalog.current_database()), 'USAGE'), \
                    pg_catalog.quote_ident(pg_catalog.current_database())",
            &[],
        )
        .await
        .map_err(|e| format!("TEMPORARY: {}", describe(&e)))?;
    let (open_to_public, may_revoke, database): (bool, bool, String) = (row.get(0), row.get(1), row.get(2));
    if !open_to_public {
        Ok(())
    } else if may_revoke {
        let revoke = format!("REVOKE TEMPORARY ON DATABASE {database} FROM PUBLIC");
        client.batch_execute(&revoke).await.map_err(|e| format!("TEMPORARY: {}", describe(&e)))
    } else {
        tracing::warn!(
            "PUBLIC may create temporary objects in this database, which could shadow what the functions use: \
             have its owner run REVOKE TEMPORARY ON DATABASE {database} FROM PUBLIC"
        );
        Ok(())
    }
}

/// Every function that takes an advisory lock (the unlocking ones release only the caller's own).
const ADVISORY_LOCKS_TO_THE_OWNER: &str = r#"
DO $advisory$
DECLARE
    v_lock regprocedure;
BEGIN
    FOR v_lock IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc AS p
         WHERE p.pronamespace = 'pg_catalog'::regnamespace
           AND p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$'
    LOOP
        EXECUTE pg_catalog.format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', v_lock);
    END LOOP;
END
$advisory$;
GRANT EXECUTE ON FUNCTION pg_catalog.pg_advisory_xact_lock_shared(integer, integer) TO ingest_owner;
GRANT EXECUTE ON FUNCTION pg_catalog.pg_try_advisory_xact_lock(integer, integer) TO ingest_owner;
GRANT EXECUTE ON FUNCTION pg_catalog.pg_advisory_lock(bigint) TO ingest_owner;
"#;

/// Run as the owner right after the first pass (and after the tree's triggers are in force and the
/// others dropped). CREATE OR REPLACE rewrites the catalog row of every function a file defines, so
/// within this transaction those rows carry its id: any function of the project's schemas
/// (extension members aside) whose row does not was not defined by the tree, and is dropped — a
/// stale SECURITY DEFINER function never stays callable. Without CASCADE: something a migration
/// made that still uses a dropped function fails the migration instead of vanishing with it. Then every grant on a function but
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
