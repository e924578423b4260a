//! `cargo bench --bench findings`: peak memory of `rung report findings`
//! on a database holding more than 400,000 findings (issue 12: the report
//! used to hold every finding, its row model and the rendered text at once,
//! 1 GB on 434,000 findings). Each case runs the rung binary as a child,
//! output to /dev/null, and reads its peak RSS from wait4's rusage; none may
//! reach 100 MB.
//!
//! The database is built once (kept in target/bench-data): 55,000 runs of
//! two decisions on a small catalogue, each run an `inform` request that
//! cancels `sub_1` twice (the example id in the tool's description) with
//! the menu narrowed between the two calls: 8 findings a run (unsourced_id,
//! id_from_description and write_under_inform twice, repeated_call,
//! menu_changed), 440,000 in all.
//!
//! Last measured (2 shared cores, release build, 440,000 findings; peak RSS
//! of the rung process, output to a pipe):
//!
//! | case | time | output | peak |
//! | --- | ---: | ---: | ---: |
//! | `report findings` (summary) | 0.5 s | 0 MB | 30 MB |
//! | `report findings --summary --format json` | 0.5 s | 0 MB | 30 MB |
//! | `report findings --all` (table, two passes) | 3.8 s | 106 MB | 30 MB |
//! | `report findings --format json` (every finding) | 4.0 s | 162 MB | 30 MB |
//! | `report findings --all --format csv` | 2.8 s | 101 MB | 30 MB |
//! | `report findings --all --format markdown` | 2.9 s | 106 MB | 30 MB |
//! | `report findings --all --model m-1` | 1.9 s | 35 MB | 30 MB |
//!
//! (With SQLite's default 32 MB cache for the report the peak was 74–78 MB;
//! the report sets 8 MB, and SQLite's sort spills to a temporary file.)

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const LIMIT_MB: f64 = 100.0;
const RUNS: usize = 55_000;
const PER_RUN: u64 = 8;

fn data_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Measured {
    code: i32,
    seconds: f64,
    peak_mb: f64,
    bytes: u64,
}

/// Runs `cmd` with stdout counted and dropped; its exit code, time and
/// peak RSS.
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn run_measured(cmd: &mut Command) -> Measured {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let counter =
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()).unwrap());
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and fills a zeroed rusage.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    let bytes = counter.join().unwrap();
    Measured {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        seconds: start.elapsed().as_secs_f64(),
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        bytes,
    }
}

/// The trace: one catalogue, then RUNS runs of two decisions.
fn write_trace(path: &Path) {
    let tmp = path.with_extension("partial");
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp).unwrap());
    writeln!(
        w,
        r#"{{"type":"catalogue","version":"bench-1","tools":[{{"name":"find_customer","family":"billing","effect":"read_only","description":"Looks a customer up by name."}},{{"name":"cancel_subscription","family":"billing","effect":"mutating","description":"Cancels one subscription. subscription_id comes from find_customer, like sub_1."}}]}}"#
    )
    .unwrap();
    for i in 0..RUNS {
        let run = format!("run-{i:06}");
        let day = 1 + i % 28;
        writeln!(
            w,
            r#"{{"type":"run","run_id":"{run}","task_id":"task-{t}","goal":"Is the plan of customer {i} still active?","intent":"inform","model":"m-{m}","catalogue":"bench-1","started_at":"2026-09-{day:02}T10:00:00Z"}}"#,
            t = i % 500,
            m = i % 3
        )
        .unwrap();
        for (step, visible) in [
            (1, r#"["find_customer","cancel_subscription"]"#),
            (2, r#"["cancel_subscription"]"#),
        ] {
            writeln!(
                w,
                r#"{{"type":"decision","run_id":"{run}","step":{step},"visible":{visible},"selected":"cancel_subscription","arguments":{{"subscription_id":"sub_1","when":"now"}},"outcome":{{"status":"ok"}},"result":{{"ok":true,"status":"canceled"}}}}"#
            )
            .unwrap();
        }
    }
    w.flush().unwrap();
    drop(w);
    std::fs::rename(&tmp, path).unwrap();
}

fn main() {
    let rung = env!("CARGO_BIN_EXE_rung");
    let dir = data_dir();
    let trace = dir.join(format!("findings-{RUNS}.jsonl"));
    if !trace.exists() && std::env::var_os("RUNG_BENCH_FINDINGS_DB").is_none() {
        write_trace(&trace);
    }
    // RUNG_BENCH_FINDINGS_DB: the same cases on a database already built
    // (the 1,000,000-decision import), the model case left out.
    let given = std::env::var_os("RUNG_BENCH_FINDINGS_DB").map(PathBuf::from);
    let db = given
        .clone()
        .unwrap_or_else(|| dir.join(format!("findings-{RUNS}.db")));
    let want = RUNS as u64 * PER_RUN;
    let stored = || -> u64 {
        let out = Command::new(rung)
            .args([
                "--db",
                db.to_str().unwrap(),
                "report",
                "findings",
                "--summary",
                "--format",
                "json",
            ])
            .output()
            .ok()
            .filter(|o| o.status.success());
        out.and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .and_then(|v| v["total"].as_u64())
            .unwrap_or(0)
    };
    if given.is_none() && stored() != want {
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
        let start = Instant::now();
        let r = Command::new(rung)
            .args([
                "--db",
                db.to_str().unwrap(),
                "import",
                "-q",
                trace.to_str().unwrap(),
            ])
            .status()
            .unwrap();
        assert!(r.success(), "the import failed");
        eprintln!(
            "built {} ({} runs) in {:.1}s",
            db.display(),
            RUNS,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(stored(), want, "findings stored");
    }
    if given.is_none() {
        println!("{want} findings in {}", db.display());
    } else {
        println!("{} findings in {}", stored(), db.display());
    }

    let cases: &[(&str, &[&str])] = &[
        ("report findings (summary)", &[]),
        (
            "report findings --summary --format json",
            &["--summary", "--format", "json"],
        ),
        ("report findings --all (table)", &["--all"]),
        (
            "report findings --format json (every finding)",
            &["--format", "json"],
        ),
        (
            "report findings --all --format csv",
            &["--all", "--format", "csv"],
        ),
        (
            "report findings --all --format markdown",
            &["--all", "--format", "markdown"],
        ),
        (
            "report findings --all --model m-1",
            &["--all", "--model", "m-1"],
        ),
    ];
    println!(
        "{:<48} {:>5} {:>8} {:>10} {:>10}",
        "case", "exit", "time", "output", "peak RSS"
    );
    let mut failed = Vec::new();
    for (name, extra) in cases {
        if given.is_some() && extra.contains(&"m-1") {
            continue;
        }
        let m = run_measured(
            Command::new(rung)
                .args(["--db", db.to_str().unwrap(), "report", "findings"])
                .args(*extra),
        );
        println!(
            "{:<48} {:>5} {:>7.1}s {:>7.0} MB {:>7.0} MB",
            name,
            m.code,
            m.seconds,
            m.bytes as f64 / 1e6,
            m.peak_mb
        );
        if m.code != 0 {
            failed.push(format!("{name}: exit {}", m.code));
        }
        if m.peak_mb >= LIMIT_MB {
            failed.push(format!(
                "{name}: peak RSS {:.0} MB ≥ {LIMIT_MB} MB",
                m.peak_mb
            ));
        }
    }
    assert!(failed.is_empty(), "\n{}", failed.join("\n"));
}
