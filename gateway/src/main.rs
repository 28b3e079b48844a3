//! `ingest serve` runs the API and the webhook worker; `ingest webhooks` runs the webhook worker
//! alone; `ingest migrate` brings the database schema up to date; `ingest openapi` prints the
//! OpenAPI document (for `BASE_PATH`, default `/v1`); `ingest config` prints the settings in force
//! (secrets only as set or unset). Settings come from the environment, read once (`config`; see
//! gateway/README.md).

use std::process::ExitCode;

use gateway::config::{self, Config};
use gateway::{allocator, db_tls, migrate, openapi, server, telemetry};

const USAGE: &str = "usage: ingest <serve|webhooks|migrate|openapi|config>";

fn main() -> ExitCode {
    allocator::return_large_buffers_to_the_system();
    let environment = |name: &str| std::env::var(name).ok();
    let command = std::env::args().nth(1);
    let outcome = config::process_settings(&environment).and_then(|process| {
        // Before any thread is started: every thread takes the policy of the one that starts it.
        let scheduled = process.cpu_scheduling.apply();
        let _log_writer = telemetry::init(&process.log_filter);
        if let Err(reason) = scheduled {
            tracing::warn!(policy = ?process.cpu_scheduling, %reason, "CPU_SCHEDULING could not be applied: the policy the process started with stays");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime: {e}"))?;
        match command.as_deref() {
            Some("serve") => runtime.block_on(server::run(Config::from_env()?)),
            Some("webhooks") => runtime.block_on(server::run_webhook_worker(Config::from_env()?)),
            Some("openapi") => {
                println!("{:#}", openapi::document(&config::base_path(&environment)?));
                Ok(())
            }
            Some("migrate") => runtime.block_on(migrate::run(&Config::from_env()?.database_url)),
            Some("config") => {
                print!("{}", Config::from_env()?.effective(db_tls::describe));
                Ok(())
            }
            _ => Err(USAGE.to_string()),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ingest: {message}");
            ExitCode::FAILURE
        }
    }
}
