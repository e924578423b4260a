//! `rung export --format parquet DIR`: the files, their partitions by day
//! and their rows, read back with the Parquet reader; masking; the
//! filters; what happens to a DIR that is not empty.

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use common::*;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

const KEY: &str = "sk-proj-4f9aQ2xLk81abcdEFGH";

/// Three runs on catalogue c-1: r-a on 29 November (a search, then a
/// refund refused with a secret in its reason, just before midnight), r-b
/// on 30 November (its decision has no `at`: the run's start is its time),
/// r-c with no time at all.
fn fixture() -> String {
    [
        r#"{"type":"catalogue","version":"c-1","tools":[
            {"name":"search","family":"kb","effect":"read_only","description":"Search the knowledge base."},
            {"name":"refund","family":"billing","effect":"mutating","description":"Refund with key KEY."}]}"#
            .to_string(),
        r#"{"type":"run","run_id":"r-a","task_id":"t-1","trial":0,"model":"m-1","catalogue":"c-1","started_at":"2026-11-29T10:00:00Z","success":true,"tags":{"team":"ops"}}"#.into(),
        r#"{"type":"decision","run_id":"r-a","step":1,"at":"2026-11-29T10:00:01Z","selected":"search","outcome":{"status":"ok"},"expected":{"acceptable":["search"]}}"#.into(),
        r#"{"type":"decision","run_id":"r-a","step":2,"at":"2026-11-29T23:59:59.999Z","selected":"refund","outcome":{"status":"refused","stage":"authorization","reason":"token KEY is not allowed"},"expected":{"acceptable":["search"],"forbidden":["refund"]}}"#.into(),
        r#"{"type":"run","run_id":"r-b","task_id":"t-1","trial":1,"model":"m-1","catalogue":"c-1","started_at":"2026-11-30T00:00:00Z","success":false}"#.into(),
        r#"{"type":"decision","run_id":"r-b","step":1,"selected":"refund","outcome":{"status":"ok"}}"#.into(),
        r#"{"type":"run","run_id":"r-c","model":"m-2","catalogue":"c-1"}"#.into(),
        r#"{"type":"decision","run_id":"r-c","step":1,"selected":null,"outcome":{"status":"ok"}}"#.into(),
    ]
    .iter()
    .map(|l| l.replace('\n', "").replace("KEY", KEY) + "\n")
    .collect()
}

struct Setup {
    dir: tempfile::TempDir,
    db: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.jsonl", &fixture());
    let db = dir.path().join("t.db");
    let r = rung(&db, &["import", "-q", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    Setup { dir, db }
}

impl Setup {
    fn export(&self, name: &str, extra: &[&str]) -> (PathBuf, Run) {
        let out = self.dir.path().join(name);
        let mut args = vec!["export", "--format", "parquet", out.to_str().unwrap()];
        args.extend(extra);
        let r = rung(&self.db, &args);
        (out, r)
    }
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push(p.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn read(path: &Path) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// One column of a file as text per row ("null" for NULL), whatever its
/// type: lists as `[a, b]`, times as microseconds.
fn column(path: &Path, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for b in read(path) {
        let a = b
            .column_by_name(name)
            .unwrap_or_else(|| panic!("no column {name}"));
        for i in 0..a.len() {
            if a.is_null(i) {
                out.push("null".into());
                continue;
            }
            out.push(match a.data_type() {
                arrow_schema::DataType::Utf8 => a.as_string::<i32>().value(i).to_string(),
                arrow_schema::DataType::Int64 => a.as_primitive::<Int64Type>().value(i).to_string(),
                arrow_schema::DataType::Boolean => a.as_boolean().value(i).to_string(),
                arrow_schema::DataType::Timestamp(..) => a
                    .as_primitive::<TimestampMicrosecondType>()
                    .value(i)
                    .to_string(),
                arrow_schema::DataType::List(_) => {
                    let l = a.as_list::<i32>().value(i);
                    let s = l.as_string::<i32>();
                    format!(
                        "[{}]",
                        (0..s.len())
                            .map(|j| s.value(j))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                t => panic!("unexpected type {t}"),
            });
        }
    }
    out
}

#[test]
fn every_table_is_partitioned_by_day_with_undated_rows_apart() {
    let s = setup();
    let (out, r) = s.export("x", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "exported 3 runs, 4 decisions, 1 refusals, 0 findings, 2 tools to {} (9 files)\n",
            out.display()
        )
    );
    assert_eq!(
        tree(&out),
        [
            "decisions/day=2026-11-29/part-0.parquet",
            "decisions/day=2026-11-30/part-0.parquet",
            "decisions/day=undated/part-0.parquet",
            // No finding: the table still has its (empty) file.
            "findings/day=undated/part-0.parquet",
            "refusals/day=2026-11-29/part-0.parquet",
            "runs/day=2026-11-29/part-0.parquet",
            "runs/day=2026-11-30/part-0.parquet",
            "runs/day=undated/part-0.parquet",
            "tools/part-0.parquet",
        ]
    );
    let d = |day: &str| out.join(format!("decisions/day={day}/part-0.parquet"));
    assert_eq!(column(&d("2026-11-29"), "run_id"), ["r-a", "r-a"]);
    assert_eq!(column(&d("2026-11-29"), "step"), ["1", "2"]);
    // No turn recorded: the turn is the step.
    assert_eq!(column(&d("2026-11-29"), "turn"), ["1", "2"]);
    assert_eq!(column(&d("2026-11-29"), "rung"), ["passed", "selection"]);
    assert_eq!(column(&d("2026-11-29"), "outcome"), ["ok", "refused"]);
    assert_eq!(
        column(&d("2026-11-29"), "acceptable"),
        ["[search]", "[search]"]
    );
    assert_eq!(column(&d("2026-11-29"), "forbidden"), ["[]", "[refund]"]);
    assert_eq!(column(&d("2026-11-29"), "violated"), ["false", "true"]);
    assert_eq!(column(&d("2026-11-29"), "is_first"), ["true", "false"]);
    assert_eq!(
        column(&d("2026-11-29"), "label_source"),
        ["inline", "inline"]
    );
    // 2026-11-29T23:59:59.999Z
    assert_eq!(column(&d("2026-11-29"), "time")[1], "1795996799999000");
    assert_eq!(
        column(&d("2026-11-29"), "retrieved"),
        ["[refund, search]", "[refund, search]"]
    );
    // No `at`: the run's start, 2026-11-30T00:00:00Z, is its time.
    assert_eq!(column(&d("2026-11-30"), "run_id"), ["r-b"]);
    assert_eq!(column(&d("2026-11-30"), "at"), ["null"]);
    assert_eq!(column(&d("2026-11-30"), "time"), ["1795996800000000"]);
    assert_eq!(column(&d("2026-11-30"), "rung"), ["unlabelled"]);
    assert_eq!(column(&d("2026-11-30"), "acceptable"), ["null"]);
    assert_eq!(column(&d("undated"), "run_id"), ["r-c"]);
    assert_eq!(column(&d("undated"), "selected"), ["null"]);
    assert_eq!(column(&d("undated"), "time"), ["null"]);

    let f = out.join("refusals/day=2026-11-29/part-0.parquet");
    assert_eq!(column(&f, "run_id"), ["r-a"]);
    assert_eq!(column(&f, "step"), ["2"]);
    assert_eq!(column(&f, "selected"), ["refund"]);
    assert_eq!(column(&f, "stage"), ["authorization"]);
    assert_eq!(column(&f, "reason"), ["token •••• is not allowed"]);
    assert_eq!(column(&f, "task_id"), ["t-1"]);

    let runs = |day: &str| out.join(format!("runs/day={day}/part-0.parquet"));
    assert_eq!(column(&runs("2026-11-29"), "run_id"), ["r-a"]);
    assert_eq!(column(&runs("2026-11-29"), "decisions"), ["2"]);
    assert_eq!(
        column(&runs("2026-11-29"), "first_failed_rung"),
        ["selection"]
    );
    assert_eq!(column(&runs("2026-11-29"), "success"), ["true"]);
    assert_eq!(column(&runs("2026-11-29"), "tags"), [r#"{"team":"ops"}"#]);
    assert_eq!(column(&runs("2026-11-30"), "run_id"), ["r-b"]);
    assert_eq!(column(&runs("undated"), "run_id"), ["r-c"]);
    assert_eq!(column(&runs("undated"), "task_id"), ["null"]);

    let t = out.join("tools/part-0.parquet");
    assert_eq!(column(&t, "name"), ["refund", "search"]);
    assert_eq!(column(&t, "effect"), ["mutating", "read_only"]);
    assert_eq!(
        column(&t, "description"),
        ["Refund with key ••••.", "Search the knowledge base."]
    );
    assert_eq!(column(&t, "drifted"), ["false", "false"]);
}

#[test]
fn no_redact_exports_secrets_as_stored() {
    let s = setup();
    let (out, r) = s.export("x", &["--no-redact", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let f = out.join("refusals/day=2026-11-29/part-0.parquet");
    assert_eq!(
        column(&f, "reason"),
        [format!("token {KEY} is not allowed")]
    );
}

#[test]
fn the_report_filters_select_what_is_exported() {
    let s = setup();
    // A window: only 30 November's decision, and its run.
    let (out, r) = s.export(
        "w",
        &[
            "--since",
            "2026-11-30T00:00:00Z",
            "--until",
            "2026-12-01T00:00:00Z",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        tree(&out),
        [
            "decisions/day=2026-11-30/part-0.parquet",
            "findings/day=undated/part-0.parquet",
            "refusals/day=undated/part-0.parquet",
            "runs/day=2026-11-30/part-0.parquet",
            "tools/part-0.parquet",
        ]
    );
    assert_eq!(
        column(&out.join("refusals/day=undated/part-0.parquet"), "run_id"),
        Vec::<String>::new()
    );
    // A run-level filter: the model's runs and their decisions.
    let (out, r) = s.export("m", &["--model", "m-2"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let runs: Vec<String> = tree(&out)
        .iter()
        .filter(|p| p.starts_with("runs/") || p.starts_with("decisions/"))
        .cloned()
        .collect();
    assert_eq!(
        runs,
        [
            "decisions/day=undated/part-0.parquet",
            "runs/day=undated/part-0.parquet"
        ]
    );
    assert_eq!(
        column(&out.join("runs/day=undated/part-0.parquet"), "run_id"),
        ["r-c"]
    );
}

#[test]
fn a_directory_that_is_not_empty_needs_force_and_keeps_other_files() {
    let s = setup();
    let (out, r) = s.export("x", &["-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::write(out.join("NOTES.txt"), "mine").unwrap();
    // Something to be replaced: a day that a new export does not have.
    std::fs::create_dir_all(out.join("decisions/day=2020-01-01")).unwrap();

    let (_, r) = s.export("x", &[]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "rung: {} is not empty: export into a new or empty directory, or pass --force to \
             replace the tables of an earlier export in it (runs/, decisions/, refusals/, \
             findings/, tools/)\n",
            out.display()
        )
    );

    let (_, r) = s.export("x", &["--force", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = tree(&out);
    assert!(files.contains(&"NOTES.txt".to_string()), "{files:?}");
    assert!(!out.join("decisions/day=2020-01-01").exists(), "{files:?}");
    assert_eq!(files.len(), 10, "{files:?}");
    // Nothing of the staging directory is left.
    let hidden: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert_eq!(hidden, Vec::<String>::new());
}

#[test]
fn a_file_in_the_way_is_an_error() {
    let s = setup();
    let file = write(s.dir.path(), "plain", "x");
    let r = rung(
        &s.db,
        &["export", "--format", "parquet", file.to_str().unwrap()],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!("rung: {} exists and is not a directory\n", file.display())
    );
    // A directory that cannot be made (its parent is that file).
    let below = file.join("out");
    let r = rung(
        &s.db,
        &["export", "--format", "parquet", below.to_str().unwrap()],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with(&format!("rung: cannot write {}: ", below.display())),
        "{}",
        r.stderr
    );
}

#[test]
fn only_parquet_is_a_format() {
    let s = setup();
    let out = s.dir.path().join("x");
    let r = rung(&s.db, &["export", "--format", "csv", out.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("invalid value 'csv' for '--format"),
        "{}",
        r.stderr
    );
}

/// The counts of each table per partition agree with the reports: a
/// sample set's export holds every decision once.
#[test]
fn a_sample_set_exports_every_decision_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/ladder-tour");
    let r = rung(&db, &["import", "-q", set.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = dir.path().join("x");
    let r = rung(&db, &["export", out.to_str().unwrap(), "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut by_rung: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0;
    for f in tree(&out).iter().filter(|f| f.starts_with("decisions/")) {
        for rung in column(&out.join(f), "rung") {
            *by_rung.entry(rung).or_default() += 1;
            n += 1;
        }
    }
    // Every decision record of the set (28 today, its README says), once,
    // and by rung as the ladder report counts them.
    let mut records = 0;
    for e in std::fs::read_dir(&set).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            records += std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .filter(|l| l.contains(r#""type":"decision""#))
                .count();
        }
    }
    assert!(records >= 25, "{records}");
    assert_eq!(n, records);
    let ladder: serde_json::Value =
        serde_json::from_str(&rung(&db, &["report", "ladder", "--format", "json"]).stdout).unwrap();
    for (rung, count) in ladder["rungs"].as_object().unwrap() {
        assert_eq!(
            by_rung.get(rung).copied().unwrap_or(0),
            count.as_u64().unwrap(),
            "{rung}"
        );
    }
}

/// A database that keeps the classifier's name lists as ids of interned
/// tool names (the compact store) exports the same names.
#[test]
fn interned_tool_names_are_exported_as_names() {
    let s = setup();
    // The store (schema 3) keeps them as ids of its interned names.
    let (before, r) = s.export("ids", &["-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    {
        let c = rusqlite::Connection::open(&s.db).unwrap();
        let stored = |c: &rusqlite::Connection| -> String {
            c.query_row(
                "SELECT retrieved FROM ladder WHERE run_id = 'r-a' AND step = 1",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let ids: String = c
            .query_row(
                "SELECT json_group_array(id) FROM
                   (SELECT id FROM tool_names WHERE name IN ('refund', 'search') ORDER BY name)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(stored(&c), ids);
        // Spelled out with names (as a schema-2 database has them): read
        // the same.
        c.execute_batch(
            "UPDATE ladder SET retrieved = (
               SELECT json_group_array(t.name) FROM json_each(ladder.retrieved) j
               JOIN tool_names t ON t.id = j.value);",
        )
        .unwrap();
        assert_eq!(stored(&c), r#"["refund","search"]"#);
    }
    let (after, r) = s.export("names", &["-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for day in ["2026-11-29", "2026-11-30", "undated"] {
        let f = format!("decisions/day={day}/part-0.parquet");
        assert_eq!(
            column(&after.join(&f), "retrieved"),
            column(&before.join(&f), "retrieved"),
            "{f}"
        );
    }
    assert_eq!(
        column(
            &after.join("decisions/day=2026-11-29/part-0.parquet"),
            "retrieved"
        ),
        ["[refund, search]", "[refund, search]"]
    );
}

#[test]
fn identifiers_and_names_are_masked_as_the_reports_mask_them() {
    // A secret in a catalogue version, a tool's name, a run id, a task id
    // and a model: the reports print each masked, and so does the export.
    let dir = tempfile::tempdir().unwrap();
    let trace = [
        r#"{"type":"catalogue","version":"cat KEY","tools":[
            {"name":"KEY","family":"kb","effect":"read_only","description":"Looks."},
            {"name":"search","family":"kb","effect":"read_only","description":"Searches."}]}"#,
        r#"{"type":"run","run_id":"run KEY","task_id":"task KEY","model":"model KEY","catalogue":"cat KEY","started_at":"2026-11-29T10:00:00Z"}"#,
        r#"{"type":"decision","run_id":"run KEY","step":1,"visible":["KEY","search"],"selected":"KEY","outcome":{"status":"ok"},"expected":{"acceptable":["search"],"forbidden":["KEY"]}}"#,
    ]
    .iter()
    .map(|l| l.replace('\n', "").replace("KEY", KEY) + "\n")
    .collect::<String>();
    let trace = write(dir.path(), "t.jsonl", &trace);
    let db = dir.path().join("t.db");
    let r = rung(&db, &["import", "-q", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = dir.path().join("x");
    let r = rung(&db, &["export", "-q", out.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let d = out.join("decisions/day=2026-11-29/part-0.parquet");
    assert_eq!(column(&d, "run_id"), ["run ••••"]);
    assert_eq!(column(&d, "task_id"), ["task ••••"]);
    assert_eq!(column(&d, "model"), ["model ••••"]);
    assert_eq!(column(&d, "catalogue"), ["cat ••••"]);
    assert_eq!(column(&d, "selected"), ["••••"]);
    assert_eq!(column(&d, "acceptable"), ["[search]"]);
    assert_eq!(column(&d, "forbidden"), ["[••••]"]);
    assert_eq!(column(&d, "rung"), ["selection"]);
    let runs = out.join("runs/day=2026-11-29/part-0.parquet");
    assert_eq!(column(&runs, "run_id"), ["run ••••"]);
    assert_eq!(column(&runs, "model"), ["model ••••"]);
    let tools = out.join("tools/part-0.parquet");
    // (In the order of the names as stored: "search" < "sk-proj-…".)
    assert_eq!(column(&tools, "name"), ["search", "••••"]);
    assert_eq!(column(&tools, "catalogue"), ["cat ••••", "cat ••••"]);
    // The runs report says the same.
    let r = rung(&db, &["report", "runs", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["runs"][0]["run_id"], "run ••••");
    assert_eq!(v["runs"][0]["model"], "model ••••");
    assert!(!r.stdout.contains(KEY));
    // --no-redact keeps them as stored.
    let raw = dir.path().join("raw");
    let r = rung(&db, &["export", "-q", "--no-redact", raw.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        column(&raw.join("tools/part-0.parquet"), "name"),
        ["search", KEY]
    );
}
