//! `cargo bench --bench import`: rung import end to end on a synthetic trace
//! set (about 200,000 decisions over a 230-tool catalogue), against the bare
//! serde_json parse of the same file into typed structs; peak memory of the
//! import process; every report's time on the resulting database; and the
//! peak memory of importing a single 100 MB line.
//!
//! Targets (issue 2): ≥ 50,000 decisions/s, ≤ 3× the bare parse, peak
//! memory < 300 MB, a 100 MB line within ~4× its size, each report < 1 s.
//! `RUNG_BENCH_DECISIONS` changes the size; `RUNG_BENCH_BASELINE=PATH`
//! pairs each import with one by another build of rung (the import before a
//! change), `RUNG_BENCH_IMPORT_ONLY=1` stops after the import figures.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Catalogue {
        version: String,
        created_at: Option<String>,
        abstain: Option<String>,
        tools: Vec<Tool>,
    },
    Run(Box<Run>),
    Decision(Box<Decision>),
    Case {
        task_id: String,
        step: Option<i64>,
        catalogue: Option<String>,
        acceptable: Vec<String>,
        #[serde(default)]
        forbidden: Vec<String>,
        note: Option<String>,
    },
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Tool {
    name: String,
    family: String,
    effect: String,
    description: String,
    open_world: Option<bool>,
    idempotent: Option<bool>,
    input_schema: Option<Value>,
    output_schema: Option<Value>,
    use_when: Option<Vec<String>>,
    avoid_when: Option<Vec<String>>,
    keywords: Option<Vec<String>>,
    owner: Option<String>,
    provenance: Option<String>,
    approval: Option<String>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Policy {
    allowed_families: Option<Vec<String>>,
    max_effect: Option<String>,
    allow_open_world: Option<bool>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Candidate {
    name: String,
    score: Option<f64>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Retrieval {
    k: u32,
    selector: Option<String>,
    query: Option<String>,
    candidates: Option<Vec<Candidate>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Run {
    run_id: String,
    task_id: Option<String>,
    trial: Option<i64>,
    goal: Option<String>,
    intent: Option<String>,
    model: Option<String>,
    catalogue: Option<String>,
    selector: Option<String>,
    policy: Option<Policy>,
    trusted_controls: Option<Vec<String>>,
    retrieval: Option<Retrieval>,
    visible: Option<Vec<String>>,
    started_at: Option<String>,
    ended_at: Option<String>,
    terminated: Option<String>,
    success: Option<bool>,
    harm: Option<bool>,
    scope: Option<String>,
    tags: Option<BTreeMap<String, String>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Outcome {
    status: String,
    stage: Option<String>,
    reason: Option<String>,
    message: Option<String>,
    retryable: Option<bool>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Expected {
    acceptable: Vec<String>,
    forbidden: Option<Vec<String>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Decision {
    run_id: String,
    step: i64,
    turn: Option<i64>,
    at: Option<String>,
    phase: Option<String>,
    catalogue: Option<String>,
    policy: Option<Policy>,
    trusted_controls: Option<Vec<String>>,
    retrieval: Option<Retrieval>,
    exposed: Option<Vec<String>>,
    visible: Option<Vec<String>>,
    selected: Option<String>,
    call_id: Option<String>,
    arguments: Option<Value>,
    raw: Option<Value>,
    outcome: Option<Outcome>,
    latency_ms: Option<f64>,
    result: Option<Value>,
    progress: Option<String>,
    expected: Option<Expected>,
}

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

fn main() {
    let n: usize = std::env::var("RUNG_BENCH_DECISIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let dir = data_dir();
    let trace = dir.join(format!("synthetic-{n}.jsonl"));
    if !trace.exists() {
        let t = Instant::now();
        let mut w = BufWriter::new(std::fs::File::create(&trace).unwrap());
        let stats = rung_samplegen::synthetic(n, 42, &mut w).unwrap();
        w.flush().unwrap();
        eprintln!(
            "generated {} decisions in {} runs, {:.1} MB, in {:.1}s",
            stats.decisions,
            stats.runs,
            stats.bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
    let bytes = std::fs::metadata(&trace).unwrap().len();
    let rung = env!("CARGO_BIN_EXE_rung");

    // Warm the page cache so both measurements read from memory (streaming:
    // a child inherits this process's peak RSS at fork).
    std::io::copy(
        &mut std::fs::File::open(&trace).unwrap(),
        &mut std::io::sink(),
    )
    .unwrap();

    // Shared machines are noisy: each timing is the best of RUNS, with the
    // median beside it.
    const RUNS: usize = 3;

    // 1. bare parse into typed structs
    let mut parse_times = Vec::new();
    let mut decisions = 0u64;
    for _ in 0..RUNS {
        let t = Instant::now();
        decisions = 0;
        let reader = BufReader::with_capacity(1 << 18, std::fs::File::open(&trace).unwrap());
        for line in reader.lines() {
            let line = line.unwrap();
            if line.trim().is_empty() {
                continue;
            }
            let parsed: Line = serde_json::from_str(&line).expect("typed parse");
            if matches!(parsed, Line::Decision(_)) {
                decisions += 1;
            }
            std::hint::black_box(parsed);
        }
        parse_times.push(t.elapsed().as_secs_f64());
    }

    // 2. rung import, end to end, into a fresh database. With
    // `RUNG_BENCH_BASELINE=PATH` (another build of rung, e.g. main's), each
    // run of this rung is paired with a run of that one, alternating, so
    // that both see the same machine.
    let baseline = std::env::var_os("RUNG_BENCH_BASELINE").map(PathBuf::from);
    let db = dir.join(format!("import-{n}.db"));
    let base_db = dir.join(format!("import-{n}-baseline.db"));
    let fresh_import = |bin: &Path, db: &Path| {
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
        }
        run_measured(
            Command::new(bin)
                .arg("--db")
                .arg(db)
                .arg("-q")
                .arg("import")
                .arg(&trace),
        )
    };
    let mut import_times = Vec::new();
    let mut base_times = Vec::new();
    let mut import_mb: f64 = 0.0;
    for _ in 0..RUNS {
        if let Some(b) = &baseline {
            base_times.push(fresh_import(b, &base_db).0);
        }
        let (s, mb) = fresh_import(Path::new(rung), &db);
        import_times.push(s);
        import_mb = import_mb.max(mb);
    }
    let best = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[0], v[v.len() / 2])
    };
    let (parse_s, parse_med) = best(&mut parse_times);
    let (import_s, import_med) = best(&mut import_times);

    println!(
        "== import ({decisions} decisions, {:.1} MB; best of {RUNS}, median in brackets)",
        bytes as f64 / 1e6
    );
    println!(
        "bare parse (serde_json, typed): {parse_s:.2} s [{parse_med:.2}]  ({:.0} decisions/s)",
        decisions as f64 / parse_s
    );
    println!(
        "rung import end to end:         {import_s:.2} s [{import_med:.2}]  ({:.0} decisions/s; {:.2}x the bare parse)",
        decisions as f64 / import_s,
        import_s / parse_s
    );
    if !base_times.is_empty() {
        let (b, b_med) = best(&mut base_times);
        println!(
            "baseline import (paired runs):  {b:.2} s [{b_med:.2}]  ({:.0} decisions/s; this rung is {:.2}x as fast, {:.2}x by medians)",
            decisions as f64 / b,
            b / import_s,
            b_med / import_med
        );
    }
    println!("rung import peak RSS:           {import_mb:.0} MB");

    let db_bytes: u64 = ["", "-wal"]
        .iter()
        .filter_map(|ext| std::fs::metadata(format!("{}{ext}", db.display())).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "database size:                  {:.1} MB ({:.2}x the input)",
        db_bytes as f64 / 1e6,
        db_bytes as f64 / bytes as f64
    );
    if baseline.is_some() {
        let base_bytes: u64 = ["", "-wal"]
            .iter()
            .filter_map(|ext| std::fs::metadata(format!("{}{ext}", base_db.display())).ok())
            .map(|m| m.len())
            .sum();
        println!(
            "baseline database size:         {:.1} MB ({:.2}x the input)",
            base_bytes as f64 / 1e6,
            base_bytes as f64 / bytes as f64
        );
    }

    // 3. re-import of the same file: skipped (unchanged), and read again
    // with --force (every record found unchanged).
    let reimport = |force: bool| {
        let mut times = Vec::new();
        for _ in 0..RUNS {
            let mut cmd = Command::new(rung);
            cmd.arg("--db").arg(&db).arg("-q").arg("import");
            if force {
                cmd.arg("--force");
            }
            times.push(run_measured(cmd.arg(&trace)).0);
        }
        best(&mut times)
    };
    let (skip_s, skip_med) = reimport(false);
    println!("re-import, unchanged (skipped): {skip_s:.3} s [{skip_med:.3}]");
    let (force_s, force_med) = reimport(true);
    println!(
        "re-import --force (no-op):      {force_s:.2} s [{force_med:.2}]  ({:.2}x the bare parse)",
        force_s / parse_s
    );

    if std::env::var_os("RUNG_BENCH_IMPORT_ONLY").is_some() {
        // Only the import figures (reports and the huge line left out).
        return;
    }

    // 4. every report
    println!("== reports on that database");
    for kind in [
        "ladder",
        "metrics",
        "refusals",
        "confusions",
        "tools",
        "runs",
        "findings",
    ] {
        let (s, mb) = run_measured(
            Command::new(rung)
                .arg("--db")
                .arg(&db)
                .args(["report", kind, "--format", "json"])
                .env("RUNG_NOW", "2026-07-01T00:00:00Z")
                .stdout(std::process::Stdio::null()),
        );
        println!(
            "rung report {kind:<10} {:>7.0} ms  {mb:>5.0} MB",
            s * 1000.0
        );
    }

    // 5. one 100 MB line
    let big = dir.join("one-100mb-line.jsonl");
    if !big.exists() {
        let mut w = BufWriter::new(std::fs::File::create(&big).unwrap());
        write!(w, r#"{{"type":"decision","run_id":"huge","step":1,"selected":"read_file","result":{{"text":""#).unwrap();
        let chunk = "0123456789abcdef".repeat(64 * 1024);
        for _ in 0..100 {
            w.write_all(chunk.as_bytes()).unwrap();
        }
        w.write_all(b"\"}}\n").unwrap();
        w.flush().unwrap();
    }
    let line_mb = std::fs::metadata(&big).unwrap().len() as f64 / 1e6;
    let big_db = dir.join("big.db");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", big_db.display()));
    }
    let (s, mb) = run_measured(
        Command::new(rung)
            .arg("--db")
            .arg(&big_db)
            .arg("-q")
            .arg("import")
            .arg(&big),
    );
    println!("== one line of {line_mb:.0} MB");
    println!(
        "import: {s:.2} s, peak RSS {mb:.0} MB ({:.1}x the line)",
        mb * 1.048576 / line_mb
    );
}
