//! An import killed while it writes leaves the database exactly as it was.

mod common;

use common::*;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::Stdio;

#[test]
fn killed_import_leaves_the_database_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let good = write(
        dir.path(),
        "good.jsonl",
        &format!(
            "{CATALOGUE}\n{}\n",
            r#"{"type":"decision","run_id":"r-1","step":1,"catalogue":"billing-C","selected":"void_invoice","expected":{"acceptable":["find_customer"]}}"#
        ),
    );
    assert_eq!(rung(&db, &["import", good.to_str().unwrap()]).code, 0);
    let before = counts(&db);
    let report_before = rung(&db, &["report", "ladder", "--format", "json"]).stdout;

    let big = dir.path().join("big.jsonl");
    let mut w = BufWriter::new(std::fs::File::create(&big).unwrap());
    rung_samplegen::synthetic(50_000, 7, &mut w).unwrap();
    w.flush().unwrap();
    drop(w);

    let mut child = bin()
        .arg("--db")
        .arg(&db)
        .args(["-v", "import"])
        .arg(&big)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the import reports decisions written into its transaction.
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut writing = false;
    for line in stderr.lines() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("importing: ") {
            let n: u64 = rest.split(' ').next().unwrap().parse().unwrap();
            if n > 0 {
                writing = true;
                break;
            }
        }
    }
    assert!(writing, "the import never reported writing");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the import finished before it was killed"
    );

    assert_eq!(counts(&db), before, "a killed import changed the database");
    assert_eq!(
        rung(&db, &["report", "ladder", "--format", "json"]).stdout,
        report_before
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    // The database is still usable: the same import succeeds.
    let r = rung(&db, &["-q", "import", good.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
