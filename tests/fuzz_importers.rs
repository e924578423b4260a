//! A stable stand-in for `cargo fuzz` (which needs nightly): property-based
//! tests over every importer. Each case takes a valid file of a format,
//! mutates it (bytes flipped, inserted, cut or repeated; a JSON value
//! replaced by a huge number, deep nesting, a long or hostile string, a
//! wrong type; or plain random bytes) and imports it, in this process, into
//! a copy of a database that already holds a sample. Whatever the input:
//! no panic, no hang, an error names the file and its line, and a failed
//! import leaves the database exactly as it was. A quarter of the cases
//! import with `--keep-going`, skipping the bad records instead.
//!
//! `FUZZ_CASES` sets the cases per format (default 300: about 4,000 in all,
//! within the two minutes CI gives it on a debug build).

mod bfcl_fixture;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use clap::Parser;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn formats(name: &str) -> PathBuf {
    root().join("tests/fixtures/formats").join(name)
}

/// The longest one case may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(20);

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

// ---- the database every case starts from ---------------------------------

struct Base {
    _dir: tempfile::TempDir,
    db: PathBuf,
    dump: String,
}

/// A database holding the ladder-tour sample, imported once by the binary
/// (so that it is closed and checkpointed), and its dump.
fn base() -> &'static Base {
    static B: OnceLock<Base> = OnceLock::new();
    B.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("base.db");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
            .args(["-q", "--db", db.to_str().unwrap(), "import"])
            .arg(root().join("sample-traces/ladder-tour"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dump = dump(&db);
        Base {
            _dir: dir,
            db,
            dump,
        }
    })
}

/// Every row of every table, as text, sorted: what the database holds.
fn dump(db: &Path) -> String {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut out = String::new();
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut s = String::new();
                for i in 0..n {
                    let v: rusqlite::types::Value = r.get(i)?;
                    s.push_str(&format!("{v:?}|"));
                }
                Ok(s)
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        rows.sort();
        out.push_str(&format!("## {t} ({})\n{}\n", rows.len(), rows.join("\n")));
    }
    out
}

// ---- one case ---------------------------------------------------------------

/// Imports `files` (written under a new folder, by name) with `--format
/// format` into a copy of the base database, and checks what a user would
/// notice. `folder`: import the folder rather than each file.
fn check_import(
    format: &str,
    files: &[(String, Vec<u8>)],
    folder: bool,
    keep_going: bool,
) -> Result<bool, String> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    std::fs::copy(&base().db, &db).unwrap();
    let input = dir.path().join("in");
    let mut paths = Vec::new();
    for (name, bytes) in files {
        let p = input.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        paths.push(p);
    }
    let paths = if folder { vec![input.clone()] } else { paths };
    let (tx, rx) = mpsc::channel();
    let (db2, fmt) = (db.clone(), format.to_string());
    std::thread::spawn(move || {
        let cli =
            rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db2.to_str().unwrap()]).unwrap();
        let args = rung::cli::import::ImportArgs {
            paths,
            format: fmt,
            keep_going,
            ..Default::default()
        };
        let r = std::panic::catch_unwind(|| {
            rung::cli::import::run(&cli.global, &args).map_err(|e| e.to_string())
        });
        let _ = tx.send(r.map(|r| r.map(|_| ())));
    });
    let outcome = match rx.recv_timeout(HANG) {
        Ok(Ok(r)) => r,
        Ok(Err(panic)) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Err(format!("the import panicked: {msg}"));
        }
        Err(_) => return Err(format!("the import hung for more than {HANG:?}")),
    };
    if let Err(e) = outcome {
        // The error names the file (and, for its content, the line).
        let shown = input.display().to_string();
        if !e.starts_with(&shown) {
            return Err(format!("the error does not name the file: {e}"));
        }
        let rest = &e[shown.len()..];
        let after_name = rest.split_once(": ").map_or(rest, |(p, _)| p);
        let line_in_place = after_name
            .rsplit(':')
            .next()
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        // (A BFCL result whose question file is missing, or was emptied
        // and so is no BFCL file, is about a file that is not there: no
        // line of it is at fault.)
        let about_content = !e.contains("cannot read")
            && !e.contains("no trace files to import")
            && !e.contains("is empty")
            && !e.contains("no question file for BFCL category");
        let line_in_words = e.contains("line ");
        if about_content && !line_in_place && !line_in_words {
            return Err(format!("the error names no line: {e}"));
        }
        // One line, or rung's own indented list (the formats tried): no
        // input can start a line of its own.
        if e.lines()
            .skip(1)
            .any(|l| !l.starts_with("  ") && !l.starts_with("name one with --format"))
        {
            return Err(format!("the error is not one line: {e:?}"));
        }
        if e.contains('\u{1b}') {
            return Err(format!("the error holds an escape character: {e:?}"));
        }
        // Nothing of the failed batch was stored.
        let after = dump(&db);
        if after != base().dump {
            return Err(format!("a failed import changed the database ({e})"));
        }
        return Ok(false);
    }
    Ok(true)
}

// ---- inputs -----------------------------------------------------------------

/// A change to a file's bytes, at a place given as a fraction of its length.
#[derive(Debug, Clone)]
enum ByteEdit {
    Flip(f64, u8),
    Insert(f64, Vec<u8>),
    Delete(f64, usize),
    Repeat(f64, usize, usize),
    Truncate(f64),
}

fn byte_edit() -> impl Strategy<Value = ByteEdit> {
    let at = 0.0..1.0f64;
    let bytes = prop::collection::vec(
        prop_oneof![
            any::<u8>(),
            Just(b'"'),
            Just(b'{'),
            Just(b'}'),
            Just(b'['),
            Just(b']'),
            Just(b','),
            Just(b':'),
            Just(b'\n'),
            Just(b'\\'),
            Just(0x1b),
            Just(b'9'),
        ],
        1..12,
    );
    prop_oneof![
        (at.clone(), any::<u8>()).prop_map(|(a, b)| ByteEdit::Flip(a, b)),
        (at.clone(), bytes).prop_map(|(a, b)| ByteEdit::Insert(a, b)),
        (at.clone(), 1..64usize).prop_map(|(a, n)| ByteEdit::Delete(a, n)),
        (at.clone(), 1..256usize, 1..20usize).prop_map(|(a, n, k)| ByteEdit::Repeat(a, n, k)),
        at.prop_map(ByteEdit::Truncate),
    ]
}

fn apply_bytes(mut v: Vec<u8>, edits: &[ByteEdit]) -> Vec<u8> {
    for e in edits {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len);
        match e {
            ByteEdit::Flip(f, b) => {
                if !v.is_empty() {
                    let i = at(*f, v.len() - 1);
                    v[i] ^= b.max(&1);
                }
            }
            ByteEdit::Insert(f, bytes) => {
                let i = at(*f, v.len());
                v.splice(i..i, bytes.iter().copied());
            }
            ByteEdit::Delete(f, n) => {
                let i = at(*f, v.len());
                let j = (i + n).min(v.len());
                v.drain(i..j);
            }
            ByteEdit::Repeat(f, n, k) => {
                let i = at(*f, v.len());
                let j = (i + n).min(v.len());
                let piece = v[i..j].to_vec();
                for _ in 0..*k {
                    v.splice(j..j, piece.iter().copied());
                }
            }
            ByteEdit::Truncate(f) => {
                let i = at(*f, v.len());
                v.truncate(i);
            }
        }
    }
    v
}

/// What a JSON value is replaced with.
fn hostile_value() -> impl Strategy<Value = Value> {
    let deep = |n: usize| -> Value {
        serde_json::from_str(&format!("{}{}", "[".repeat(n), "]".repeat(n))).unwrap_or(Value::Null)
    };
    prop_oneof![
        Just(Value::Null),
        Just(Value::Bool(true)),
        Just(serde_json::json!(-1)),
        Just(serde_json::json!(0)),
        Just(serde_json::json!(i64::MAX)),
        Just(serde_json::json!(u64::MAX)),
        Just(serde_json::json!(i64::MIN)),
        Just(serde_json::json!(1e300)),
        Just(serde_json::json!(-0.5)),
        Just(serde_json::json!("")),
        Just(serde_json::json!("\u{1b}[2J\u{202e}\u{200b}\n\r\t\u{0}")),
        Just(serde_json::json!("sk-proj-4f9aQ2xLk81abcdEFGH")),
        Just(serde_json::json!("2026-13-45T99:99:99Z")),
        Just(serde_json::json!("x".repeat(100_000))),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
        Just(serde_json::json!([1, "a", null, {"k": []}])),
        Just(serde_json::json!({"type": "decision", "run_id": "r", "step": 1, "selected": null})),
        (1..40usize).prop_map(deep),
        Just(deep(127)),
        Just(deep(200)),
        "[a-z_@]{0,12}".prop_map(Value::String),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

/// The nodes of a JSON value, in document order, by path.
fn node_count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(node_count).sum(),
        Value::Object(o) => o.values().map(node_count).sum(),
        _ => 0,
    }
}

/// Replaces the `i`th node (document order) with `with`; `key`: also
/// renames an object key on the way, when the node is an object's member.
fn replace_node(v: &mut Value, i: &mut usize, with: &Value, rename: Option<&str>) -> bool {
    if *i == 0 {
        *v = with.clone();
        return true;
    }
    *i -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace_node(x, i, with, rename)),
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                if *i == 0
                    && let Some(new) = rename
                {
                    let old = o.remove(&k).unwrap();
                    o.insert(new.to_string(), old);
                    return true;
                }
                if replace_node(o.get_mut(&k).unwrap(), i, with, rename) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

/// One JSON document (or each line of JSON Lines) with a node replaced.
fn apply_json(
    seed: &[u8],
    pick: f64,
    line_pick: f64,
    with: &Value,
    rename: Option<&str>,
) -> Vec<u8> {
    let text = String::from_utf8_lossy(seed);
    let mut doc: Option<Value> = serde_json::from_str(&text).ok();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let target: &mut Value;
    let mut line_value;
    let line_idx;
    if let Some(d) = doc.as_mut() {
        target = d;
        line_idx = None;
    } else {
        if lines.is_empty() {
            return seed.to_vec();
        }
        let li = ((line_pick * lines.len() as f64) as usize).min(lines.len() - 1);
        match serde_json::from_str::<Value>(&lines[li]) {
            Ok(v) => line_value = v,
            Err(_) => return seed.to_vec(),
        }
        target = &mut line_value;
        line_idx = Some(li);
    }
    let n = node_count(target);
    let mut i = ((pick * n as f64) as usize).min(n - 1);
    replace_node(target, &mut i, with, rename);
    match line_idx {
        None => serde_json::to_vec(target).unwrap(),
        Some(li) => {
            lines[li] = serde_json::to_string(target).unwrap();
            (lines.join("\n") + "\n").into_bytes()
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Bytes(Vec<ByteEdit>),
    Json {
        pick: f64,
        line: f64,
        with: Value,
        rename: Option<String>,
        then: Vec<ByteEdit>,
    },
    Random(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => prop::collection::vec(byte_edit(), 1..5).prop_map(Mutation::Bytes),
        5 => (
            0.0..1.0f64,
            0.0..1.0f64,
            hostile_value(),
            prop::option::weighted(0.2, "[a-z_]{1,10}"),
            prop::collection::vec(byte_edit(), 0..2),
        )
            .prop_map(|(pick, line, with, rename, then)| Mutation::Json {
                pick,
                line,
                with,
                rename,
                then,
            }),
        1 => prop::collection::vec(any::<u8>(), 0..2048).prop_map(Mutation::Random),
    ]
}

fn mutate(seed: &[u8], m: &Mutation) -> Vec<u8> {
    match m {
        Mutation::Bytes(edits) => apply_bytes(seed.to_vec(), edits),
        Mutation::Json {
            pick,
            line,
            with,
            rename,
            then,
        } => apply_bytes(
            apply_json(seed, *pick, *line, with, rename.as_deref()),
            then,
        ),
        Mutation::Random(bytes) => bytes.clone(),
    }
}

// ---- the runs -----------------------------------------------------------------

/// Runs the property for `format` over mutations of `seeds` (file name,
/// path); `folder`: the files are imported together as one folder (BFCL),
/// one of them mutated.
fn fuzz(name: &str, format: &str, seeds: &[(&str, PathBuf)], folder: bool) {
    let seeds: Vec<(String, Vec<u8>)> = seeds
        .iter()
        .map(|(n, p)| {
            let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("seed {}: {e}", p.display()));
            (n.to_string(), bytes)
        })
        .collect();
    fuzz_bytes(name, format, seeds, folder);
}

fn fuzz_bytes(name: &str, format: &str, seeds: Vec<(String, Vec<u8>)>, folder: bool) {
    // The seeds themselves import (or the mutations test nothing).
    check_import(format, &seeds, folder, false)
        .unwrap_or_else(|e| panic!("{name}: the seeds: {e}"));
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        source_file: Some(file!()),
        ..Config::default()
    });
    let n = seeds.len();
    let (imported, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    // A quarter of the cases skip bad records (--keep-going) instead.
    let keep_going = prop::bool::weighted(0.25);
    let result = runner.run(&(0..n, mutation(), keep_going), |(which, m, keep_going)| {
        let mut files = seeds.clone();
        if folder {
            files[which].1 = mutate(&files[which].1, &m);
        } else {
            files = vec![(files[which].0.clone(), mutate(&files[which].1, &m))];
        }
        let ok = check_import(format, &files, folder, keep_going).map_err(TestCaseError::fail)?;
        let c = if ok { &imported } else { &refused };
        c.set(c.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    println!(
        "{name}: {} cases: {} imported, {} refused (each naming its file and line, the database unchanged)",
        imported.get() + refused.get(),
        imported.get(),
        refused.get()
    );
    // The mutations reach the importer's checks, not only its happy path.
    assert!(refused.get() > 0, "{name}: no mutation was refused");
}

fn seed(name: &str) -> (&str, PathBuf) {
    (name, formats(name))
}

#[test]
fn rung_native() {
    // Sets the base database does not hold, each whole in one file (so
    // that a mutated file still resolves its catalogue).
    let whole = |dir: &str| -> Vec<u8> {
        let d = root().join("sample-traces").join(dir);
        let mut names: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        names.sort();
        names
            .iter()
            .flat_map(|p| std::fs::read(p).unwrap())
            .collect()
    };
    let read = |p: PathBuf| std::fs::read(p).unwrap();
    fuzz_bytes(
        "rung",
        "rung",
        vec![
            (
                "desk.jsonl".into(),
                read(root().join("tests/fixtures/tui/desk.jsonl")),
            ),
            ("operations.jsonl".into(), whole("operations-cases")),
            (
                "otel-example.rung.jsonl".into(),
                read(formats("otel-example.rung.jsonl")),
            ),
        ],
        false,
    );
}

#[test]
fn auto_detection() {
    fuzz(
        "auto",
        "auto",
        &[
            seed("openai-transcripts.jsonl"),
            seed("responses-bodies.jsonl"),
            seed("otlp-openllmetry-old.jsonl"),
            ("desk.jsonl", root().join("tests/fixtures/tui/desk.jsonl")),
        ],
        false,
    );
}

#[test]
fn otlp_and_langfuse() {
    fuzz(
        "otlp",
        "otlp",
        &[
            seed("otlp-frameworks.json"),
            seed("otlp-no-content.json"),
            seed("otlp-orphan-tool-span.json"),
            seed("otlp-openllmetry-old.jsonl"),
        ],
        false,
    );
    fuzz("langfuse", "langfuse", &[seed("langfuse-mini.json")], false);
}

#[test]
fn provider_transcripts() {
    fuzz(
        "openai",
        "openai",
        &[
            seed("openai-transcripts.jsonl"),
            seed("openai-dropped.json"),
        ],
        false,
    );
    fuzz(
        "openai-responses",
        "openai-responses",
        &[
            seed("responses-bodies.jsonl"),
            seed("responses-transcript.json"),
        ],
        false,
    );
    fuzz(
        "anthropic",
        "anthropic",
        &[seed("anthropic-transcript.json")],
        false,
    );
    fuzz(
        "gemini",
        "gemini",
        &[seed("gemini-request.json"), seed("gemini-response.json")],
        false,
    );
}

#[test]
fn agent_logs() {
    fuzz(
        "tau-bench",
        "tau-bench",
        &[seed("tau-bench-mini.json")],
        false,
    );
    fuzz(
        "swe-agent",
        "swe-agent",
        &[seed("swe-agent-text.traj")],
        false,
    );
    fuzz("inspect", "inspect", &[seed("inspect-log.json")], false);
    fuzz(
        "messages",
        "messages",
        &[
            seed("messages-anthropic.json"),
            seed("messages-calls.json"),
            seed("messages-mini-swe.json"),
        ],
        false,
    );
}

#[test]
fn bfcl_results() {
    let v1 = bfcl_fixture::staged("v1");
    let mut files = Vec::new();
    walk(&v1, &v1, &mut files);
    files.sort();
    fuzz_bytes("bfcl", "bfcl", files, true);
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(base, &p, out);
        } else {
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            out.push((rel, std::fs::read(&p).unwrap()));
        }
    }
}

// ---- what the fuzzing found, kept ---------------------------------------------

/// Found by `bfcl_results` (--keep-going): a BFCL entry id holding a
/// newline and escape sequences was written raw into the "entry ID"
/// part of the error, and the skipped line was printed as two.
#[test]
fn regression_a_bfcl_entry_id_cannot_forge_a_line() {
    let v1 = bfcl_fixture::staged("v1");
    let mut files = Vec::new();
    walk(&v1, &v1, &mut files);
    let result = files
        .iter_mut()
        .find(|(n, _)| n.ends_with("test_simple_result.json"))
        .unwrap();
    let text = String::from_utf8(result.1.clone()).unwrap().replacen(
        "\"simple_0\"",
        "\"simple_0\\n\\u001b[2Jrung: imported 9 runs sk-proj-4f9aQ2xLk81abcdEFGH\"",
        1,
    );
    result.1 = text.into_bytes();
    for keep_going in [false, true] {
        assert_eq!(
            check_import("bfcl", &files, true, keep_going),
            Ok(keep_going),
            "keep going: {keep_going}"
        );
    }
    // The error as a user reads it: one line, escaped and masked.
    let dir = tempfile::tempdir().unwrap();
    for (n, b) in &files {
        let p = dir.path().join(n);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rung"))
        .args(["--db"])
        .arg(dir.path().join("t.db"))
        .args(["import", "--format", "bfcl"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("entry simple_0\\n\\x1b[2Jrung: imported 9 runs ••••: no such entry"),
        "{err}"
    );
}
