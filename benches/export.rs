//! `cargo bench --bench export`: `rung export --format parquet` of the
//! import benchmark's synthetic trace set (about 200,000 decisions; the
//! same file, `target/bench-data/synthetic-N.jsonl`): wall time, peak RSS
//! of the export process, rows per second and the export's size against
//! the database's. `RUNG_BENCH_DECISIONS` changes the size.
//!
//! Target (issue 14): memory bounded whatever the size: the export holds
//! one batch of 65,536 rows per table, so its peak RSS stays flat from
//! 200,000 to 1,000,000 decisions.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn data_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Peak RSS (MB) and wall time of a child command, from wait4's rusage.
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn run_measured(cmd: &mut Command) -> (f64, f64) {
    let start = Instant::now();
    let child = cmd.spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and fills a zeroed rusage.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "command failed: {cmd:?}"
    );
    (
        start.elapsed().as_secs_f64(),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

/// Bytes of every file under `dir`.
fn size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                size(&p)
            } else {
                std::fs::metadata(&p).unwrap().len()
            }
        })
        .sum()
}

fn main() {
    let n: usize = std::env::var("RUNG_BENCH_DECISIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let dir = data_dir();
    let trace = dir.join(format!("synthetic-{n}.jsonl"));
    if !trace.exists() {
        let mut w = BufWriter::new(std::fs::File::create(&trace).unwrap());
        rung_samplegen::synthetic(n, 42, &mut w).unwrap();
        w.flush().unwrap();
    }
    let rung = env!("CARGO_BIN_EXE_rung");
    // The database is kept between runs of the bench (delete it to import
    // again): the export, not the import, is measured here.
    let db = dir.join(format!("export-{n}.db"));
    if !db.exists() {
        let (s, _) = run_measured(
            Command::new(rung)
                .arg("--db")
                .arg(&db)
                .args(["-q", "import"])
                .arg(&trace),
        );
        eprintln!("imported {} in {s:.1} s", trace.display());
    } else {
        // Kept from an older rung: upgraded in place (readers refuse it).
        rung::store::Store::open_rw(&db).expect("upgrade the kept database");
    }
    let db_bytes = std::fs::metadata(&db).unwrap().len();
    let ladder = Command::new(rung)
        .arg("--db")
        .arg(&db)
        .args(["report", "ladder", "--format", "json"])
        .output()
        .unwrap();
    let ladder: serde_json::Value = serde_json::from_slice(&ladder.stdout).unwrap();
    let decisions = ladder["decisions"].as_u64().unwrap();

    const RUNS: usize = 3;
    let out = dir.join(format!("export-{n}"));
    let mut times = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..RUNS {
        let _ = std::fs::remove_dir_all(&out);
        let (s, mb) = run_measured(
            Command::new(rung)
                .arg("--db")
                .arg(&db)
                .args(["-q", "export", "--format", "parquet"])
                .arg(&out),
        );
        times.push(s);
        peak = peak.max(mb);
    }
    times.sort_by(f64::total_cmp);
    let (best, median) = (times[0], times[RUNS / 2]);
    let out_bytes = size(&out);
    println!(
        "== export ({decisions} decisions, database {:.1} MB; best of {RUNS}, median in brackets)",
        db_bytes as f64 / 1e6
    );
    println!(
        "rung export --format parquet:   {best:.2} s [{median:.2}]  ({:.0} decisions/s)",
        decisions as f64 / best
    );
    println!("rung export peak RSS:           {peak:.0} MB");
    println!(
        "export size:                    {:.1} MB ({:.2}x the database)",
        out_bytes as f64 / 1e6,
        out_bytes as f64 / db_bytes as f64
    );
}
