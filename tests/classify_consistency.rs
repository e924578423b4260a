//! Classification does not depend on how traces arrive: one batch, file by
//! file in any order, or a full reclassification give the same reports.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn reports(db: &Path) -> Vec<String> {
    [
        "ladder",
        "metrics",
        "findings",
        "confusions",
        "runs",
        "tools",
    ]
    .iter()
    .map(|k| {
        let r = rung(db, &["report", k, "--format", "json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    })
    .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

fn check(set: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-traces")
        .join(set);
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one.db");
    let r = rung(&one, &["-q", "import", dir.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let expected = reports(&one);

    // File by file, last file first: labels and catalogues arrive after the
    // decisions they concern.
    let split = tmp.path().join("split.db");
    for f in files(&dir).iter().rev() {
        let r = rung(&split, &["-q", "import", f.to_str().unwrap()]);
        if r.code != 0 {
            assert_eq!(r.code, 2, "{}", r.stderr);
            // A run referring to a catalogue not imported yet is an error:
            // import the catalogues first, then the rest in reverse.
            std::fs::remove_file(&split).ok();
            return check_catalogues_first(set, &dir, &expected, tmp.path());
        }
    }
    assert_eq!(reports(&split), expected, "{set}: reverse file order");

    let r = rung(&one, &["-q", "reclassify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(reports(&one), expected, "{set}: reclassify");
}

fn check_catalogues_first(set: &str, dir: &Path, expected: &[String], tmp: &Path) {
    let db = tmp.join("catfirst.db");
    let all = files(dir);
    let (cats, rest): (Vec<&PathBuf>, Vec<&PathBuf>) = all.iter().partition(|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .contains("catalogue")
    });
    for f in cats.iter().chain(rest.iter().rev()) {
        let r = rung(&db, &["-q", "import", f.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}: {}", f.display(), r.stderr);
    }
    assert_eq!(
        reports(&db),
        expected,
        "{set}: catalogues first, then reverse order"
    );
}

#[test]
fn ladder_tour() {
    check("ladder-tour");
}

#[test]
fn brightdesk_billing() {
    check("brightdesk-billing");
}

#[test]
fn routing_ladder() {
    check("routing-ladder");
}

#[test]
fn operations_cases() {
    check("operations-cases");
}
