//! The programs the driver runs to their end: psql, the local cluster's script, and any command
//! whose standard output is its answer.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub type Fallible<T> = Result<T, Box<dyn std::error::Error>>;

/// Runs `command` to its end with `input` on its standard input: its standard output, or an error
/// naming the program with its standard error when it fails.
pub fn output_with_input(command: &mut Command, input: &str) -> Fallible<String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    child.stdin.take().expect("piped").write_all(input.as_bytes())?;
    let done = child.wait_with_output()?;
    if !done.status.success() {
        return Err(format!("{program} failed: {}", String::from_utf8_lossy(&done.stderr).trim()).into());
    }
    Ok(String::from_utf8(done.stdout)?)
}

/// Runs `command` to its end: its standard output.
pub fn output(command: &mut Command) -> Fallible<String> {
    output_with_input(command, "")
}

/// The answer of `sql` (one statement or several) on `url`, unaligned and without psql's closing
/// line break; psql stops at the first error.
pub fn psql(url: &str, sql: &str) -> Fallible<String> {
    psql_with(url, &[], sql)
}

/// As [`psql`], the script given psql variables (`:'name'` in it), which keep values out of the
/// SQL text.
pub fn psql_with(url: &str, variables: &[(&str, &str)], sql: &str) -> Fallible<String> {
    let mut command = Command::new("psql");
    command.args([url, "-XAtq", "-v", "ON_ERROR_STOP=1"]);
    for (name, value) in variables {
        command.arg("-v").arg(format!("{name}={value}"));
    }
    Ok(output_with_input(&mut command, sql)?.trim_end_matches('\n').to_string())
}

/// The local cluster (`sql/dev/cluster.sh`), and a standby of it.
pub struct Cluster {
    script: PathBuf,
}

impl Cluster {
    pub fn new(root: &Path) -> Cluster {
        Cluster { script: root.join("sql/dev/cluster.sh") }
    }

    /// `sql/dev/cluster.sh` with `arguments`, its output shown as it runs.
    pub fn run(&self, arguments: &[&str]) -> Fallible<()> {
        let status = Command::new(&self.script).args(arguments).status()?;
        if !status.success() {
            return Err(format!("sql/dev/cluster.sh {} failed", arguments.join(" ")).into());
        }
        Ok(())
    }

    /// The connection string of `database` as `role`.
    pub fn url(&self, database: &str, role: &str) -> Fallible<String> {
        Ok(output(Command::new(&self.script).args(["url", database, role]))?.trim().to_string())
    }

    /// The same on the standby.
    pub fn standby_url(&self, database: &str, role: &str) -> Fallible<String> {
        Ok(output(Command::new(&self.script).args(["standby-url", database, role]))?.trim().to_string())
    }
}
