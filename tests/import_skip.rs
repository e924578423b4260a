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
