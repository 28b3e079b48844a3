//! `migrate`: the versioned migrations (refinery, embedded from `sql/migrations`), then every file
//! of `sql/functions` (CREATE OR REPLACE) in one transaction as the owner role. Re-runnable; an
//! advisory lock makes concurrent runs (several instances starting at once) take turns.

use tokio_postgres::NoTls;

mod embedded {
    refinery::embed_migrations!("../sql/migrations");
}

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// Any 64-bit number unique to this purpose.
const MIGRATION_LOCK: i64 = 0x696e_6765_7374_6d67;

pub async fn run(database_url: &str) -> Result<(), String> {
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls)
        .await
        .map_err(|e| format!("cannot connect to the database: {e}"))?;
    let connection = tokio::spawn(connection);

    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| format!("cannot take the migration lock: {e}"))?;
    let report = embedded::migrations::runner()
        .run_async(&mut client)
        .await
        .map_err(|e| format!("migration failed: {e}"))?;
    for migration in report.applied_migrations() {
        tracing::info!(migration = %migration, "applied");
    }
    apply_functions(&mut client).await?;
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
/// referring to something missing still fails the migration.
async fn apply_functions(client: &mut tokio_postgres::Client) -> Result<(), String> {
    let transaction = client.transaction().await.map_err(|e| format!("functions: {e}"))?;
    for checks in ["off", "on"] {
        transaction
            .batch_execute(&format!("SET LOCAL ROLE ingest_owner; SET LOCAL check_function_bodies = {checks}"))
            .await
            .map_err(|e| format!("functions: {e}"))?;
        for (name, sql) in FUNCTION_FILES {
            transaction
                .batch_execute(sql)
                .await
                .map_err(|e| format!("sql/functions/{name}: {}", describe(&e)))?;
        }
    }
    transaction.commit().await.map_err(|e| format!("functions: {e}"))?;
    tracing::info!(files = FUNCTION_FILES.len(), "functions applied");
    Ok(())
}

/// The operator running `migrate` needs the server's own words to fix a broken file.
fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}
