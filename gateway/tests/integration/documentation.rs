//! The markdown held against the repository and the code, so that what can go stale mechanically
//! cannot: every path a page names and every link it makes exist inside the repository (a link to
//! a heading finds that heading), no link leaves the repository, every `make` target named exists,
//! the settings table is the settings record's (every setting read is a row with the default
//! `ingest config` prints, every row is read), the error table a client reads is rendered from the
//! codes table the document is made from, and the metrics table is what the process registers,
//! each with its type. The table of codes as the SQL raises them is held by
//! [`crate::error_codes`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folders that are not the repository's own text: build output, the local cluster, vendored
/// third-party files.
const NOT_OURS: &[&str] = &["target", ".pg", ".git", "node_modules", "gateway/vendor"];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().canonicalize().unwrap()
}

/// The repository's markdown: the files git tracks (and any not yet added), vendored ones aside.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let listed = std::process::Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "*.md"])
        .current_dir(root)
        .output()
        .expect("git lists the repository's files");
    assert!(listed.status.success(), "git ls-files: {}", String::from_utf8_lossy(&listed.stderr));
    let mut found: Vec<PathBuf> = listed
        .stdout
        .split(|byte| *byte == 0)
        .filter_map(|name| std::str::from_utf8(name).ok())
        .filter(|name| !name.is_empty() && !NOT_OURS.iter().any(|skip| name.starts_with(&format!("{skip}/"))))
        .map(|name| root.join(name))
        .filter(|path| path.exists())
        .collect();
    found.sort();
    found
}

/// The text in code: inline code spans and fenced blocks, each as one string.
fn code_of(markdown: &str) -> Vec<String> {
    let mut code = Vec::new();
    let mut fenced: Option<String> = None;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            match fenced.take() {
                Some(block) => code.push(block),
                None => fenced = Some(String::new()),
            }
            continue;
        }
        match &mut fenced {
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => code.extend(line.split('`').skip(1).step_by(2).map(str::to_string)),
        }
    }
    code
}

/// `[text](target)` links outside code, and their targets.
fn links_of(markdown: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.extend(line.split('`').step_by(2).flat_map(|part| [part, " "]));
            prose.push('\n');
        }
    }
    prose
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.trim().to_string()))
        .chain(prose.split('<').skip(1).filter_map(|rest| {
            let (inside, _) = rest.split_once('>')?;
            inside.contains("://").then(|| inside.to_string())
        }))
        .collect()
}

/// A heading's anchor as markdown renderers make it: lower case, spaces to hyphens, punctuation
/// but hyphens and underscores dropped.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors_of(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut anchors = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            anchors.insert(anchor_of(line.trim_start_matches('#')));
        }
    }
    anchors
}

/// Whether a word in code reads as a path of the repository: it starts with one of the
/// repository's own top-level entries and names no placeholder.
fn as_repository_path<'a>(word: &'a str, top_level: &BTreeSet<String>) -> Option<&'a str> {
    let word = word.trim_matches(|c: char| "\"'(),;:".contains(c));
    let word = word.split(['#', ':']).next().unwrap_or(word).trim_end_matches('/');
    let first = word.split('/').next()?;
    let placeholder = word.contains(['<', '{', '*', '…', '$', '[']) || word.contains("NN") || word.contains("...");
    (word.contains('/') && top_level.contains(first) && !placeholder).then_some(word)
}

#[test]
fn every_path_and_link_in_the_markdown_is_inside_the_repository_and_exists() {
    let root = repository();
    let top_level: BTreeSet<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| !NOT_OURS.contains(&name.as_str()))
        .collect();
    let mut faults = Vec::new();
    let files = markdown_files(&root);
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        for code in code_of(&text) {
            for word in code.split_whitespace() {
                if let Some(path) = as_repository_path(word, &top_level) {
                    if !root.join(path).exists() {
                        faults.push(format!("{name}: names `{path}`, which is not in the repository"));
                    }
                }
            }
        }
        for link in links_of(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                if !link.starts_with("http://127.0.0.1") && !link.starts_with("http://localhost") {
                    faults.push(format!("{name}: links {link}, outside the repository"));
                }
                continue;
            }
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() { file.clone() } else { file.parent().unwrap().join(path) };
            let Ok(target) = target.canonicalize() else {
                faults.push(format!("{name}: links {link}, which does not exist"));
                continue;
            };
            if !target.starts_with(&root) {
                faults.push(format!("{name}: links {link}, outside the repository"));
            } else if !anchor.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let anchors = anchors_of(&std::fs::read_to_string(&target).unwrap());
                if !anchors.contains(anchor) {
                    faults.push(format!("{name}: links {link}: no such heading (headings: {anchors:?})"));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_make_target_the_markdown_names_exists() {
    let root = repository();
    let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
    let targets: BTreeSet<&str> = makefile
        .lines()
        .filter_map(|line| line.split_once(':').map(|(name, _)| name))
        .filter(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
        .collect();
    let mut faults = Vec::new();
    for file in markdown_files(&root) {
        let text = std::fs::read_to_string(&file).unwrap();
        for code in code_of(&text) {
            let words: Vec<&str> = code.split_whitespace().collect();
            for pair in words.windows(2) {
                // (the name, up to what ends it: `make run's`, `make test)`)
                let target = pair[1].split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).next().unwrap();
                if pair[0] == "make" && !target.is_empty() && !pair[1].contains('=') && !targets.contains(target) {
                    faults.push(format!("{}: `make {target}` is not a target", file.display()));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}\nthe Makefile's targets: {targets:?}", faults.join("\n"));
}

#[test]
fn the_checks_read_what_they_mean_to() {
    let top_level = BTreeSet::from(["gateway".to_string(), "sql".to_string()]);
    assert_eq!(as_repository_path("(gateway/src/lib.rs:12),", &top_level), Some("gateway/src/lib.rs"));
    assert_eq!(as_repository_path("sql/tests/NN-topic.sql", &top_level), None);
    assert_eq!(as_repository_path("sql/migrations/V{n}__name.sql", &top_level), None);
    assert_eq!(as_repository_path("target/debug/ingest", &top_level), None);
    assert_eq!(as_repository_path("gateway/src/", &top_level), Some("gateway/src"));
    assert_eq!(anchor_of(" Errors: SQLSTATE to HTTP"), "errors-sqlstate-to-http");
    assert_eq!(anchor_of("The binary and `ingest migrate`"), "the-binary-and-ingest-migrate");
    let markdown = "See [a](b.md#c) and `[x](y)` and <https://example.com>.\n```\n[z](w)\n```\n";
    assert_eq!(links_of(markdown), vec!["b.md#c".to_string(), "https://example.com".to_string()]);
    assert_eq!(code_of(markdown), vec!["[x](y)".to_string(), "[z](w)\n".to_string()]);
}

/// The rows of the first table under `heading` in a reference page: each row's cells, for the rows
/// whose first cell is a name in backticks.
fn table_rows(page: &str, heading: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repository().join(page)).unwrap();
    let section = text.split_once(heading).unwrap_or_else(|| panic!("{page} has no {heading:?}")).1;
    section
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.trim().trim_matches('|').split(" | ").map(|cell| cell.trim().to_string()).collect::<Vec<_>>())
        .filter(|cells| cells[0].starts_with('`'))
        .collect()
}

#[test]
fn the_settings_table_holds_every_setting_the_binary_reads_with_its_default_and_nothing_else() {
    // Every name the settings record asks for, with the feed's standby set so that its own
    // settings are read too; the process-wide ones and `ingest openapi`'s as well.
    let read = std::sync::Mutex::new(BTreeSet::new());
    let given = [("DATABASE_URL", "host=db user=u dbname=d"), ("DATABASE_READ_URL", "host=standby user=u dbname=d")];
    let lookup = |name: &str| {
        read.lock().unwrap().insert(name.to_string());
        given.iter().find(|(given, _)| *given == name).map(|(_, value)| value.to_string())
    };
    let config = gateway::config::Config::from_lookup(lookup).unwrap();
    gateway::config::process_settings(&lookup).unwrap();
    gateway::config::base_path(&lookup).unwrap();
    let read = read.into_inner().unwrap();
    let printed: std::collections::BTreeMap<String, String> = config
        .effective(|url| url.to_string())
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, value)| (name.to_string(), value.to_string())))
        .collect();

    let rows = table_rows("docs/reference/settings.md", "## The gateway's settings");
    let documented: BTreeSet<String> = rows.iter().map(|cells| cells[0].trim_matches('`').to_string()).collect();
    assert_eq!(documented.len(), rows.len(), "a setting has two rows");
    let unread: Vec<&String> = documented.difference(&read).collect();
    let undocumented: Vec<&String> = read.difference(&documented).collect();
    assert!(unread.is_empty(), "docs/reference/settings.md lists settings the binary never reads: {unread:?}");
    assert!(undocumented.is_empty(), "settings read but not in docs/reference/settings.md: {undocumented:?}");

    let mut faults = Vec::new();
    for cells in &rows {
        let name = cells[0].trim_matches('`');
        let default = cells[1].as_str();
        let in_force = printed.get(name).map(String::as_str);
        let fault = if given.iter().any(|(given, _)| *given == name) || default.starts_with("as `") {
            // (given here, or a default taken from another setting: `ingest config` shows the other's)
            !(default == "required" || default == "none" || default.starts_with("as `"))
        } else {
            match in_force {
                Some("" | "(unset)") | None => default != "none",
                Some(value) => default != format!("`{value}`"),
            }
        };
        if fault {
            faults.push(format!("{name}: the table says {default}, `ingest config` prints {in_force:?} when unset"));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// The table of "What a client sees" in docs/reference/errors.md, rendered from the codes table
/// (`sql/registry/error_codes.toml`): status, code, when, what to do.
fn error_table() -> String {
    let rows: Vec<String> = gateway::registry::ERROR_CODES
        .iter()
        .map(|known| format!("| {} | `{}` | {} | {} |", known.status, known.code, known.when, known.retry))
        .collect();
    format!("| status | `error` | when | retry? |\n|---|---|---|---|\n{}\n", rows.join("\n"))
}

/// errors.md's table is the codes table's, row for row. `RENDER_DOCS=1` on this test writes it in.
#[test]
fn the_error_table_is_rendered_from_the_codes_table() {
    let path = repository().join("docs/reference/errors.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let section = text.split_once("## What a client sees").unwrap().1;
    let start = text.len() - section.len() + section.find("| status |").expect("the table");
    let length =
        text[start..].lines().take_while(|line| line.starts_with('|')).map(|line| line.len() + 1).sum::<usize>();
    let (written, rendered) = (&text[start..start + length], error_table());
    if std::env::var_os("RENDER_DOCS").is_some() {
        std::fs::write(&path, format!("{}{rendered}{}", &text[..start], &text[start + length..])).unwrap();
    } else {
        assert_eq!(written, rendered, "docs/reference/errors.md: render it again with RENDER_DOCS=1");
    }
}

#[test]
fn the_metrics_table_holds_every_metric_the_process_registers_with_its_type_and_nothing_else() {
    use gateway::db::metrics::{CallOutcome, DbMetrics};
    use gateway::metrics::Metrics;
    use gateway::ratelimit::BucketKind;
    use gateway::standby::metrics::{Fallback, StandbyMetrics, WritersPublished};
    use gateway::webhooks::metrics::{AttemptOutcome, Backlog, WebhookMetrics};
    // Everything `ingest serve` can register: the gateway's, a standby's and the worker's, each
    // family with a sample (a family without one is not written out).
    let (primary, standby_pool) = (DbMetrics::default(), DbMetrics::default());
    let (standby, webhooks) = (StandbyMetrics::new(&standby_pool), WebhookMetrics::default());
    let mut metrics = Metrics::gateway(&primary);
    metrics.add_standby(&standby);
    metrics.add_webhooks(&webhooks);
    let moment = std::time::Duration::from_millis(1);
    metrics.http.request(Some("/ping"), &http::Method::PUT, 413, moment);
    metrics.rate_limits.refused(BucketKind::Reads);
    for pool in [&primary, &standby_pool] {
        pool.call(CallOutcome::Ok, moment);
    }
    standby.fell_back(Fallback::Lagging);
    standby.published(WritersPublished::Made);
    webhooks.attempt(AttemptOutcome::Delivered, "none", moment);
    webhooks.backlog(&Backlog::default(), 1.0);
    // Named as scraped: a counter's samples carry `_total`.
    let registered: BTreeSet<(String, String)> = metrics
        .render()
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .map(|line| {
            let (name, kind) = line.split_once(' ').unwrap();
            let name = if kind == "counter" { format!("{name}_total") } else { name.to_string() };
            (name, kind.to_string())
        })
        .collect();
    let rows = table_rows("docs/reference/metrics.md", "## Metrics");
    // (the standby's pool has one row for all its metrics, and no type of its own)
    let kind_of = |cells: &Vec<String>| if cells[0].ends_with("*`") { String::new() } else { cells[1].clone() };
    let documented: BTreeSet<(String, String)> =
        rows.iter().map(|cells| (cells[0].trim_matches('`').to_string(), kind_of(cells))).collect();
    assert_eq!(documented.len(), rows.len(), "a metric has two rows");
    // The standby's pool metrics are named as the primary's.
    let as_documented = |(name, kind): &(String, String)| match name.strip_prefix("ingest_standby_db_") {
        Some(rest) => {
            assert!(documented.contains(&(format!("ingest_db_{rest}"), kind.clone())), "{name}: as ingest_db_{rest}");
            ("ingest_standby_db_*".to_string(), String::new())
        }
        None => (name.clone(), kind.clone()),
    };
    let registered: BTreeSet<(String, String)> = registered.iter().map(as_documented).collect();
    let unregistered: Vec<_> = documented.difference(&registered).collect();
    let undocumented: Vec<_> = registered.difference(&documented).collect();
    assert!(
        unregistered.is_empty(),
        "docs/reference/metrics.md lists what the process never registers: {unregistered:?}"
    );
    assert!(undocumented.is_empty(), "registered but not in docs/reference/metrics.md (name, type): {undocumented:?}");
}
