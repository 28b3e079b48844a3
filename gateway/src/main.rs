//! `ingest serve` runs the API (and, in later issues, the webhook worker); `ingest migrate` brings
//! the database schema up to date. Settings come from the environment (see the README).

use std::process::ExitCode;

use gateway::{config::Config, migrate, server, telemetry};

const USAGE: &str = "usage: ingest <serve|migrate>";

fn main() -> ExitCode {
    telemetry::init();
    let command = std::env::args().nth(1);
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
        .and_then(|runtime| match command.as_deref() {
            Some("serve") => runtime.block_on(server::run(Config::from_env()?)),
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
