//! The database file under real-world conditions: a read-only folder, a
//! second import while one runs, two first imports racing on a new file, a
//! failed first import.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

const D: &str = r#"{"type":"decision","run_id":"r","step":1,"selected":"A"}"#;

fn decisions(out: &Run) -> u64 {
    json(out)["decisions"].as_u64().unwrap()
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `rung ARGS...` as a user who cannot write to `dir` (as nobody when the
/// tests run as root, who could write anywhere).
#[cfg(unix)]
fn rung_unprivileged(db: &Path, args: &[&str]) -> Run {
    use std::os::unix::process::CommandExt;
    let mut c: Command = bin();
    c.arg("--db").arg(db).args(args);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        c.uid(65534).gid(65534);
    }
    c.output().expect("rung runs").into()
}

#[cfg(unix)]
#[test]
fn a_database_in_a_read_only_folder_can_be_read() {
    let tmp = tempfile::tempdir().unwrap();
    set_mode(tmp.path(), 0o755);
    let dir = tmp.path().join("ro");
    let db = dir.join("t.db");
    let f = write(&dir, "a.jsonl", &format!("{D}\n"));
    assert_eq!(rung(&db, &["import", f.to_str().unwrap()]).code, 0);
    assert!(!Path::new(&format!("{}-shm", db.display())).exists());
    set_mode(&dir, 0o555);
    let r = rung_unprivileged(&db, &["report", "ladder", "--format", "json"]);
    let got = (r.code, r.stderr.clone());
    let n = if r.code == 0 { decisions(&r) } else { 0 };
    let e = rung_unprivileged(&db, &["explain", "r"]);
    set_mode(&dir, 0o755);
    assert_eq!(got, (0, String::new()));
    assert_eq!(n, 1);
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(e.stdout.contains("decision r step 1"), "{}", e.stdout);
}

#[test]
fn a_second_import_while_one_runs_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let f = write(dir.path(), "a.jsonl", &format!("{D}\n"));
    assert_eq!(rung(&db, &["import", f.to_str().unwrap()]).code, 0);
    // Another writer holds the database (as a running import does).
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = rung(&db, &["import", f.to_str().unwrap()]);
    conn.execute_batch("ROLLBACK").unwrap();
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "rung: {}: another rung process is importing into (or reclassifying) this database; it stayed locked for 10 s. Try again when it finishes\n",
            db.display()
        )
    );
    // Reading is not blocked by a writer.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = rung(&db, &["report", "ladder", "--format", "json"]);
    assert_eq!(decisions(&r), 1);
}

#[test]
fn first_imports_racing_on_a_new_file_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = (1..=4)
        .map(|i| {
            let d = format!(r#"{{"type":"decision","run_id":"r{i}","step":1,"selected":"A"}}"#);
            write(dir.path(), &format!("{i}.jsonl"), &format!("{d}\n"))
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for round in 0..5 {
        let db = dir.path().join(format!("race-{round}.db"));
        let children: Vec<_> = files
            .iter()
            .map(|f| {
                bin()
                    .arg("--db")
                    .arg(&db)
                    .args(["import", f])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let r: Run = c.wait_with_output().unwrap().into();
            assert_eq!(r.code, 0, "round {round}: {}", r.stderr);
            assert!(!r.stderr.contains("already exists"), "{}", r.stderr);
        }
        assert_eq!(
            decisions(&rung(&db, &["report", "ladder", "--format", "json"])),
            4
        );
    }
}

#[test]
fn a_failed_first_import_leaves_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let f = write(dir.path(), "a.jsonl", &format!("{D}\nnot json\n"));
    let r = rung(&db, &["import", f.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["a.jsonl"]);
    // A failed import into an existing database keeps it as it was.
    let good = write(dir.path(), "b.jsonl", &format!("{D}\n"));
    assert_eq!(rung(&db, &["import", good.to_str().unwrap()]).code, 0);
    assert_eq!(rung(&db, &["import", f.to_str().unwrap()]).code, 2);
    assert_eq!(
        decisions(&rung(&db, &["report", "ladder", "--format", "json"])),
        1
    );
}
