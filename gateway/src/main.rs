//! `ingest serve` runs the API and the webhook worker; `ingest webhooks` runs the webhook worker
//! alone; `ingest migrate` brings the database schema up to date; `ingest openapi` prints the
//! OpenAPI document (for `BASE_PATH`, default `/v1`). Settings come from the
//! environment (see gateway/README.md).

use std::process::ExitCode;

use gateway::{allocator, config::Config, migrate, openapi, server, telemetry};

const USAGE: &str = "usage: ingest <serve|webhooks|migrate|openapi>";

fn main() -> ExitCode {
    allocator::return_large_buffers_to_the_system();
    let _log_writer = telemetry::init();
    let command = std::env::args().nth(1);
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
        .and_then(|runtime| match command.as_deref() {
            Some("serve") => runtime.block_on(server::run(Config::from_env()?)),
            Some("webhooks") => runtime.block_on(server::run_webhook_worker(Config::from_env()?)),
            Some("openapi") => {
                let base_path = std::env::var("BASE_PATH").unwrap_or_else(|_| "/v1".into());
                println!("{:#}", openapi::document(&base_path));
                Ok(())
            }
            Some("migrate") => runtime.block_on(migrate::run(&Config::from_env()?.database_url)),
            _ => Err(USAGE.to_string()),
        });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ingest: {message}");
            ExitCode::FAILURE
        }
    }
}
