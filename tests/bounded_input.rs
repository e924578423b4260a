//! Input that would take unbounded memory or time is refused with an error
//! naming where (or skipped with a warning naming the path): over-long
//! lines, stretches of blank lines, values too big to parse, whole-read
//! files over the limit, and folders holding links and special files.
//! Their memory is measured in `benches/memory.rs`.

mod common;

use common::*;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const D1: &str = r#"{"type":"decision","run_id":"r","step":1,"selected":"A"}"#;
const D2: &str = r#"{"type":"decision","run_id":"r","step":2,"selected":"B"}"#;

/// `rung --db DB ARGS...`, failing (not hanging) after 30 s.
fn rung_within(db: &Path, args: &[&str]) -> Run {
    let mut child = bin()
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rung runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("rung {args:?} did not finish in 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap().into()
}

fn decisions(db: &Path) -> u64 {
    json(&rung(db, &["report", "ladder", "--format", "json"]))["decisions"]
        .as_u64()
        .unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_line_over_max_line_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let long = format!(
        r#"{{"type":"decision","run_id":"r","step":3,"selected":"A","result":"{}"}}"#,
        "x".repeat(2000)
    );
    let f = write(dir.path(), "a.jsonl", &format!("{D1}\n{long}\n{D2}\n"));
    let f = f.to_str().unwrap();
    for format in ["auto", "rung"] {
        let r = rung(&db, &["import", "--max-line", "1KB", "--format", format, f]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "{f}:2: the line is longer than 1 KB (--max-line); each record is one line, so this is not a trace line (or raise --max-line)\n"
            )
        );
        assert!(!db.exists() || decisions(&db) == 0);
    }
    // --keep-going skips that line and reads the next one
    let r = rung(&db, &["import", "--max-line", "1KB", "--keep-going", f]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "skipped: {f}:2: the line is longer than 1 KB (--max-line)"
        )),
        "{}",
        r.stderr
    );
    assert_eq!(decisions(&db), 2);
    // the default (256 MB) takes it
    let db2 = dir.path().join("u.db");
    assert_eq!(rung(&db2, &["import", f]).code, 0);
    assert_eq!(decisions(&db2), 3);
}

#[test]
fn a_line_of_spaces_counts_as_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let mut input = format!("{D1}\n").into_bytes();
    input.extend(std::iter::repeat_n(b' ', 5000));
    input.extend_from_slice(format!("\n{D2}\n").as_bytes());
    let r = rung_stdin(&db, &["import", "--max-line", "4KB", "-"], &input);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "<stdin>:2: the line is longer than 4 KB (--max-line); each record is one line, so this is not a trace line (or raise --max-line)\n"
    );
}

#[test]
fn a_gzip_of_blank_lines_ends_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let bomb = gzip(&vec![b'\n'; 1 << 20]);
    let f = dir.path().join("bomb.jsonl.gz");
    std::fs::write(&f, bomb).unwrap();
    let f = f.to_str().unwrap();
    for format in ["auto", "rung"] {
        let r = rung_within(
            &db,
            &["import", "--max-line", "64KB", "--format", format, f],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "{f}:65537: more than 64 KB of blank lines with no record (--max-line); this does not look like a trace file\n"
            )
        );
    }
    // Blank lines before a record are fine, and its line number is right.
    let mut text = vec![b'\n'; 1000];
    text.extend_from_slice(br#"{"type":"decision","run_id":"r","step":0,"selected":"A"}"#);
    let g = dir.path().join("late.jsonl.gz");
    std::fs::write(&g, gzip(&text)).unwrap();
    let r = rung(&db, &["import", g.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with(&format!("{}:1001: ", g.display())),
        "{}",
        r.stderr
    );
}

#[test]
fn a_line_of_many_small_values_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    // 200,000 numbers in 400 KB: far more than 1 MB once parsed (48 bytes
    // each); the limit is crossed at the 21,845th number (48 bytes each,
    // the list's own 48 first).
    let numbers = format!(r#"[{}1]"#, "1,".repeat(200_000));
    let f = write(dir.path(), "a.jsonl", &format!("{D1}\n{numbers}\n"));
    let f = f.to_str().unwrap();
    let column = 1 + 2 * 21_844 + 1;
    for format in ["auto", "rung"] {
        let r = rung(&db, &["import", "--max-line", "1MB", "--format", format, f]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "{f}:2: the JSON would take more than 1 MB of memory once parsed (by column {column}; --max-line bounds it): too many values in one record; split it, or raise --max-line\n"
            )
        );
    }
    // also as the first line of a file
    let g = write(dir.path(), "b.jsonl", &format!("{numbers}\n"));
    let r = rung(&db, &["import", "--max-line", "1MB", g.to_str().unwrap()]);
    assert!(
        r.stderr.starts_with(&format!(
            "{}:1: the JSON would take more than 1 MB",
            g.display()
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn nesting_deeper_than_128_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let deep = format!(
        r#"{{"type":"decision","run_id":"r","step":1,"selected":"A","result":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let f = write(dir.path(), "a.jsonl", &format!("{deep}\n"));
    let r = rung(&db, &["import", f.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    // the object is level 1; the 128th "[" opens level 129
    let column = r#"{"type":"decision","run_id":"r","step":1,"selected":"A","result":"#.len() + 128;
    assert_eq!(
        r.stderr,
        format!(
            "{}:1: JSON nested deeper than 128 levels (at column {column})\n",
            f.display()
        )
    );
}

#[test]
fn a_file_read_whole_is_bounded_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let doc = format!(r#"{{"resourceSpans": [{}]}}"#, " ".repeat(5000));
    let f = write(dir.path(), "spans.json", &doc);
    let r = rung(
        &db,
        &[
            "import",
            "--format",
            "otlp",
            "--max-line",
            "4KB",
            f.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "{}: the file is larger than 4 KB (--max-line); this format is read whole, so it must fit (raise --max-line, or split the file)\n",
            f.display()
        )
    );
}

#[test]
fn blank_lines_before_a_document_keep_its_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/openai-dropped.json");
    let text = std::fs::read_to_string(fixture).unwrap();
    let f = write(dir.path(), "late.json", &format!("\n\n\n{text}"));
    let r = rung(&db, &["import", f.to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with(&format!(
            "{}:23: run oa-drop: dropped the arguments of call \"call_1\"",
            f.display()
        )),
        "{}",
        r.stderr
    );
}

#[cfg(unix)]
#[test]
fn folders_skip_links_out_and_special_files_with_a_warning() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let w = dir.path().join("traces");
    write(&w, "sub/a.jsonl", &format!("{D1}\n"));
    symlink("/", w.join("root")).unwrap();
    symlink("/dev/zero", w.join("zero.jsonl")).unwrap();
    symlink("missing.jsonl", w.join("dangling.jsonl")).unwrap();
    symlink("loop2.jsonl", w.join("loop1.jsonl")).unwrap();
    symlink("loop1.jsonl", w.join("loop2.jsonl")).unwrap();
    symlink("sub/a.jsonl", w.join("b.jsonl")).unwrap();
    let fifo = w.join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let r = rung_within(&db, &["import", w.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = w.display();
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(
        warnings,
        [
            format!(
                "warning: {p}/dangling.jsonl: skipped: a broken symbolic link (its target missing.jsonl does not exist)"
            ),
            format!("warning: {p}/fifo.jsonl: skipped: a FIFO (named pipe), not a regular file"),
            format!(
                "warning: {p}/loop1.jsonl: skipped: a symbolic link loop (the link leads back to itself)"
            ),
            format!(
                "warning: {p}/loop2.jsonl: skipped: a symbolic link loop (the link leads back to itself)"
            ),
            format!(
                "warning: {p}/root: skipped a link to a folder (links to folders are not followed; name the folder to import it)"
            ),
            format!(
                "warning: {p}/zero.jsonl: skipped: a link to a character device, not to a regular file"
            ),
        ]
    );
    // the file and the link to it
    assert!(r.stderr.contains("from 2 files"), "{}", r.stderr);
    assert_eq!(decisions(&db), 1);

    // Named on the command line, a broken link says so.
    let r = rung(&db, &["import", w.join("dangling.jsonl").to_str().unwrap()]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "{p}/dangling.jsonl: a broken symbolic link (its target missing.jsonl does not exist)\n"
        )
    );
    let r = rung(&db, &["import", w.join("loop1.jsonl").to_str().unwrap()]);
    assert_eq!(
        r.stderr,
        format!("{p}/loop1.jsonl: a symbolic link loop (the link leads back to itself)\n")
    );
}

/// A zipped Inspect log holding the fixture's header and `entries`, each
/// compressed (`deflate`) or stored as it is.
fn eval_archive(dir: &Path, name: &str, entries: &[(&str, &str)], deflate: bool) -> String {
    let header = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats/inspect-eval/header.json");
    let path = dir.join(name);
    let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    w.start_file("header.json", opts).unwrap();
    w.write_all(&std::fs::read(header).unwrap()).unwrap();
    for (entry, text) in entries {
        w.start_file(*entry, opts).unwrap();
        w.write_all(text.as_bytes()).unwrap();
    }
    w.finish().unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn an_inspect_archive_is_bounded_whole_and_entry_by_entry() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let import = |f: &str| rung(&db, &["import", "--max-line", "4KB", f]);

    // The archive itself is read whole: 5,000 stored bytes do not fit in 4 KB.
    let padded = format!("{{\"id\": 1{}}}", " ".repeat(5000));
    let f = eval_archive(
        dir.path(),
        "big.eval",
        &[("samples/1_epoch_1.json", &padded)],
        false,
    );
    let r = import(&f);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "{f}: the file is larger than 4 KB (--max-line); this format is read whole, so it must fit (raise --max-line, or split the file)\n"
        )
    );

    // Compressed, the archive fits, but the entry is not decompressed past 4 KB.
    let f = eval_archive(
        dir.path(),
        "bomb.eval",
        &[("samples/1_epoch_1.json", &padded)],
        true,
    );
    assert!(std::fs::metadata(&f).unwrap().len() < 4096);
    let r = import(&f);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "{f}: samples/1_epoch_1.json: decompresses past 4 KB (--max-line); rung does not read an entry that large (raise --max-line)\n"
        )
    );

    // An entry within 4 KB whose values would take more once parsed: 1,000
    // numbers, about 48 bytes each.
    let many = format!("{{\"id\": [{}1]}}", "1,".repeat(1000));
    let f = eval_archive(
        dir.path(),
        "many.eval",
        &[("samples/1_epoch_1.json", &many)],
        true,
    );
    let r = import(&f);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "{f}/samples/1_epoch_1.json:1: the JSON would take more than 4 KB of memory once parsed (by column "
        )),
        "{}",
        r.stderr
    );
    assert!(!db.exists(), "a failed first import left a database");
}

#[test]
fn bfcl_files_are_bounded_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let entry =
        r#"{"id": "simple_0", "question": [[{"role": "user", "content": "hi"}]], "function": []}"#;
    // A file over --max-line is not read.
    let big = write(
        dir.path(),
        "big/question/BFCL_v3_simple.json",
        &format!("{entry}\n{}\n", " ".repeat(5000)),
    );
    let r = rung(
        &db,
        &[
            "import",
            "--format",
            "bfcl",
            "--max-line",
            "4KB",
            big.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!(
            "{}: the file is larger than 4 KB (--max-line); this format is read whole, so it must fit (raise --max-line, or split the file)\n",
            big.display()
        )
    );
    // A line within it whose values would take more than 4 KB once parsed.
    let many = format!(
        r#"{{"id": "simple_1", "question": [[{}1]], "function": []}}"#,
        "1,".repeat(1000)
    );
    let f = write(
        dir.path(),
        "many/question/BFCL_v3_simple.json",
        &format!("{entry}\n{many}\n"),
    );
    let r = rung(
        &db,
        &[
            "import",
            "--format",
            "bfcl",
            "--max-line",
            "4KB",
            f.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "{}:2: the JSON would take more than 4 KB of memory once parsed (by column ",
            f.display()
        )),
        "{}",
        r.stderr
    );
}
