//! Helpers for tests that run the built `rung` binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rung"));
    c.env_remove("RUNG_DB")
        .env_remove("RUNG_NOW")
        .env("NO_COLOR", "1");
    c
}

/// Runs `rung --db DB ARGS...`.
pub fn rung(db: &Path, args: &[&str]) -> Run {
    bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("rung runs")
        .into()
}

/// Runs `rung --db DB ARGS...` with stdin.
pub fn rung_stdin(db: &Path, args: &[&str], input: &[u8]) -> Run {
    use std::io::Write;
    let mut child = bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rung runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap().into()
}

/// Parses a `--format json` output.
pub fn json(r: &Run) -> serde_json::Value {
    assert_eq!(r.code, 0, "rung failed: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.stdout))
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// `../shared` beside the project; panics when it is absent, so that a test
/// reading it (`#[ignore = "needs ../shared"]`) cannot pass by skipping.
pub fn shared() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(
        p.is_dir(),
        "{} is absent: this test needs the project's shared folder beside the repository",
        p.display()
    );
    p
}

/// Row counts of the main tables: a database's observable state.
pub fn counts(db: &Path) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    [
        "catalogues",
        "tools",
        "tool_versions",
        "runs",
        "decisions",
        "payloads",
        "cases",
        "ladder",
        "findings",
    ]
    .iter()
    .map(|t| {
        let n: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
            .unwrap();
        (t.to_string(), n)
    })
    .collect()
}

pub const CATALOGUE: &str = r#"{"type":"catalogue","version":"billing-C","tools":[{"name":"find_customer","family":"billing","effect":"read_only","description":"Find customers by name or email."},{"name":"refund_invoice","family":"billing","effect":"mutating","description":"Refund part of an invoice."},{"name":"void_invoice","family":"billing","effect":"destructive","description":"Void an invoice."},{"name":"ask_user","family":"control","effect":"none","description":"Ask the user."}]}"#;
