//! Embeds the SQL: refinery embeds `sql/migrations` itself; this script lists `sql/functions` into
//! `$OUT_DIR/functions.rs` and makes any change under `sql/` rebuild the binary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let sql = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql");
    println!("cargo:rerun-if-changed={}", sql.join("migrations").display());
    println!("cargo:rerun-if-changed={}", sql.join("functions").display());

    let root = sql.join("functions");
    let mut files = Vec::new();
    collect(&root, &mut files);
    // By path: a stable order (the files need none among themselves; see migrate.rs).
    files.sort();

    let mut out = String::from("/// Every file of `sql/functions`, in the order they are applied.\n");
    out.push_str("pub const FUNCTION_FILES: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let relative = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        writeln!(out, "    ({relative:?}, include_str!({:?})),", path.canonicalize().unwrap()).unwrap();
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("functions.rs");
    std::fs::write(target, out).unwrap();
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "sql") {
            files.push(path);
        }
    }
}
