//! Helpers for the importer tests: run the built binary on a temp
//! database, read its JSON reports, and look at what was stored.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rung"));
    c.env_remove("RUNG_DB").env_remove("RUNG_NOW");
    c
}

/// `rung --db DB ARGS...`.
pub fn rung(db: &Path, args: &[&str]) -> Out {
    let o = bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("rung runs");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `rung --db DB ARGS...` with bytes on stdin.
pub fn rung_stdin(db: &Path, args: &[&str], input: &[u8]) -> Out {
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
    let o = child.wait_with_output().unwrap();
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Imports, asserting success; returns stderr (the summary).
pub fn import(db: &Path, args: &[&str]) -> String {
    let mut a = vec!["import"];
    a.extend_from_slice(args);
    let r = rung(db, &a);
    assert_eq!(r.code, 0, "import {args:?} failed: {}", r.stderr);
    r.stderr
}

/// `rung report KIND --format json`.
pub fn report(db: &Path, kind: &str) -> Value {
    json_of(rung(db, &["report", kind, "--format", "json"]))
}

/// `rung explain RUN --format json`.
pub fn explain(db: &Path, run: &str) -> Value {
    json_of(rung(db, &["explain", run, "--format", "json"]))
}

pub fn json_of(r: Out) -> Value {
    assert_eq!(r.code, 0, "rung failed: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.stdout))
}

/// A fresh temp dir with a database path in it.
pub fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    (dir, db)
}

/// This crate's fixture of the given name.
pub fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
        .display()
        .to_string()
}

/// `../shared/real-traces/REL` beside the project; panics when it is absent,
/// so that a test reading it (`#[ignore = "needs ../shared"]`) cannot pass
/// by skipping.
pub fn shared_trace(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-traces")
        .join(rel);
    assert!(
        p.exists(),
        "{} is absent: the real samples live in ../shared/real-traces beside the project",
        p.display()
    );
    p
}

/// One stored decision, as the columns and payload rung keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub step: i64,
    pub turn: Option<i64>,
    pub selected: Option<String>,
    pub call_id: Option<String>,
    pub status: Option<String>,
    pub stage: Option<String>,
    pub outcome: Option<Value>,
    pub visible: Option<Value>,
    pub arguments: Option<Value>,
    pub result: Option<Value>,
    pub raw: Option<Value>,
    pub extra: Option<Value>,
    pub source: String,
}

fn parse(s: Option<String>) -> Option<Value> {
    s.map(|t| serde_json::from_str(&t).unwrap())
}

/// The decisions of a run, in step order.
pub fn stored(db: &Path, run: &str) -> Vec<Stored> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut s = conn
        .prepare(
            "SELECT d.step, d.turn, d.selected, d.call_id, d.status, d.stage, d.outcome, d.visible,
                    p.arguments, p.result, p.raw, d.extra, d.source
             FROM decisions d LEFT JOIN payloads p ON p.decision_id = d.id
             WHERE d.run_id = ?1 ORDER BY d.step",
        )
        .unwrap();
    s.query_map([run], |r| {
        Ok(Stored {
            step: r.get(0)?,
            turn: r.get(1)?,
            selected: r.get(2)?,
            call_id: r.get(3)?,
            status: r.get(4)?,
            stage: r.get(5)?,
            outcome: parse(r.get(6)?),
            visible: parse(r.get(7)?),
            arguments: parse(r.get(8)?),
            result: parse(r.get(9)?),
            raw: parse(r.get(10)?),
            extra: parse(r.get(11)?),
            source: r.get(12)?,
        })
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// A stored run's extra fields (what the importer kept beside rung's).
pub fn run_extra(db: &Path, run: &str) -> Value {
    let conn = rusqlite::Connection::open(db).unwrap();
    let extra: Option<String> = conn
        .query_row("SELECT extra FROM runs WHERE run_id = ?1", [run], |r| {
            r.get(0)
        })
        .unwrap();
    parse(extra).unwrap_or(Value::Null)
}

/// The ids of the stored runs, sorted.
pub fn run_ids(db: &Path) -> Vec<String> {
    report(db, "runs")["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect()
}
