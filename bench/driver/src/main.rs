//! `make bench`'s driver: the gateway and its SQL measured against PostgreSQL's own limit, for
//! each data size of `bench/generate.sql`, on a fresh database of the local cluster.
//!
//!   bench-driver               the run: every size and route (settings: the `BENCH_*` variables,
//!                              `settings.rs`), its measurements to bench/RESULTS.jsonl, then
//!                              bench/RESULTS.md made from them
//!   bench-driver render [EARLIER.jsonl]
//!                              RESULTS.md made again from the measurements alone (with an
//!                              earlier run's, for the comparison)
//!
//! Exit status: 0 when every measurement the run's settings promise was taken (a target missed
//! is reported, not failed: the figures are for people to read); 2 when one is missing; 1 when
//! the run could not be made.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use driver::measurements::{Measurements, Recorder};
use driver::settings::Settings;
use driver::shell::{output_with_input, Fallible};
use driver::{render, steps};

/// The line of RESULTS.md above which it is written by hand, and kept.
const MARKER: &str =
    "<!-- make bench (bench/driver) keeps everything above this line and writes everything below it -->";

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let outcome = Settings::from_env(root, cores).and_then(|settings| match arguments.as_slice() {
        [] => run(&settings),
        [command] if command == "render" => render(&settings, None),
        [command, earlier] if command == "render" => render(&settings, Some(Path::new(earlier))),
        _ => Err("usage: bench-driver [render [EARLIER.jsonl]]".into()),
    });
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The run: measurements appended to RESULTS.jsonl.new as they are taken (kept if the run
/// fails), which becomes RESULTS.jsonl at the end, the run before it read as the earlier one.
fn run(settings: &Settings) -> Fallible<ExitCode> {
    let data = settings.measurements_file();
    let taking: PathBuf = data.with_extension("jsonl.new");
    let earlier = data.is_file().then(|| Measurements::load(&data)).transpose()?;
    let mut recorder = Recorder::create(&taking)?;
    if let Err(e) = steps::run(settings, &mut recorder) {
        return Err(format!("{e} (what was measured is in {})", taking.display()).into());
    }
    std::fs::rename(&taking, &data)?;
    // Rendered from the file as `render` reads it, not from the values in memory: a float read back
    // can differ in its last bit, enough to round a shown figure the other way.
    write_results(settings, &Measurements::load(&data)?, earlier.as_ref())
}

fn render(settings: &Settings, earlier: Option<&Path>) -> Fallible<ExitCode> {
    let now = Measurements::load(&settings.measurements_file())?;
    let earlier = earlier.map(Measurements::load).transpose()?;
    write_results(settings, &now, earlier.as_ref())
}

/// RESULTS.md: its hand-written head kept (bench/results_file.sh), the rest made from `now`.
fn write_results(settings: &Settings, now: &Measurements, earlier: Option<&Measurements>) -> Fallible<ExitCode> {
    let (text, judged) = render::results(now, earlier);
    output_with_input(
        Command::new(settings.root.join("bench/results_file.sh")).arg(&settings.out).args([MARKER, "Benchmarks"]),
        &text,
    )?;
    eprintln!("written: {}", settings.out.display());
    if judged.missing.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("bench: measurements the run's settings promise are missing:");
    for missing in &judged.missing {
        eprintln!("  {missing}");
    }
    Ok(ExitCode::from(2))
}
