//! `cargo bench --bench memory`: peak memory of `rung import` on hostile
//! input (issue 11). Each case runs the rung binary as a child and reads
//! its peak RSS from wait4's rusage; none may pass 512 MB, and each must
//! end as stated (a clear error, or an import).
//!
//! - a gzip "bomb": 5 GiB of newlines in a few MB of `.jsonl.gz`
//! - one 5 GiB line of spaces, streamed through stdin (never on disk)
//! - a 100 MB line holding 50 million numbers
//! - 100 MB of nested arrays, deep (`[[[[…`) and wide (`[[1],[1],…]`)
//! - one 100 MB string (imported)
//!
//! Last measured (2 shared cores, mimalloc; peak RSS):
//!
//! | case | ends with | peak |
//! | --- | --- | --- |
//! | gzip bomb, auto / rung | error at line 268435457 (256 MB of blank lines) | 11 / 16 MB |
//! | 5 GiB of spaces on stdin, auto / rung | error at line 1 (longer than 256 MB) | 12 / 16 MB |
//! | 5 GiB of `x` on stdin, auto | error at line 1 (longer than 256 MB) | 269 MB |
//! | 5 GiB of `x` on stdin, otlp (read whole) | error: file larger than 256 MB | 269 MB |
//! | 100 MB line of numbers | error: over 256 MB once parsed | 143 MB |
//! | 100 MB nested arrays, deep / wide | error: deeper than 128 / over 256 MB | 143 / 143 MB |
//! | one 100 MB string | imported | 283 MB |

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const LIMIT_MB: f64 = 512.0;
const GIB: u64 = 1 << 30;

fn data_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Measured {
    code: i32,
    seconds: f64,
    peak_mb: f64,
    stderr: String,
}

/// Runs `cmd` (stderr to a file), feeding `stdin_bytes` of `fill` on its
/// standard input when asked; its exit code, time and peak RSS.
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn run_measured(cmd: &mut Command, stdin: Option<(u64, u8)>, err_file: &Path) -> Measured {
    let start = Instant::now();
    cmd.stderr(std::fs::File::create(err_file).unwrap())
        .stdout(Stdio::null());
    if stdin.is_some() {
        cmd.stdin(Stdio::piped());
    } else {
        cmd.stdin(Stdio::null());
    }
    let mut child = cmd.spawn().expect("spawn");
    let feeder = stdin.map(|(n, byte)| {
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let block = vec![byte; 1 << 20];
            let mut left = n;
            while left > 0 {
                let k = left.min(block.len() as u64) as usize;
                // The child stops reading at its limit: a closed pipe ends this.
                if pipe.write_all(&block[..k]).is_err() {
                    return n - left;
                }
                left -= k as u64;
            }
            n
        })
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and fills a zeroed rusage.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    if let Some(f) = feeder {
        let fed = f.join().unwrap();
        eprintln!(
            "  (fed {:.2} GB before rung stopped reading)",
            fed as f64 / 1e9
        );
    }
    Measured {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        seconds: start.elapsed().as_secs_f64(),
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        stderr: std::fs::read_to_string(err_file).unwrap_or_default(),
    }
}

/// Writes a file once (by `fill`), keeping it for later runs.
fn file(name: &str, fill: impl FnOnce(&mut dyn Write)) -> PathBuf {
    let p = data_dir().join(name);
    if !p.exists() {
        let tmp = p.with_extension("partial");
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).unwrap());
        fill(&mut w);
        w.flush().unwrap();
        drop(w);
        std::fs::rename(&tmp, &p).unwrap();
    }
    p
}

fn repeat(w: &mut dyn Write, piece: &[u8], total: usize) {
    let block: Vec<u8> = piece
        .iter()
        .copied()
        .cycle()
        .take(piece.len() * ((1 << 20) / piece.len()))
        .collect();
    let mut left = total;
    while left > 0 {
        let k = left.min(block.len());
        w.write_all(&block[..k]).unwrap();
        left -= k;
    }
}

const HEAD: &str = r#"{"type":"decision","run_id":"big","step":1,"selected":"read_file","result":"#;

fn main() {
    let rung = env!("CARGO_BIN_EXE_rung");
    let dir = data_dir();
    let mb100 = 100_000_000;

    // 5 GiB of newlines: 80 gzip members of 64 MiB each (what a reader
    // sees is one stream; members keep generating it cheap).
    let bomb = file("bomb-5gib-newlines.jsonl.gz", |w| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        repeat(&mut e, b"\n", 64 << 20);
        let member = e.finish().unwrap();
        for _ in 0..80 {
            w.write_all(&member).unwrap();
        }
    });
    let numbers = file("line-100mb-numbers.jsonl", |w| {
        w.write_all(HEAD.as_bytes()).unwrap();
        w.write_all(b"[").unwrap();
        repeat(w, b"1,", mb100);
        w.write_all(b"1]}\n").unwrap();
    });
    let deep = file("line-100mb-deep-arrays.jsonl", |w| {
        w.write_all(HEAD.as_bytes()).unwrap();
        repeat(w, b"[", mb100 / 2);
        repeat(w, b"]", mb100 / 2);
        w.write_all(b"}\n").unwrap();
    });
    let wide = file("line-100mb-wide-arrays.jsonl", |w| {
        w.write_all(HEAD.as_bytes()).unwrap();
        w.write_all(b"[").unwrap();
        repeat(w, b"[[1]],", mb100);
        w.write_all(b"[[1]]]}\n").unwrap();
    });
    let string = file("line-100mb-string.jsonl", |w| {
        w.write_all(HEAD.as_bytes()).unwrap();
        w.write_all(b"\"").unwrap();
        repeat(w, b"0123456789abcdef", mb100);
        w.write_all(b"\"}\n").unwrap();
    });

    struct Case<'a> {
        name: &'a str,
        args: Vec<String>,
        stdin: Option<(u64, u8)>,
        /// Exit code and a piece of stderr that says how it ended.
        code: i32,
        says: &'a str,
    }
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let import =
        |format: &str, src: String| vec!["import".into(), "--format".into(), format.into(), src];
    let cases = [
        Case {
            name: "gzip bomb, 5 GiB of newlines (auto)",
            args: import("auto", path(&bomb)),
            stdin: None,
            code: 2,
            says: "more than 256 MB of blank lines with no record",
        },
        Case {
            name: "gzip bomb, 5 GiB of newlines (rung)",
            args: import("rung", path(&bomb)),
            stdin: None,
            code: 2,
            says: "more than 256 MB of blank lines with no record",
        },
        Case {
            name: "5 GiB line of spaces on stdin (auto)",
            args: import("auto", "-".into()),
            stdin: Some((5 * GIB, b' ')),
            code: 2,
            says: "<stdin>:1: the line is longer than 256 MB",
        },
        Case {
            name: "5 GiB line of spaces on stdin (rung)",
            args: import("rung", "-".into()),
            stdin: Some((5 * GIB, b' ')),
            code: 2,
            says: "<stdin>:1: the line is longer than 256 MB",
        },
        Case {
            name: "5 GiB line of x on stdin (auto)",
            args: import("auto", "-".into()),
            stdin: Some((5 * GIB, b'x')),
            code: 2,
            says: "<stdin>:1: the line is longer than 256 MB",
        },
        Case {
            name: "5 GiB line of x on stdin (otlp, read whole)",
            args: import("otlp", "-".into()),
            stdin: Some((5 * GIB, b'x')),
            code: 2,
            says: "<stdin>: the file is larger than 256 MB",
        },
        Case {
            name: "100 MB line of 50M numbers",
            args: import("auto", path(&numbers)),
            stdin: None,
            code: 2,
            says: ":1: the JSON would take more than 256 MB of memory once parsed",
        },
        Case {
            name: "100 MB of nested arrays, deep",
            args: import("auto", path(&deep)),
            stdin: None,
            code: 2,
            says: ":1: JSON nested deeper than 128 levels",
        },
        Case {
            name: "100 MB of nested arrays, wide",
            args: import("auto", path(&wide)),
            stdin: None,
            code: 2,
            says: ":1: the JSON would take more than 256 MB of memory once parsed",
        },
        Case {
            name: "one 100 MB string",
            args: import("auto", path(&string)),
            stdin: None,
            code: 0,
            says: " 1 decision,",
        },
    ];

    println!(
        "{:<46} {:>5} {:>8} {:>10}  how it ended",
        "case", "exit", "time", "peak RSS"
    );
    let mut failed = Vec::new();
    for case in &cases {
        let db = dir.join("memory.db");
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
        let m = run_measured(
            Command::new(rung).arg("--db").arg(&db).args(&case.args),
            case.stdin,
            &dir.join("memory.stderr"),
        );
        let first = m.stderr.lines().next().unwrap_or("").to_string();
        let shown: String = first.chars().take(110).collect();
        println!(
            "{:<46} {:>5} {:>7.1}s {:>7.0} MB  {shown}",
            case.name, m.code, m.seconds, m.peak_mb
        );
        if m.peak_mb >= LIMIT_MB {
            failed.push(format!(
                "{}: peak RSS {:.0} MB ≥ {LIMIT_MB} MB",
                case.name, m.peak_mb
            ));
        }
        if m.code != case.code || !m.stderr.contains(case.says) {
            failed.push(format!(
                "{}: exit {} and {:?}; want exit {} and {:?}",
                case.name, m.code, first, case.code, case.says
            ));
        }
    }
    assert!(failed.is_empty(), "\n{}", failed.join("\n"));
}
