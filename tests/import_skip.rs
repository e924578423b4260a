//! Re-importing files this database has imported before: an unchanged file
//! (same size, modification time and content) is skipped with a line
//! saying so, `--force` reads it anyway, a changed one is read in full.

mod import_util;

use std::io::Write;
use std::path::Path;

use import_util::*;

fn copy(dir: &Path, name: &str, from: &str) -> String {
    let to = dir.join(name);
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(from), &to).unwrap();
    to.display().to_string()
}

fn decisions(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT count(*) FROM decisions", [], |r| r.get(0))
        .unwrap()
}

fn skipped(path: &str) -> String {
    format!(
        "skipped {path}: imported before, unchanged (same size, modification time and content); --force reads it again\n"
    )
}

#[test]
fn unchanged_files_are_skipped_changed_ones_read_in_full() {
    let (dir, db) = setup();
    let desk = copy(dir.path(), "desk.jsonl", "tests/fixtures/tui/desk.jsonl");
    let menus = copy(
        dir.path(),
        "menus.jsonl",
        "tests/fixtures/migration/menus.jsonl",
    );
    assert_eq!(
        import(&db, &[&desk, &menus]),
        "imported 1 catalogue, 6 runs, 17 decisions, 1 case from 2 files\nclassified 6 runs\n"
    );

    // Nothing changed: neither file is read.
    assert_eq!(
        import(&db, &[&desk, &menus]),
        format!(
            "{}{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 0 files\nclassified 0 runs\n",
            skipped(&desk),
            skipped(&menus)
        )
    );
    assert_eq!(decisions(&db), 17);

    // One file grows by a decision: it is read whole, the other skipped.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&menus)
        .unwrap();
    writeln!(
        f,
        r#"{{"type":"decision","run_id":"m-2","step":3,"selected":"list_invoices","outcome":{{"status":"ok"}}}}"#
    )
    .unwrap();
    drop(f);
    assert_eq!(
        import(&db, &[&desk, &menus]),
        format!(
            "{}imported 0 catalogues, 0 runs, 1 decision, 0 cases from 1 file\n7 records were already stored unchanged\nclassified 1 run\n",
            skipped(&desk)
        )
    );
    assert_eq!(decisions(&db), 18);

    // --force reads both again: every record is found unchanged.
    assert_eq!(
        import(&db, &["--force", &desk, &menus]),
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 2 files\n26 records were already stored unchanged\nclassified 0 runs\n"
    );

    // The same content with a new modification time is read again.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&desk)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(
        import(&db, &[&desk, &menus]),
        format!(
            "{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n18 records were already stored unchanged\nclassified 0 runs\n",
            skipped(&menus)
        )
    );
    // ... and then skipped in turn.
    assert_eq!(import(&db, &["-q", &desk, &menus]), "", "-q says nothing");
    assert_eq!(decisions(&db), 18);
}

#[test]
fn a_file_changed_within_the_same_size_and_time_is_read() {
    // Same size and modification time, different content: the hash tells.
    let (dir, db) = setup();
    let desk = copy(dir.path(), "desk.jsonl", "tests/fixtures/tui/desk.jsonl");
    let menus = copy(
        dir.path(),
        "menus.jsonl",
        "tests/fixtures/migration/menus.jsonl",
    );
    import(&db, &["-q", &desk, &menus]);
    let before = std::fs::metadata(&menus).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&menus).unwrap();
    // "find_customer" → "find_custumer": one letter, same length.
    let changed = text.replacen(
        r#""run_id":"m-2","step":2,"visible":["ask_user","no_applicable_tool","find_customer","list_invoices"],"selected":"find_customer""#,
        r#""run_id":"m-2","step":2,"visible":["ask_user","no_applicable_tool","find_customer","list_invoices"],"selected":"find_custumer""#,
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&menus, changed).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&menus)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let r = rung(&db, &["import", &menus]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("a different decision with this key was already imported"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_decision_keeps_16_bytes_of_its_identity_and_is_judged_by_them() {
    let (dir, db) = setup();
    let desk = copy(dir.path(), "desk.jsonl", "tests/fixtures/tui/desk.jsonl");
    import(&db, &["-q", &desk]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let lengths = |table: &str| -> Vec<(i64, i64)> {
        conn.prepare(&format!(
            "SELECT length(record_hash), count(*) FROM {table} GROUP BY 1"
        ))
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    };
    // Schema 13: a decision's first 16 bytes of SHA-256; a run its 32.
    assert_eq!(lengths("decision_rows"), vec![(16, 12)]);
    assert_eq!(lengths("runs"), vec![(32, 4)]);

    // Read again, every record is found unchanged by those 16 bytes.
    assert_eq!(
        import(&db, &["--force", &desk]),
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n18 records were already stored unchanged\nclassified 0 runs\n"
    );

    // A stored identity that differs in one of its bytes, or holds 32 bytes
    // that are not the decision's hash (a database written before schema
    // 13 holds all 32), is another record's: an error without --replace.
    for tampered in [
        "UPDATE decision_rows SET record_hash = CAST(X'00' || substr(record_hash, 2) AS BLOB)",
        "UPDATE decision_rows SET record_hash = CAST(record_hash || zeroblob(16) AS BLOB)",
    ] {
        let (dir2, db2) = setup();
        std::fs::copy(&db, &db2).unwrap();
        let conn2 = rusqlite::Connection::open(&db2).unwrap();
        conn2
            .execute(
                &format!("{tampered} WHERE run_id = 'r-101' AND step = 1"),
                [],
            )
            .unwrap();
        drop(conn2);
        let out = rung(&db2, &["import", "--force", &desk]);
        assert_eq!(out.code, 2, "{tampered}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "{desk}:3: decision r-101 step 1: a different decision with this key was \
                 already imported (from {desk}:3); pass --replace to overwrite it"
            )),
            "{tampered}: {}",
            out.stderr
        );
        drop(dir2);
    }
}
