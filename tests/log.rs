//! `--log FILE` / `RUNG_LOG`: what rung did goes to that file, and only
//! there: what a command prints stays byte for byte what it printed without.

mod common;

use std::path::Path;

use common::{Run, bin, write};

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/reports"
    ))
}

/// `rung --db DB ARGS...` with the log variables cleared, then `env` set.
fn rung(db: &Path, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut c = bin();
    c.env_remove("RUNG_LOG").env_remove("RUNG_LOG_LEVEL");
    c.env("RUNG_NOW", "2026-06-15T00:00:00Z");
    for (k, v) in env {
        c.env(k, v);
    }
    c.arg("--db").arg(db).args(args);
    c.output().expect("rung runs").into()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_log_has_the_import_and_the_screen_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rung.log");
    let fx = fixture().to_str().unwrap();
    let plain = rung(&dir.path().join("a.db"), &[], &["import", fx]);
    let logged = rung(
        &dir.path().join("b.db"),
        &[],
        &["--log", log.to_str().unwrap(), "import", fx],
    );
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert_eq!(logged.code, 0, "{}", logged.stderr);
    assert_eq!(logged.stdout, plain.stdout);
    assert_eq!(logged.stderr, plain.stderr);
    assert_eq!(
        plain.stderr,
        "imported 2 catalogues, 7 runs, 17 decisions, 5 cases from 3 files\nclassified 7 runs\n"
    );
    let text = read(&log);
    let lines: Vec<&str> = text.lines().collect();
    // rung started, import start, import end, command done.
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].contains(" INFO rung::cli::log: rung started"),
        "{text}"
    );
    let bytes: u64 = std::fs::read_dir(fixture())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        lines[1].contains(&format!(
            "import start sources=3 bytes={bytes} format=auto keep_going=false replace=false"
        )),
        "{text}"
    );
    for part in [
        "import end catalogues=2 new, 0 replaced, 0 unchanged",
        "runs=7 new, 0 replaced, 0 unchanged",
        "decisions=17 new, 0 replaced, 0 unchanged",
        "cases=5 new, 0 replaced, 0 unchanged",
        "skipped=0 dropped=0 tools_changed=0 reclassified_runs=7",
        "elapsed_ms=",
    ] {
        assert!(lines[2].contains(part), "{part:?} in {text}");
    }
    assert!(
        lines[3].contains("command done command=\"import\"") && lines[3].contains("exit=0"),
        "{text}"
    );
    // The same import again: the log is appended to, and says nothing new
    // was stored.
    let again = rung(
        &dir.path().join("b.db"),
        &[("RUNG_LOG", log.to_str().unwrap())],
        &["import", "--force", fx],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let text = read(&log);
    assert_eq!(text.lines().count(), 8, "{text}");
    assert!(
        text.contains("runs=0 new, 0 replaced, 7 unchanged"),
        "{text}"
    );
}

#[test]
fn skipped_records_are_logged_as_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rung.log");
    let bad = write(
        dir.path(),
        "bad.jsonl",
        "{\"type\":\"run\",\"run_id\":\"r1\",\"started_at\":\"nope\"}\n",
    );
    let r = rung(
        &dir.path().join("a.db"),
        &[("RUNG_LOG", log.to_str().unwrap())],
        &["import", "--keep-going", bad.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let skipped = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("skipped: "))
        .unwrap_or_else(|| panic!("no skipped line: {}", r.stderr));
    let text = read(&log);
    assert!(
        text.contains(&format!(
            " WARN rung::cli::import: skipped a bad record error={skipped}"
        )),
        "{text}"
    );
    assert!(text.contains("skipped=1"), "{text}");
}

#[test]
fn reports_are_logged_with_their_filter_and_the_level_filters() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    assert_eq!(
        rung(&db, &[], &["import", fixture().to_str().unwrap()]).code,
        0
    );
    let log = dir.path().join("rung.log");
    let logp = log.to_str().unwrap();
    let args = ["report", "runs", "--model", "m-small", "--format", "csv"];
    let plain = rung(&db, &[], &args);
    let logged = rung(&db, &[("RUNG_LOG", logp)], &args);
    assert_eq!(
        (logged.stdout.as_str(), logged.stderr.as_str()),
        (plain.stdout.as_str(), "")
    );
    let text = read(&log);
    assert!(
        text.contains("INFO rung::cli::report: report kind=runs format=csv filter=--model m-small rows=5 elapsed_ms="),
        "{text}"
    );
    // warn keeps none of the info events.
    std::fs::remove_file(&log).unwrap();
    let r = rung(
        &db,
        &[("RUNG_LOG", logp), ("RUNG_LOG_LEVEL", "warn")],
        &args,
    );
    assert_eq!(r.stdout, plain.stdout);
    assert_eq!(read(&log), "");
    // debug adds each bound of a check.
    let r = rung(
        &db,
        &[],
        &[
            "--log",
            logp,
            "--log-level",
            "debug",
            "check",
            "--max",
            "violation_rate=0",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let text = read(&log);
    assert!(
        text.contains(
            "DEBUG rung::cli::check: check bound metric=violation_rate op=\"<=\" bound=0.0"
        ),
        "{text}"
    );
    assert!(text.contains("check bounds=1 failed=1"), "{text}");
    assert!(
        text.contains("command=\"check\"") && text.contains("exit=1"),
        "{text}"
    );
}

#[test]
fn a_bad_log_level_or_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    let log = dir.path().join("rung.log");
    let r = rung(
        &db,
        &[
            ("RUNG_LOG", log.to_str().unwrap()),
            ("RUNG_LOG_LEVEL", "rung=["),
        ],
        &["report", "runs"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("rung: --log-level \"rung=[\" is not a log filter"),
        "{}",
        r.stderr
    );
    let r = rung(
        &db,
        &[],
        &[
            "--log",
            dir.path().join("no/such/dir.log").to_str().unwrap(),
            "report",
            "runs",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("rung: cannot open the log file "),
        "{}",
        r.stderr
    );
    // Without --log or RUNG_LOG, a level alone logs nothing (and is not checked).
    let r = rung(&db, &[("RUNG_LOG_LEVEL", "rung=[")], &["report", "runs"]);
    assert_eq!(r.code, 2, "no database yet: {}", r.stderr);
    assert!(!r.stderr.contains("log"), "{}", r.stderr);
}
