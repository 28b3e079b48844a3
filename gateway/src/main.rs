//! `ingest serve` runs the API and the webhook worker; `ingest webhooks` runs the webhook worker
//! alone; `ingest migrate` brings the database schema up to date; `ingest openapi` prints the
//! OpenAPI document (for `BASE_PATH`, default `/v1`). Settings come from the
//! environment (see gateway/README.md).

use std::process::ExitCode;

use gateway::{allocator, config::Config, migrate, openapi, scheduling::CpuScheduling, server, telemetry};

const USAGE: &str = "usage: ingest <serve|webhooks|migrate|openapi>";

fn main() -> ExitCode {
    allocator::return_large_buffers_to_the_system();
    // Before any thread is started: every thread takes the policy of the one that starts it.
    let scheduling = CpuScheduling::from_lookup(|name| std::env::var(name).ok()).map(|policy| (policy, policy.apply()));
    let _log_writer = telemetry::init();
    if let Ok((policy, Err(reason))) = &scheduling {
        tracing::warn!(?policy, %reason, "CPU_SCHEDULING could not be applied: the policy the process started with stays");
    }
    let command = std::env::args().nth(1);
    let outcome = scheduling
        .and_then(|_| {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the runtime: {e}"))
        })
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
