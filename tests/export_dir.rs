//! What `rung export --force` does to DIR: a failed export leaves it
//! exactly as it was (every entry and every byte, no staging folder left);
//! a successful one replaces the five table folders and nothing else.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;

/// A database with one sample set imported.
fn db(dir: &Path, set: &str) -> PathBuf {
    let db = dir.join(format!("{set}.db"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-traces")
        .join(set);
    let r = rung(&db, &["import", "-q", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    db
}

fn export(db: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["export", "--format", "parquet", out.to_str().unwrap()];
    args.extend(extra);
    rung(db, &args)
}

/// What a folder holds: every entry under it (hidden ones too), relative,
/// with its kind and a file's bytes or a link's target.
fn listing(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                let to = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("link to {}", to.display()));
            } else if m.is_dir() {
                out.insert(rel, "folder".into());
                walk(base, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(rel, format!("file {bytes:?}"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The files under `dir` that are not folders, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    listing(dir)
        .into_iter()
        .filter(|(_, what)| what != "folder")
        .map(|(p, _)| p)
        .collect()
}

/// Staging folders left in `dir`.
fn staging(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".rung-export-"))
        .collect()
}

/// An earlier export of brightdesk-billing in `ff`, with files of the
/// user's beside its tables, and another database to export over it.
struct Earlier {
    tmp: tempfile::TempDir,
    dir: PathBuf,
    other: PathBuf,
}

fn earlier() -> Earlier {
    let tmp = tempfile::tempdir().unwrap();
    let first = db(tmp.path(), "brightdesk-billing");
    let dir = tmp.path().join("ff");
    let r = export(&first, &dir, &["-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    write(&dir, "NOTES.txt", "mine");
    write(&dir, "mine/queries.sql", "SELECT 1;");
    // A staging folder some other (killed) export left: not rung's to touch.
    write(&dir, ".rung-export-1/new/runs/part-0.parquet", "stale");
    let other = db(tmp.path(), "ladder-tour");
    Earlier { tmp, dir, other }
}

impl Earlier {
    /// Exports the other database over DIR with `--force`, which must
    /// fail with `message`, and checks DIR is as it was: the same entries
    /// with the same bytes, no staging folder of its own left.
    fn fails_and_leaves_dir_as_it_was(&self, message: &str) {
        let before = listing(&self.dir);
        let staged = staging(&self.dir);
        let r = export(&self.other, &self.dir, &["--force"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(r.stderr, format!("rung: {message}\n"));
        assert_eq!(listing(&self.dir), before);
        assert_eq!(staging(&self.dir), staged);
    }
}

/// The reviewer's case: `tools` replaced by a plain file. The export
/// names it and replaces none of the other four tables.
#[test]
fn a_file_where_a_table_goes_fails_and_leaves_dir_as_it_was() {
    let e = earlier();
    std::fs::remove_dir_all(e.dir.join(".rung-export-1")).unwrap();
    let tools = e.dir.join("tools");
    std::fs::remove_dir_all(&tools).unwrap();
    std::fs::write(&tools, "not a folder").unwrap();
    e.fails_and_leaves_dir_as_it_was(&format!(
        "{} exists and is not a directory",
        tools.display()
    ));
    assert_eq!(staging(&e.dir), Vec::<String>::new());
    // The first table checked is the one named.
    let runs = e.dir.join("runs");
    std::fs::remove_dir_all(&runs).unwrap();
    std::fs::write(&runs, "").unwrap();
    e.fails_and_leaves_dir_as_it_was(&format!("{} exists and is not a directory", runs.display()));
}

/// A link to a file or to nothing is in the way too; a link to a folder
/// is replaced (the link, not what it points to).
#[cfg(unix)]
#[test]
fn links_where_a_table_goes() {
    use std::os::unix::fs::symlink;
    let e = earlier();
    let refusals = e.dir.join("refusals");
    std::fs::remove_dir_all(&refusals).unwrap();
    symlink(e.tmp.path().join("nowhere"), &refusals).unwrap();
    e.fails_and_leaves_dir_as_it_was(&format!(
        "{} exists and is not a directory",
        refusals.display()
    ));
    std::fs::remove_file(&refusals).unwrap();
    let file = write(e.tmp.path(), "a-file", "x");
    symlink(&file, &refusals).unwrap();
    e.fails_and_leaves_dir_as_it_was(&format!(
        "{} exists and is not a directory",
        refusals.display()
    ));

    std::fs::remove_file(&refusals).unwrap();
    let elsewhere = e.tmp.path().join("elsewhere");
    write(&elsewhere, "keep.txt", "kept");
    symlink(&elsewhere, &refusals).unwrap();
    let r = export(&e.other, &e.dir, &["--force", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!std::fs::symlink_metadata(&refusals).unwrap().is_symlink());
    let parts = files(&refusals);
    assert!(
        !parts.is_empty() && parts.iter().all(|f| f.ends_with("/part-0.parquet")),
        "{parts:?}"
    );
    // What the link pointed to is untouched.
    assert_eq!(listing(&elsewhere).len(), 1);
}

/// An export that fails while it writes (a stored menu that does not
/// decode) leaves an earlier export as it was, and a DIR it had to make
/// is not left behind.
#[test]
fn a_failure_while_writing_leaves_dir_as_it_was() {
    let e = earlier();
    let c = rusqlite::Connection::open(&e.other).unwrap();
    // Through the view's trigger, which reports no rows changed.
    c.execute("UPDATE ladder SET retrieved = '[\"search\", true]'", [])
        .unwrap();
    drop(c);
    let before = listing(&e.dir);
    let r = export(&e.other, &e.dir, &["--force"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // Failed while writing the decisions (the runs written before them).
    assert!(
        r.stderr.contains("decisions") && r.stderr.contains("retrieved"),
        "{}",
        r.stderr
    );
    assert_eq!(listing(&e.dir), before);
    // Only the one some other export left.
    assert_eq!(staging(&e.dir), [".rung-export-1"]);

    let fresh = e.tmp.path().join("new/deeper/out");
    let r = export(&e.other, &fresh, &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!e.tmp.path().join("new").exists());
}

/// `--force` replaces the five table folders (days of the earlier export
/// that the new one does not have go with them) and keeps everything else.
#[test]
fn force_replaces_the_five_folders_and_keeps_other_files() {
    let e = earlier();
    write(&e.dir, "decisions/day=2020-01-01/part-0.parquet", "old day");
    let theirs: BTreeMap<String, String> = listing(&e.dir)
        .into_iter()
        .filter(|(p, _)| {
            p == "NOTES.txt" || p.starts_with("mine") || p.starts_with(".rung-export-1")
        })
        .collect();
    assert_eq!(theirs.len(), 7, "{theirs:?}");

    let r = export(&e.other, &e.dir, &["--force", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The tables are those of a fresh export of the same database, byte
    // for byte.
    let fresh = e.tmp.path().join("fresh");
    let r = export(&e.other, &fresh, &["-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut want = listing(&fresh);
    assert!(want.len() > 10, "{want:?}");
    want.extend(theirs);
    assert_eq!(listing(&e.dir), want);
    assert!(!files(&e.dir).iter().any(|f| f.contains("2020-01-01")));
    assert_eq!(staging(&e.dir), [".rung-export-1"]);
}
