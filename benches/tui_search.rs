//! `cargo bench --bench tui_search`: `/` in the payload viewer on a 100 MB
//! result (issue 16), driven headless through the TUI harness.
//!
//! The result is one JSON object holding a list of short strings, with the
//! word `NEEDLE` placed four times: at about 10 %, inside a 200 KB string
//! across the viewer's chunk cut (about 35 %), at 60 % and at 90 %; and
//! once more inside an API key (about 20 %), which the viewer shows masked
//! and the search must therefore not find.
//!
//! Measures `/needle` + Enter → the first match on screen, then `n` → the
//! next match on screen (p50/p99 over the rounds), a frame drawn at a
//! match, and the measuring process's peak memory (VmHWM). Targets: frames
//! ≤ 50 ms at p99, the data (the search) ≤ 500 ms.
//!
//! The database is built once into `target/bench-search/search.db`; the
//! measuring runs in a child process so that its memory is the TUI's.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use rung::redact::Redactor;
use rung::tui::harness::Harness;
use rung::tui::payload::{self, Indent};

/// The payload's size, about.
const SIZE: usize = 100 * 1024 * 1024;
const NEEDLE: &str = "NEEDLE";
/// An API key (masked by the built-in patterns) with the word inside.
const SECRET: &str = "sk-proj-NEEDLE4f9aQ2xLk81abcdEFGH";
/// The 200 KB string the chunk cut falls in.
const LONG: usize = 200 * 1024;
/// Rounds of `n` over the four matches.
const ROUNDS: usize = 5;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-search")
}

fn now() -> i64 {
    rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros()
}

/// The result's compact JSON, and the byte offsets of the needles placed
/// (the cut one last).
fn payload_json() -> (String, Vec<usize>) {
    let item = |i: usize| format!("\"row {i:09} lorem ipsum dolor sit amet\"");
    let n = SIZE / (item(0).len() + 1);
    let mut s = String::with_capacity(SIZE + LONG + 1024);
    s.push_str("{\"rows\":[");
    let mut at = Vec::new();
    let mut long_at = 0;
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        let f = i * 100 / n;
        if i == n / 10 || i == n * 6 / 10 || i == n * 9 / 10 {
            at.push(s.len() + 1);
            s.push_str(&format!("\"{NEEDLE} {i}\""));
        } else if i == n / 5 {
            s.push_str(&format!("\"key {SECRET}\""));
        } else if i == n * 35 / 100 {
            long_at = s.len() + 1;
            s.push('"');
            s.push_str(&"x".repeat(LONG));
            s.push('"');
        } else {
            let _ = f;
            s.push_str(&item(i));
        }
    }
    s.push_str("]}");
    // The viewer's cut inside the long string (the chunks before it do not
    // depend on its letters): the needle goes across it.
    let r = Redactor::default();
    let bytes = s.as_bytes();
    let (mut start, mut st) = (0usize, Indent::default());
    let cut = loop {
        let end = bytes.len().min(start + payload::READ);
        let (len, next) = payload::chunk_len(&bytes[start..end], st, &r);
        let c = start + len;
        if c > long_at && c < long_at + LONG {
            break c;
        }
        assert!(len > 0 && c < bytes.len(), "no cut in the long string");
        start = c;
        st = next;
    };
    let from = cut - NEEDLE.len() / 2;
    s.replace_range(from..from + NEEDLE.len(), NEEDLE);
    at.push(from);
    (s, at)
}

fn ensure_db() -> PathBuf {
    let db = dir().join("search.db");
    if db.exists() {
        // Kept from an older rung: upgraded in place (readers refuse it).
        rung::store::Store::open_rw(&db).expect("upgrade the kept database");
        return db;
    }
    std::fs::create_dir_all(dir()).expect("bench dir");
    let t = Instant::now();
    let (json, at) = payload_json();
    eprintln!(
        "payload: {:.0} MB, needles at bytes {:?} ({:.1} s)",
        json.len() as f64 / 1e6,
        at,
        t.elapsed().as_secs_f64()
    );
    let jsonl = dir().join("search.jsonl");
    let line = format!(
        "{{\"type\":\"decision\",\"run_id\":\"big\",\"step\":1,\"at\":\"2026-11-20T09:00:00Z\",\
         \"selected\":\"export\",\"outcome\":{{\"status\":\"ok\"}},\"result\":{json}}}\n"
    );
    std::fs::write(&jsonl, line).expect("write the trace");
    let partial = dir().join("search.partial.db");
    let _ = std::fs::remove_file(&partial);
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", partial.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: vec![jsonl.clone()],
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("imports");
    std::fs::rename(&partial, &db).expect("keep the database");
    let _ = std::fs::remove_file(&jsonl);
    db
}

fn status_kb(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

fn settle(h: &mut Harness) {
    assert!(h.settle(Duration::from_secs(60)), "the workers answered");
}

/// The match shown: its chunk start, line and column.
fn hit(h: &Harness) -> Option<(u64, usize, usize)> {
    let v = h.app.run.viewer.as_ref()?;
    let hit = v.search.hit?;
    v.line_of(&hit)?;
    Some((hit.start, hit.line, hit.col))
}

/// Keys until the match is on screen: (to the data, to the frame).
fn timed(h: &mut Harness, keys: &str) -> (Duration, Duration) {
    let t = Instant::now();
    h.keys(keys);
    settle(h);
    let data = t.elapsed();
    h.draw();
    (data, t.elapsed())
}

fn child(db: &Path) {
    let mut h = Harness::open(db, now(), false, 120, 40).expect("opens");
    h.draw();
    h.start();
    settle(&mut h);
    for k in ["2", "Enter", "r"] {
        h.keys(k);
        settle(&mut h);
    }
    h.draw();
    assert!(h.app.run.viewer.is_some(), "the result viewer opened");
    let (data, frame) = timed(&mut h, "/ n e e d l e Enter");
    let first = hit(&h).expect("a first match");
    assert!(h.text().contains("NEEDLE"), "the match is on screen");
    let mut seen = vec![first];
    let mut next_data = Vec::new();
    let mut next_frame = Vec::new();
    for _ in 0..ROUNDS * 4 {
        let (d, f) = timed(&mut h, "n");
        next_data.push(d);
        next_frame.push(f);
        let at = hit(&h).expect("a match after n");
        if !seen.contains(&at) {
            seen.push(at);
        }
    }
    let mut draws = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        h.draw();
        draws.push(t.elapsed());
    }
    let hwm = status_kb("VmHWM:");
    let size = h.app.run.viewer.as_ref().and_then(|v| v.total).unwrap_or(0);
    println!(
        "rung TUI search benchmark · {:.0} MB result · 120x40 TestBackend",
        size as f64 / 1e6
    );
    println!();
    println!(
        "matches found      {} distinct (4 placed; the one inside the masked key is not found)",
        seen.len()
    );
    let ok = |d: Duration, limit: u64| {
        if d <= Duration::from_millis(limit) {
            "ok"
        } else {
            "OVER"
        }
    };
    println!(
        "/needle → match    data {:7.1} ms  frame {:7.1} ms   (data ≤ 500 ms)  {}",
        ms(data),
        ms(frame),
        ok(data, 500)
    );
    let (d50, d99) = (pct(&mut next_data, 0.5), pct(&mut next_data, 0.99));
    let (f50, f99) = (pct(&mut next_frame, 0.5), pct(&mut next_frame, 0.99));
    println!(
        "n → next match     data p50 {:7.1} ms  p99 {:7.1} ms   (≤ 500 ms)  {}",
        ms(d50),
        ms(d99),
        ok(d99, 500)
    );
    println!(
        "                   key to frame p50 {:7.1} ms  p99 {:7.1} ms   ({} presses)",
        ms(f50),
        ms(f99),
        ROUNDS * 4
    );
    let (r50, r99) = (pct(&mut draws, 0.5), pct(&mut draws, 0.99));
    println!(
        "frame at a match   p50 {:7.1} ms  p99 {:7.1} ms   (≤ 50 ms)  {}",
        ms(r50),
        ms(r99),
        ok(r99, 50)
    );
    println!(
        "memory             VmHWM {:.1} MB (the 100 MB result is never held whole)",
        hwm as f64 / 1024.0
    );
}

fn main() {
    if std::env::var_os("RUNG_TUI_SEARCH_CHILD").is_some() {
        child(&dir().join("search.db"));
        return;
    }
    let db = ensure_db();
    let status = std::process::Command::new(std::env::current_exe().expect("own path"))
        .env("RUNG_TUI_SEARCH_CHILD", "1")
        .status()
        .expect("run the measuring child");
    assert!(status.success(), "the measuring child failed");
    let _ = db;
}
