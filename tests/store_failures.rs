//! Failures that used to change answers quietly: stored JSON or a stored
//! configuration that does not decode, a bad `[redact]` pattern, a database
//! error in the middle of a record. Each is now an error that names where
//! it came from, exit 2, and the database stays as it was.

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// One run on billing-C whose five decisions fail at five different places:
/// step 1 needs the run's policy, step 2 its own policy, step 3 its
/// retrieval, step 4 its inline label, step 5 the task's case.
const TRACE: &str = r#"{"type":"catalogue","version":"billing-C","tools":[{"name":"find_customer","family":"billing","effect":"read_only","description":"Find customers by name or email."},{"name":"refund_invoice","family":"billing","effect":"mutating","description":"Refund part of an invoice."},{"name":"void_invoice","family":"billing","effect":"destructive","description":"Void an invoice."},{"name":"ask_user","family":"control","effect":"none","description":"Ask the user."}]}
{"type":"run","run_id":"r-1","task_id":"t-1","catalogue":"billing-C","policy":{"max_effect":"mutating"}}
{"type":"decision","run_id":"r-1","step":1,"selected":"void_invoice","expected":{"acceptable":["void_invoice"]}}
{"type":"decision","run_id":"r-1","step":2,"policy":{"max_effect":"read_only"},"selected":"refund_invoice","expected":{"acceptable":["refund_invoice"]}}
{"type":"decision","run_id":"r-1","step":3,"retrieval":{"k":1,"candidates":[{"name":"find_customer","score":0.9},{"name":"refund_invoice","score":0.5}]},"selected":"refund_invoice","expected":{"acceptable":["refund_invoice"]}}
{"type":"decision","run_id":"r-1","step":4,"selected":"refund_invoice","expected":{"acceptable":["find_customer"]}}
{"type":"decision","run_id":"r-1","step":5,"selected":"refund_invoice","arguments":{"customer":"cus_3Nw8"}}
{"type":"case","task_id":"t-1","step":5,"acceptable":["find_customer"]}
"#;

/// What the fixture's decisions are, by rung (worked out by hand above).
const RUNGS: &str = r#"{"discovery":1,"exposure":2,"selection":2}"#;

struct Db {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    db: PathBuf,
}

impl Db {
    /// A database with [`TRACE`] imported (with `config` when given).
    fn new(config: Option<&str>) -> Db {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let db = path.join("t.db");
        let trace = write(&path, "a.jsonl", TRACE);
        let mut args = Vec::new();
        let cfg;
        if let Some(text) = config {
            cfg = write(&path, "rung.toml", text);
            args.extend(["--config", cfg.to_str().unwrap()]);
        }
        args.extend(["import", trace.to_str().unwrap()]);
        let r = rung(&db, &args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let d = Db {
            _dir: dir,
            dir: path,
            db,
        };
        assert_eq!(d.rungs(), RUNGS);
        d
    }

    fn run(&self, args: &[&str]) -> Run {
        rung(&self.db, args)
    }

    /// Changes the database behind rung's back.
    fn tamper(&self, sql: &str) {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        assert_eq!(conn.execute(sql, []).unwrap(), 1, "{sql}");
    }

    /// The ladder report's non-zero rungs, as compact JSON.
    fn rungs(&self) -> String {
        let l = json(&self.run(&["report", "ladder", "--format", "json"]));
        let nonzero: serde_json::Map<String, serde_json::Value> = l["rungs"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.as_u64() != Some(0))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        serde_json::Value::Object(nonzero).to_string()
    }

    /// How the database's own path shows in messages (SQLite's full name).
    fn shown(&self) -> String {
        std::fs::canonicalize(&self.db)
            .unwrap()
            .display()
            .to_string()
    }
}

const DAMAGED: &str = "the database was changed outside rung or is damaged: import the traces again into a new database";

/// `rung reclassify` after `sql` fails with `expected` (after the database
/// path) and leaves every verdict as it was.
fn reclassify_fails(sql: &str, expected: &str) {
    let d = Db::new(None);
    d.tamper(sql);
    let before = counts(&d.db);
    let r = d.run(&["reclassify"]);
    assert_eq!(r.code, 2, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        format!("rung: {}: {expected}; {DAMAGED}", d.shown())
    );
    assert_eq!(counts(&d.db), before);
    assert_eq!(d.rungs(), RUNGS, "the failed reclassify changed verdicts");
}

#[test]
fn corrupt_run_policy_names_the_run() {
    // Dropping the run's policy would make void_invoice visible and step 1 pass.
    reclassify_fails(
        r#"UPDATE runs SET policy = '{"max_effect":' WHERE run_id = 'r-1'"#,
        "table runs, row run_id \"r-1\", column policy: the stored JSON does not decode (EOF while parsing a value at line 1 column 14)",
    );
}

#[test]
fn corrupt_decision_policy_names_the_decision() {
    // An effect the ladder does not know must not read as "no ceiling".
    reclassify_fails(
        r#"UPDATE decision_rows SET policy = '{"max_effect":"huge"}' WHERE step = 2"#,
        "table decisions, row id 2 (run \"r-1\" step 2), column policy: max_effect \"huge\" is not one of none, read_only, mutating, destructive",
    );
}

#[test]
fn corrupt_decision_retrieval_names_the_decision() {
    reclassify_fails(
        "UPDATE decision_rows SET retrieval = '[1,2' WHERE step = 3",
        "table decisions, row id 3 (run \"r-1\" step 3), column retrieval: the stored JSON does not decode (invalid type: integer `2`, expected a sequence at line 1 column 4)",
    );
}

#[test]
fn corrupt_inline_label_names_the_decision() {
    reclassify_fails(
        r#"UPDATE decision_rows SET expected = '{"acceptable":7}' WHERE step = 4"#,
        "table decisions, row id 4 (run \"r-1\" step 4), column expected: the stored JSON does not decode (invalid type: integer `7`, expected a sequence at line 1 column 15)",
    );
}

#[test]
fn corrupt_decision_status_names_the_decision() {
    reclassify_fails(
        "UPDATE decision_rows SET status = 'refuzed' WHERE step = 5",
        "table decisions, row id 5 (run \"r-1\" step 5), column status: \"refuzed\" is not one of ok, refused, error, unknown, not_run",
    );
}

#[test]
fn corrupt_case_label_names_the_case() {
    // An empty acceptable set would turn step 5 into a coverage failure.
    reclassify_fails(
        "UPDATE cases SET acceptable = 'find_customer'",
        "table cases, row key [\"t-1\",5,null], column acceptable: the stored JSON does not decode (expected ident at line 1 column 2)",
    );
}

#[test]
fn corrupt_tool_effect_names_the_tool() {
    // An unknown effect used to read as destructive.
    reclassify_fails(
        "UPDATE tools SET effect = 'harmless' WHERE name = 'void_invoice'",
        "table tools, row catalogue \"billing-C\" name \"void_invoice\", column effect: \"harmless\" is not one of none, read_only, mutating, destructive",
    );
}

#[test]
fn a_damaged_value_is_echoed_masked_and_escaped() {
    // Stored values come from traces: the error shows them as every other
    // error does, secrets masked and control characters escaped.
    reclassify_fails(
        "UPDATE tools SET effect = 'key sk-proj-4f9aQ2xLk81abcd\n' WHERE name = 'void_invoice'",
        "table tools, row catalogue \"billing-C\" name \"void_invoice\", column effect: \"key ••••\\n\" is not one of none, read_only, mutating, destructive",
    );
}

#[test]
fn corrupt_verdicts_are_errors_in_reports() {
    let d = Db::new(None);
    d.tamper(
        r#"UPDATE ladder_rows SET acceptable = '["find_customer"'
           WHERE decision_id IN (SELECT id FROM decision_rows WHERE step = 4)"#,
    );
    let r = d.run(&["report", "confusions"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "rung: {}: table ladder, row decision_id 4, column acceptable: the stored JSON does not decode (EOF while parsing a list at line 1 column 16); {DAMAGED}",
            d.shown()
        )
    );

    let d = Db::new(None);
    d.tamper(
        "UPDATE ladder_rows SET rung = 'selectoin'
         WHERE decision_id IN (SELECT id FROM decision_rows WHERE step = 4)",
    );
    let r = d.run(&["report", "ladder"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "rung: {}: table ladder, rows with rung \"selectoin\", column rung: \"selectoin\" is not one of coverage, exposure, discovery, selection, representation, schema, semantics, authorization, precondition, unclassified, execution, progress, unlabelled, passed; {DAMAGED}",
            d.shown()
        )
    );
}

/// The run lists and the run timeline read stored rungs once, as `Rung`s:
/// a name no rung has is an error naming its row, not a badge of its own.
#[test]
fn a_damaged_rung_in_a_list_names_its_row() {
    let rungs = "coverage, exposure, discovery, selection, representation, schema, semantics, authorization, precondition, unclassified, execution, progress, unlabelled, passed";
    let d = Db::new(None);
    d.tamper("UPDATE runs SET first_failed_rung = 'exposur' WHERE run_id = 'r-1'");
    let r = d.run(&["report", "runs"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "rung: {}: table runs, row run_id \"r-1\", column first_failed_rung: \"exposur\" is not one of {rungs}; {DAMAGED}",
            d.shown()
        )
    );

    let d = Db::new(None);
    d.tamper(
        "UPDATE ladder_rows SET rung = 'selectoin'
         WHERE decision_id IN (SELECT id FROM decision_rows WHERE step = 4)",
    );
    let store = rung::store::Store::open_ro(&d.db).unwrap();
    let e = rung::store::browse::timeline_page(
        &store.conn,
        &rung::filter::Filter::default(),
        "r-1",
        &rung::store::browse::Anchor::First,
        10,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: table ladder, row decision_id 4, column rung: \"selectoin\" is not one of {rungs}; {DAMAGED}",
            d.shown()
        )
    );
}

const REDACT: &str = "[redact]\npatterns = [\"cus_[A-Za-z0-9]+\"]\n";

#[test]
fn corrupt_stored_config_is_an_error_not_the_defaults() {
    let d = Db::new(Some(REDACT));
    let shown = d.run(&["explain", "r-1", "5"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(shown.stdout.contains("arguments: {\"customer\":\"••••\"}"));

    // With the defaults, the extra pattern would vanish and the id show.
    d.tamper(r#"UPDATE meta SET value = '{"redact":{"patterns":' WHERE key = 'config'"#);
    let r = d.run(&["explain", "r-1", "5"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(!r.stdout.contains("cus_3Nw8"));
    assert_eq!(
        r.stderr.trim_end(),
        format!(
            "rung: {}: table meta, row key \"config\", column value: the stored configuration does not decode (EOF while parsing a value at line 1 column 22); store a good one with `rung --config FILE reclassify`",
            d.shown()
        )
    );

    // ... which is the way out.
    let cfg = write(&d.dir, "again.toml", REDACT);
    let r = d.run(&["--config", cfg.to_str().unwrap(), "reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(d.run(&["explain", "r-1", "5"]).stdout, shown.stdout);
}

#[test]
fn stored_config_with_a_bad_pattern_is_an_error() {
    // As an older rung could have stored it.
    let d = Db::new(Some(REDACT));
    d.tamper(
        r#"UPDATE meta SET value = '{"reasons":{},"redact":{"patterns":["cus_(["]}}' WHERE key = 'config'"#,
    );
    for args in [&["explain", "r-1", "5"][..], &["reclassify"]] {
        let r = d.run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stdout);
        let head = format!(
            "rung: {}: table meta, row key \"config\", column value: the stored configuration is not valid ([redact] pattern",
            d.shown()
        );
        assert!(r.stderr.starts_with(&head), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn bad_redact_pattern_in_the_config_is_refused_before_anything_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let trace = write(dir.path(), "a.jsonl", TRACE);
    let bad = write(
        dir.path(),
        "bad.toml",
        "[redact]\npatterns = [\"cus_([\"]\n",
    );
    let r = rung(
        &db,
        &[
            "--config",
            bad.to_str().unwrap(),
            "import",
            trace.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    // The file, the table and the key (the regex error follows).
    let want = format!("{}: [redact] pattern", bad.display());
    assert!(r.stderr.contains(&want), "{}", r.stderr);
    assert!(!db.exists() || counts(&db).iter().all(|(_, n)| *n == 0));

    // And at reclassify, the stored configuration stays as it was.
    let d = Db::new(Some(REDACT));
    let bad = write(&d.dir, "bad.toml", "[redact]\npatterns = [\"cus_([\"]\n");
    let r = d.run(&["--config", bad.to_str().unwrap(), "reclassify"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains(&format!("{}: [redact] pattern", bad.display()))
    );
    let r = d.run(&["explain", "r-1", "5"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("arguments: {\"customer\":\"••••\"}"));
}

/// A database whose decisions table refuses step 2 with `message`, as a
/// full disk or an I/O error would.
fn failing_database(dir: &Path, message: &str) -> PathBuf {
    let db = dir.join("t.db");
    let cat = write(dir, "cat.jsonl", TRACE.lines().next().unwrap());
    assert_eq!(rung(&db, &["import", cat.to_str().unwrap()]).code, 0);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "CREATE TRIGGER fail BEFORE INSERT ON decision_rows WHEN NEW.step = 2
         BEGIN SELECT RAISE(ABORT, '{message}'); END;"
    ))
    .unwrap();
    db
}

#[test]
fn database_error_in_a_record_stops_the_import_even_with_keep_going() {
    let dir = tempfile::tempdir().unwrap();
    let db = failing_database(dir.path(), "disk I/O error (simulated)");
    let before = counts(&db);
    let trace = write(
        dir.path(),
        "b.jsonl",
        &TRACE.lines().skip(1).collect::<Vec<_>>().join("\n"),
    );
    for keep_going in [true, false] {
        let mut args = vec!["import", trace.to_str().unwrap()];
        if keep_going {
            args.push("--keep-going");
        }
        let r = rung(&db, &args);
        assert_eq!(r.code, 2, "keep_going={keep_going}: {}", r.stderr);
        // Not a bad record: nothing is "skipped", nothing is counted.
        assert_eq!(
            r.stderr.trim_end(),
            "rung: database error: disk I/O error (simulated)",
            "keep_going={keep_going}"
        );
        assert_eq!(counts(&db), before, "keep_going={keep_going}");
    }
}

#[test]
fn a_failed_start_of_an_import_leaves_no_transaction_open() {
    // `rung serve` writes every trace through one connection: an import that
    // fails before it starts must not leave that connection inside its
    // transaction (the next trace would fail with "cannot start a
    // transaction within a transaction", and other processes find the
    // database locked).
    use rung::store::{Batch, ImportOptions, Store};
    let d = Db::new(Some(REDACT));
    d.tamper(r#"UPDATE meta SET value = '{"redact":{"patterns":' WHERE key = 'config'"#);
    let store = Store::open_rw(&d.db).unwrap();
    for _ in 0..2 {
        let Err(e) = Batch::begin_with(&store, ImportOptions::default(), "a", None) else {
            panic!("a batch began over a stored configuration that does not decode");
        };
        assert!(
            e.to_string()
                .contains("the stored configuration does not decode"),
            "{e}"
        );
    }
    // Another process can write (no lock held), and the next batch begins.
    d.tamper(r#"UPDATE meta SET value = '{}' WHERE key = 'config'"#);
    assert!(Batch::begin_with(&store, ImportOptions::default(), "a", None).is_ok());
}
