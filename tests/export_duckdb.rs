//! The SQL of docs/scale.md, run by DuckDB over a Parquet export of the
//! sample traces, gives every report's numbers exactly as `rung report …
//! --format json` does on the database. The queries are read from the doc
//! (tests/duckdb_reports.py), so the doc cannot drift from rung.
//!
//! Needs python3 with the `duckdb` package (installed by .ci/run); without
//! it the test fails, it never skips.

mod common;
mod report_util;

use std::path::Path;
use std::process::Command;

use report_util::{Db, root};
use serde_json::Value;

/// Every sample set, in one database.
fn samples() -> Db {
    let dir = root().join("sample-traces");
    let mut sets: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    assert!(sets.len() >= 6, "sample sets: {sets:?}");
    let paths: Vec<&std::path::Path> = sets.iter().map(|p| p.as_path()).collect();
    Db::import(&paths)
}

/// The first path where `got` differs from `want`: counts (integers) must
/// be equal and integers on both sides; other numbers agree to 1e-12
/// relative (pass^k is a product of ratios in SQL, of exact binomials in
/// rung).
fn diff(path: &str, got: &Value, want: &Value) -> Option<String> {
    report_util::json_diff_by(path, got, want, &|a, b| {
        if !(a.is_f64() || b.is_f64()) {
            return a == b;
        }
        let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
        let close = (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0);
        // A float where rung has a count (or the other way) is a
        // difference too, unless the count is a whole float's value.
        close && a.is_f64() == b.is_f64()
    })
}

/// The reports, window and kinds compared.
const NOW: &str = "2026-12-01T00:00:00Z";
/// A window whose previous window holds refusals too.
const WINDOW: (&str, &str) = ("2026-10-20T00:00:00Z", "2026-11-20T00:00:00Z");
const KINDS: [&str; 9] = [
    "ladder",
    "metrics",
    "refusals",
    "confusions",
    "tools",
    "runs",
    "findings",
    "consistency",
    "budget",
];

/// The reports as docs/scale.md's SQL computes them over `dir` (an export,
/// or with `merged` the folder holding `warehouse/`).
fn duckdb(dir: &Path, merged: bool) -> Value {
    let mut c = Command::new("python3");
    c.arg(root().join("tests/duckdb_reports.py"))
        .arg(dir)
        .arg(root().join("docs/scale.md"))
        .args([WINDOW.0, WINDOW.1]);
    if merged {
        c.arg("merged");
    }
    let py = c
        .output()
        .expect("python3 runs (it is needed for this test: .ci/run has it)");
    assert!(
        py.status.success(),
        "the DuckDB queries failed:\n{}",
        String::from_utf8_lossy(&py.stderr)
    );
    serde_json::from_slice(&py.stdout).expect("the script prints JSON")
}

/// Every report of `db` against the SQL's.
#[track_caller]
fn assert_same_reports(db: &Db, sql: &Value) {
    let mut problems = Vec::new();
    for kind in KINDS {
        let mut args = vec!["report", kind];
        if kind == "refusals" {
            args.extend(["--since", WINDOW.0, "--until", WINDOW.1]);
        }
        let want = db.json(NOW, &args);
        let got = &sql[kind];
        if let Some(d) = diff(kind, got, &want) {
            problems.push(format!(
                "{d}\n  rung: {}\n  sql:  {}",
                cut(&want.to_string()),
                cut(&got.to_string())
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the SQL of docs/scale.md differs from rung:\n{}",
        problems.join("\n")
    );
}

fn export(db: &Db, to: &Path) {
    let r = db.run(
        NOW,
        &["export", "--format", "parquet", to.to_str().unwrap(), "-q"],
    );
    assert_eq!(r.code, 0, "export failed: {}", r.stderr);
}

#[test]
#[ignore = "needs duckdb (installed by .ci/run)"]
fn the_sql_of_docs_scale_gives_every_report_of_rung() {
    let db = samples();
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("export");
    export(&db, &dir);
    let sql = duckdb(&dir, false);
    assert_same_reports(&db, &sql);

    // The comparison is not vacuous: the samples fill every report.
    let n = |v: &Value| v.as_u64().unwrap();
    assert!(n(&sql["ladder"]["decisions"]) > 1000);
    assert!(n(&sql["confusions"]["selection_failures"]) > 10);
    assert!(sql["refusals"]["rows"].as_array().unwrap().len() > 2);
    assert!(
        sql["refusals"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| n(&r["previous"]) > 0)
    );
    assert!(sql["findings"]["findings"].as_array().unwrap().len() > 10);
    assert!(!sql["consistency"]["tasks"].as_array().unwrap().is_empty());
    assert!(!sql["metrics"]["pass_hat_k"].as_object().unwrap().is_empty());
    assert!(sql["budget"]["catalogues"].as_array().unwrap().len() > 5);
}

/// docs/scale.md's way past one machine: the samples split by run with its
/// `split.py` into two shards, each imported (with the common catalogues
/// and cases) into its own database and exported; its merge views over
/// both exports give the reports of one database holding the same records.
#[test]
#[ignore = "needs duckdb (installed by .ci/run)"]
fn two_shards_merged_give_the_reports_of_one_database() {
    let doc = std::fs::read_to_string(root().join("docs/scale.md")).unwrap();
    let start = doc
        .find("```python split\n")
        .expect("a `python split` block")
        + 16;
    let split = &doc[start..start + doc[start..].find("```").unwrap()];
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    std::fs::write(work.join("split.py"), split).unwrap();
    let mut files = Vec::new();
    collect(&root().join("sample-traces"), &mut files);
    files.sort();
    let py = Command::new("python3")
        .current_dir(work)
        .arg("split.py")
        .arg("2")
        .args(&files)
        .output()
        .expect("python3 runs");
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );

    let import = |db: &Path, names: &[&str]| {
        let mut c = common::bin();
        c.current_dir(work)
            .arg("--db")
            .arg(db)
            .args(["import", "-q"])
            .args(names);
        let r: common::Run = c.output().unwrap().into();
        assert_eq!(r.code, 0, "{}", r.stderr);
    };
    for i in 0..2 {
        let db = work.join(format!("shard-{i}.db"));
        let shard = format!("shard-{i}.jsonl");
        import(&db, &["common.jsonl", &shard]);
        let shard_db = Db::at(db);
        // Both shards hold runs (the split is not vacuous).
        assert!(
            shard_db.json(NOW, &["report", "ladder"])["decisions"]
                .as_u64()
                .unwrap()
                > 500
        );
        export(&shard_db, &work.join(format!("warehouse/shard-{i}")));
    }
    let whole = work.join("whole.db");
    import(&whole, &["common.jsonl", "shard-0.jsonl", "shard-1.jsonl"]);
    let sql = duckdb(work, true);
    assert_same_reports(&Db::at(whole), &sql);
    assert!(sql["ladder"]["decisions"].as_u64().unwrap() > 1000);
}

/// Every `.jsonl` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

fn cut(s: &str) -> String {
    s.chars().take(600).collect()
}
