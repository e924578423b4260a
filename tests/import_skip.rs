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

/// Importing `file` fails: a decision in it differs from the stored one.
fn refused_as_different(db: &Path, file: &str) {
    let r = rung(db, &["import", file]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("a different decision with this key was already imported"),
        "{}",
        r.stderr
    );
}

/// desk.jsonl (a catalogue, 4 runs, 12 decisions, a case) and the menus
/// fixture (2 runs, 5 decisions on it) copied into `dir` as `desk.jsonl`
/// and `menus_as`.
fn desk_and_menus(dir: &Path, menus_as: &str) -> (String, String) {
    (
        copy(dir, "desk.jsonl", "tests/fixtures/tui/desk.jsonl"),
        copy(dir, menus_as, "tests/fixtures/migration/menus.jsonl"),
    )
}

#[test]
fn unchanged_files_are_skipped_changed_ones_read_in_full() {
    let (dir, db) = setup();
    let (desk, menus) = desk_and_menus(dir.path(), "menus.jsonl");
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
    let (desk, menus) = desk_and_menus(dir.path(), "menus.jsonl");
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
    refused_as_different(&db, &menus);
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

/// The runs stored with their catalogue (a run whose record was skipped
/// for a missing catalogue is kept bare, without it).
fn runs_with_catalogue(db: &Path) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "SELECT count(*) FROM runs WHERE catalogue IS NOT NULL",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn a_file_whose_records_were_skipped_is_read_again() {
    // desk.jsonl's catalogue in one file, its runs in another: under
    // --keep-going the runs' records are skipped (their catalogue is not
    // there yet), so that file is not taken as imported.
    let (dir, db) = setup();
    let desk = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl"),
    )
    .unwrap();
    let (catalogue, runs) = desk.split_once('\n').unwrap();
    let cat = dir.path().join("cat.jsonl");
    let rest = dir.path().join("runs.jsonl");
    std::fs::write(&cat, format!("{catalogue}\n")).unwrap();
    std::fs::write(&rest, runs).unwrap();
    let (cat, rest) = (cat.display().to_string(), rest.display().to_string());
    let r = rung(&db, &["import", "--keep-going", &rest]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.ends_with("skipped 4 bad records\n"),
        "{}",
        r.stderr
    );
    assert_eq!((runs_with_catalogue(&db), decisions(&db)), (0, 12));
    import(&db, &["-q", &cat]);
    // Read again now that its catalogue is there: the runs get it.
    assert_eq!(
        import(&db, &[&rest]),
        "imported 0 catalogues, 4 runs, 0 decisions, 0 cases from 1 file\n13 records were already stored unchanged\nclassified 4 runs\n"
    );
    assert_eq!((runs_with_catalogue(&db), decisions(&db)), (4, 12));
    // ... and now it is recorded.
    assert_eq!(
        import(&db, &[&rest]),
        format!(
            "{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 0 files\nclassified 0 runs\n",
            skipped(&rest)
        )
    );
}

#[test]
fn replace_reads_a_file_imported_before_and_a_replaced_file_is_no_longer_skipped() {
    let (dir, db) = setup();
    let (desk, a) = desk_and_menus(dir.path(), "a.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    let b = dir.path().join("b.jsonl");
    let changed = text.replacen(
        r#""step":2,"visible":["ask_user","no_applicable_tool","find_customer","list_invoices"],"selected":"find_customer""#,
        r#""step":2,"visible":["ask_user","no_applicable_tool","find_customer","list_invoices"],"selected":"list_invoices""#,
        1,
    );
    assert_ne!(changed, text);
    std::fs::write(&b, changed).unwrap();
    let b = b.display().to_string();
    let selected = || -> String {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.query_row(
            "SELECT selected FROM decisions WHERE run_id = 'm-2' AND step = 2",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    import(&db, &["-q", &desk, &a]);
    assert_eq!(selected(), "find_customer");
    assert_eq!(
        import(&db, &["--replace", &b]),
        "imported 0 catalogues, 0 runs, 0 decisions (+1 replaced), 0 cases from 1 file\n6 records were already stored unchanged\nclassified 1 run\n"
    );
    assert_eq!(selected(), "list_invoices");
    // a.jsonl is unchanged, but what it holds is no longer what is stored:
    // it is read, and says so.
    refused_as_different(&db, &a);
    // --replace reads a file even when it was recorded unchanged.
    import(&db, &["-q", &b]);
    assert_eq!(
        import(&db, &["--replace", &a]),
        "imported 0 catalogues, 0 runs, 0 decisions (+1 replaced), 0 cases from 1 file\n6 records were already stored unchanged\nclassified 1 run\n"
    );
    assert_eq!(selected(), "find_customer");
    // desk.jsonl held none of the replaced records, but was forgotten too:
    // read once more, found unchanged, recorded again.
    assert_eq!(
        import(&db, &[&desk, &a]),
        format!(
            "{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n18 records were already stored unchanged\nclassified 0 runs\n",
            skipped(&a)
        )
    );
    assert_eq!(
        import(&db, &[&desk, &a]),
        format!(
            "{}{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 0 files\nclassified 0 runs\n",
            skipped(&desk),
            skipped(&a)
        )
    );
}

#[test]
fn a_file_name_cannot_forge_a_line_of_the_skip_notice() {
    let (dir, db) = setup();
    let name = "x\nimported 9 catalogues from 9 files\n\u{1b}[31mred.jsonl";
    copy(dir.path(), name, "tests/fixtures/tui/desk.jsonl");
    let folder = dir.path().display().to_string();
    import(&db, &["-q", &folder]);
    let said = import(&db, &[&folder]);
    assert_eq!(
        said,
        format!(
            "{}imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 0 files\nclassified 0 runs\n",
            skipped(&format!(
                "{folder}/x\\nimported 9 catalogues from 9 files\\n\\x1b[31mred.jsonl"
            ))
        )
    );
}

#[test]
fn a_trace_file_named_in_capitals_is_always_read() {
    // `.JSONL` is not what a folder's walk or the recordings' scan takes
    // for a trace file (it may be a recorded body): never skipped.
    let (dir, db) = setup();
    let desk = copy(dir.path(), "desk.JSONL", "tests/fixtures/tui/desk.jsonl");
    import(&db, &["-q", &desk]);
    assert_eq!(
        import(&db, &[&desk]),
        "imported 0 catalogues, 0 runs, 0 decisions, 0 cases from 1 file\n18 records were already stored unchanged\nclassified 0 runs\n"
    );
}

#[test]
fn a_file_read_with_another_catalogue_or_format_is_read_again() {
    // The same transcripts bound to another catalogue are other runs: the
    // file is read, and its runs differ from the stored ones.
    let (dir, db) = setup();
    let cat = dir.path().join("cat.jsonl");
    std::fs::write(
        &cat,
        concat!(
            r#"{"type":"catalogue","version":"orders-1","tools":[{"name":"lookup_order","family":"orders","effect":"read_only","description":"Look up an order."}]}"#,
            "\n",
            r#"{"type":"catalogue","version":"orders-2","tools":[{"name":"lookup_order","family":"orders","effect":"read_only","description":"Look up an order."}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let cat = cat.display().to_string();
    let t = copy(
        dir.path(),
        "t.jsonl",
        "tests/fixtures/formats/openai-transcripts.jsonl",
    );
    import(&db, &["-q", "--catalogue", "orders-1", &cat, &t]);
    let again = import(&db, &["--catalogue", "orders-1", &cat, &t]);
    assert!(
        again.starts_with(&format!("{}{}", skipped(&cat), skipped(&t))),
        "{again}"
    );
    let r = rung(&db, &["import", "--catalogue", "orders-2", &cat, &t]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("a different run with this key was already imported"),
        "{}",
        r.stderr
    );
    // Read as rung's own format, the transcripts are not runs: read, and
    // every line is a bad record.
    let r = rung(&db, &["import", "--format", "rung", &t]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.starts_with(&format!("{t}:1: ")), "{}", r.stderr);
}
