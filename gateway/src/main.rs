//! `ingest serve` runs the API and the webhook worker; `ingest webhooks` runs the webhook worker
//! alone; `ingest migrate` brings the database schema up to date; `ingest openapi` prints the
//! OpenAPI document (for `BASE_PATH`, default `/v1`), and `ingest openapi --html` the page that
//! `<root>/docs` serves; `ingest config` prints the settings in force (secrets only as set or
//! unset). Settings come from the environment, read once (`config`; docs/reference/settings.md).

use std::process::ExitCode;

use gateway::config::{self, Config};
use gateway::{allocator, db_tls, migrate, openapi, server, telemetry};

const USAGE: &str = "usage: ingest <serve|webhooks|migrate|openapi [--html]|config>";

fn main() -> ExitCode {
    allocator::return_large_buffers_to_the_system();
    let environment = |name: &str| std::env::var(name).ok();
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
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
        match arguments[..] {
            ["serve"] => runtime.block_on(server::run(Config::from_env()?)),
            ["webhooks"] => runtime.block_on(server::run_webhook_worker(Config::from_env()?)),
            ["openapi"] => print(&format!("{:#}\n", openapi::document(&config::base_path(&environment)?))),
            ["openapi", "--html"] => {
                print(&openapi::page::page(&openapi::document(&config::base_path(&environment)?)).html)
            }
            ["migrate"] => runtime.block_on(migrate::run(&Config::from_env()?.database_url)),
            ["config"] => print(&Config::from_env()?.effective(db_tls::describe)),
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

/// Writes `text` to standard output; a reader that has gone (`ingest openapi | head`) ends the
/// command quietly, as it would any other Unix tool.
fn print(text: &str) -> Result<(), String> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write: {error}")),
        _ => Ok(()),
    }
}
