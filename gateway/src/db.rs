//! The connection pool and the one way handlers reach the database.
//!
//! Connections are made lazily and switch to `DATABASE_ROLE` once, when created. Statements are
//! prepared once per connection and cached, so a request is one round trip (Bind/Execute/Sync).
//! Every call runs under one deadline (`DATABASE_TIMEOUT_MS`) covering the wait for a connection
//! and the statement; past it the answer is 503 `try_again` and the connection is discarded.

use std::time::Duration;

use deadpool_postgres::{Hook, HookError, Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio::time::{timeout, Instant};
use tokio_postgres::types::ToSql;
use tokio_postgres::NoTls;

use crate::config::Config;
use crate::errors::ApiError;

/// What an `api.*` function answers: the HTTP status and the JSON body text.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
}

#[derive(Clone)]
pub struct Database {
    pool: Pool,
    deadline: Duration,
}

impl Database {
    /// Builds the pool; no connection is opened until the first request needs one, so the
    /// gateway starts (and answers 503) while the database is down.
    pub fn new(config: &Config) -> Result<Self, String> {
        let mut pg: tokio_postgres::Config = config
            .database_url
            .parse()
            .map_err(|_| "DATABASE_URL is not a valid PostgreSQL connection string".to_string())?;
        pg.connect_timeout(config.database_timeout);
        pg.application_name("ingest-gateway");

        let role = config.database_role.clone();
        let statement_timeout = config.database_timeout.as_millis().to_string();
        let manager = Manager::from_config(
            pg,
            NoTls,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(config.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(config.database_timeout))
            .create_timeout(Some(config.database_timeout))
            .recycle_timeout(Some(config.database_timeout))
            .post_create(Hook::async_fn(move |client, _| {
                let role = role.clone();
                let statement_timeout = statement_timeout.clone();
                Box::pin(async move {
                    client
                        .execute(
                            "SELECT set_config('role', coalesce($1, current_user), false), \
                                    set_config('statement_timeout', $2, false)",
                            &[&role, &statement_timeout],
                        )
                        .await
                        .map_err(HookError::Backend)?;
                    Ok(())
                })
            }))
            .build()
            .map_err(|_| "the database pool could not be built".to_string())?;
        Ok(Database { pool, deadline: config.database_timeout })
    }

    /// Runs `sql`, a statement answering one row `(status integer, body text)`.
    pub async fn call(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Answer, ApiError> {
        let started = Instant::now();
        let client = match timeout(self.deadline, self.pool.get()).await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => return Err(ApiError::from_pool(&error)),
            Err(_) => return Err(ApiError::database_unavailable("pool wait timed out")),
        };
        let remaining = self.deadline.saturating_sub(started.elapsed());
        match timeout(remaining, query(&client, sql, params)).await {
            Ok(Ok(row)) => answer(&row),
            Ok(Err(error)) => Err(ApiError::from_db(&error)),
            Err(_) => {
                // The statement may still be running; do not hand this connection to anyone else.
                drop(Object::take(client));
                Err(ApiError::database_unavailable("statement timed out"))
            }
        }
    }

    /// Stops handing out connections and closes the idle ones.
    pub fn close(&self) {
        self.pool.close();
    }
}

/// Reads `(status integer, body text)`; any other shape is a fault of ours, never a panic.
fn answer(row: &tokio_postgres::Row) -> Result<Answer, ApiError> {
    let status = row.try_get::<_, i32>(0).ok().and_then(|status| u16::try_from(status).ok());
    match (status, row.try_get::<_, String>(1)) {
        (Some(status), Ok(body)) => Ok(Answer { status, body }),
        _ => Err(ApiError::internal("the function answered an unexpected row")),
    }
}

async fn query(
    client: &Object,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<tokio_postgres::Row, tokio_postgres::Error> {
    let statement = client.prepare_cached(sql).await?;
    client.query_one(&statement, params).await
}
