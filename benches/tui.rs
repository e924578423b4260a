//! `cargo bench --bench tui`: the TUI driven headless over ratatui's
//! `TestBackend` on a database of 1,000,000 decisions (issue 4).
//!
//! Measures the time to the first frame, the time from each key to the next
//! frame (p50/p99 per action, the fuzzy filter included), the time until a
//! screen's data has arrived (worker time, shown as "data"), and resident
//! memory (VmHWM / VmRSS of the measuring process).
//!
//! Targets: first frame ≤ 300 ms, next frame ≤ 50 ms at p99 for any key,
//! RSS < 200 MB.
//!
//! The database is generated once with `rung_samplegen::synthetic` and
//! imported with the `rung` binary into `target/bench-1m.db` (reused when
//! present; `RUNG_BENCH_DECISIONS` changes the size and the file name). The
//! measuring runs in a child process so that its memory is the TUI's alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rung::tui::harness::Harness;
use rung::tui::state::Screen;

fn decisions() -> usize {
    std::env::var("RUNG_BENCH_DECISIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target")
}

fn db_path() -> PathBuf {
    let n = decisions();
    let name = if n == 1_000_000 {
        "bench-1m.db".to_string()
    } else {
        format!("bench-{n}.db")
    };
    target_dir().join(name)
}

/// Generates and imports the benchmark database unless it exists.
fn ensure_db() -> PathBuf {
    let db = db_path();
    if db.exists() {
        // Kept from an older rung: upgraded in place (readers refuse it).
        rung::store::Store::open_rw(&db).expect("upgrade the kept database");
        return db;
    }
    let n = decisions();
    let jsonl = target_dir().join(format!("bench-{n}.jsonl"));
    eprintln!("generating {n} decisions into {}", jsonl.display());
    let t = Instant::now();
    {
        let file = std::fs::File::create(&jsonl).expect("create the trace file");
        let stats =
            rung_samplegen::synthetic(n, 42, &mut std::io::BufWriter::new(file)).expect("generate");
        eprintln!(
            "  {} decisions, {} runs, {:.0} MB in {:.1} s",
            stats.decisions,
            stats.runs,
            stats.bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
    let partial = db.with_extension("partial.db");
    let _ = std::fs::remove_file(&partial);
    eprintln!("importing into {} (once; reused afterwards)", db.display());
    let t = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_rung"))
        .arg("--db")
        .arg(&partial)
        .arg("-q")
        .arg("import")
        .arg(&jsonl)
        .status()
        .expect("run rung import");
    assert!(status.success(), "import failed");
    eprintln!("  imported in {:.1} s", t.elapsed().as_secs_f64());
    std::fs::rename(&partial, &db).expect("move the database into place");
    let _ = std::fs::remove_file(&jsonl);
    db
}

/// A database with one decision whose result is a 100 MB JSON document (a
/// list of records, then one 20 MB string), built once.
fn ensure_big_result_db() -> PathBuf {
    let db = target_dir().join("bench-100mb-result.db");
    if db.exists() {
        // Kept from an older rung: upgraded in place (readers refuse it).
        rung::store::Store::open_rw(&db).expect("upgrade the kept database");
        return db;
    }
    let jsonl = target_dir().join("bench-100mb-result.jsonl");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&jsonl).expect("create"));
        write!(
            w,
            r#"{{"type":"decision","run_id":"huge-result","step":1,"selected":"export_logs","outcome":{{"status":"ok"}},"result":{{"rows":["#
        )
        .unwrap();
        let mut written = 0usize;
        let mut i = 0u64;
        while written < 80_000_000 {
            let rec = format!(
                r#"{}{{"row":{i},"level":"info","message":"request {i} served in {} ms","token":"sk-test-{i:016x}"}}"#,
                if i == 0 { "" } else { "," },
                i % 997
            );
            written += rec.len();
            w.write_all(rec.as_bytes()).unwrap();
            i += 1;
        }
        write!(
            w,
            r#"],"blob":"{}"#,
            "0123456789abcdef".repeat(20_000_000 / 16)
        )
        .unwrap();
        // An escape sequence at the very end, escaped as JSON requires.
        w.write_all(br#"\u001b[2J"}}"#).unwrap();
        writeln!(w).unwrap();
    }
    let partial = db.with_extension("partial.db");
    let _ = std::fs::remove_file(&partial);
    let status = Command::new(env!("CARGO_BIN_EXE_rung"))
        .arg("--db")
        .arg(&partial)
        .arg("-q")
        .arg("import")
        // One record of 100 MB: above the default bound on a line.
        .arg("--max-line")
        .arg("1GB")
        .arg(&jsonl)
        .status()
        .expect("run rung import");
    assert!(status.success(), "import failed");
    std::fs::rename(&partial, &db).expect("move the database into place");
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

/// Timings per action name.
#[derive(Default)]
struct Timings {
    frames: BTreeMap<String, Vec<Duration>>,
    data: BTreeMap<String, Vec<Duration>>,
    order: Vec<String>,
    /// Steps after which the peak memory (VmHWM) had risen, with the rise
    /// in KB, in order: what grows with the database.
    growth: Vec<(String, u64)>,
    hwm: u64,
}

impl Timings {
    fn note(&mut self, name: &str) {
        if !self.order.iter().any(|n| n == name) {
            self.order.push(name.to_string());
        }
    }
}

struct Bench {
    h: Harness,
    t: Timings,
}

impl Bench {
    /// Presses `keys` (harness words) as one action: the time to the next
    /// frame is recorded under `name`; answers that arrive are applied and
    /// drawn too (their frames are timed under "answer → frame").
    fn key(&mut self, name: &str, keys: &str) {
        self.t.note(name);
        let start = Instant::now();
        self.h.keys(keys);
        self.h.draw();
        self.t
            .frames
            .entry(name.to_string())
            .or_default()
            .push(start.elapsed());
        self.answers();
    }

    fn typed(&mut self, name: &str, text: &str) {
        self.t.note(name);
        for c in text.chars() {
            let start = Instant::now();
            self.h.type_text(&c.to_string());
            self.h.draw();
            self.t
                .frames
                .entry(name.to_string())
                .or_default()
                .push(start.elapsed());
            self.answers();
        }
    }

    /// Applies the answers in, one frame each (as the event loop does).
    fn answers(&mut self) {
        loop {
            let start = Instant::now();
            if self.h.pump() == 0 {
                return;
            }
            self.h.draw();
            self.t
                .frames
                .entry("answer → frame".into())
                .or_default()
                .push(start.elapsed());
        }
    }

    /// Waits for the data of the last action and records how long it took;
    /// the app must be on `screen` (a step that lands elsewhere would
    /// measure another screen's data under this step's name).
    fn settle(&mut self, name: &str, screen: Screen) {
        let start = Instant::now();
        let done = self.h.settle(Duration::from_secs(120));
        self.h.draw();
        let took = start.elapsed();
        if !done {
            eprintln!("warning: {name}: still loading after 120 s");
        }
        assert_eq!(
            self.h.app.screen, screen,
            "{name}: the app is on another screen"
        );
        self.t.data.entry(name.to_string()).or_default().push(took);
        self.t.note(name);
        let hwm = status_kb("VmHWM:");
        if hwm > self.t.hwm {
            self.t.growth.push((name.to_string(), hwm - self.t.hwm));
            self.t.hwm = hwm;
        }
    }
}

impl Bench {
    /// Takes answers until `done` holds and records how long it took.
    fn wait(&mut self, name: &str, done: impl Fn(&rung::tui::state::App) -> bool) {
        let start = Instant::now();
        while !done(&self.h.app) {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "{name}: not done after 120 s"
            );
            if self.h.pump() == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        self.h.draw();
        self.t
            .data
            .entry(name.to_string())
            .or_default()
            .push(start.elapsed());
        self.t.note(name);
    }

    /// The filter in force is exactly these models (none: no filter), and
    /// the editor is closed.
    fn filtered(&self, models: &[&str]) {
        let f = &self.h.app.filter;
        assert!(
            !self.h.app.editing_filter,
            "the filter editor is still open"
        );
        if models.is_empty() {
            assert!(f.is_empty(), "a filter is still in force: {f:?}");
        } else {
            assert_eq!(f.models, models, "the filter in force: {f:?}");
            assert!(
                self.h.text().contains(models[0]),
                "the filter bar does not show {models:?}"
            );
        }
    }
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    let i = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[i.clamp(1, v.len()) - 1]
}

fn child(db: &Path) {
    let now = {
        let store = rung::store::Store::open_ro(db).expect("open");
        let f = rung::store::query::Filter::default();
        rung::store::browse::latest_refusal(&store.conn, &f)
            .expect("query")
            .map(|t| (t.div_euclid(86_400_000_000) + 1) * 86_400_000_000)
            .unwrap_or(0)
    };
    // The first frame: open as `rung` does (read the configuration, start
    // the workers), draw, then queue the first queries.
    let start = Instant::now();
    let mut h = Harness::open(db, now, false, 120, 40).expect("open the database");
    h.draw();
    let first = start.elapsed();
    h.start();
    let mut b = Bench {
        h,
        t: Timings::default(),
    };
    b.settle("Ladder screen (all four panels)", Screen::Ladder);
    let ladder_data = start.elapsed();

    // Runs: paging, sorting, the fuzzy filter.
    b.key("2 (Runs)", "2");
    b.settle("Runs first page", Screen::Runs);
    for _ in 0..300 {
        b.key("j (next row)", "j");
    }
    for _ in 0..60 {
        b.key("C-d (page down)", "C-d");
    }
    b.settle("paging data", Screen::Runs);
    for _ in 0..30 {
        b.key("k (previous row)", "k");
        b.key("C-u (page up)", "C-u");
    }
    b.key("G (last run)", "G");
    b.settle("G data", Screen::Runs);
    b.key("g (first run)", "g");
    b.settle("g data", Screen::Runs);
    b.key("s (sort by next column)", "s");
    b.settle("sort data (task)", Screen::Runs);
    b.key("s (sort by next column)", "s s s");
    b.settle("sort data (model)", Screen::Runs);
    for _ in 0..50 {
        b.key("j (next row)", "j");
    }
    b.key("S (reverse sort)", "S");
    b.settle("reverse sort data", Screen::Runs);
    b.key("s (sort by next column)", "s s s s s");
    b.settle("sort data (run id)", Screen::Runs);
    b.key("/ (fuzzy filter)", "/");
    b.typed("typing in the fuzzy filter", "migration");
    b.settle("fuzzy result (\"migration\")", Screen::Runs);
    b.typed("typing in the fuzzy filter", " 8175");
    b.settle("fuzzy result (\"migration 8175\")", Screen::Runs);
    for _ in 0..20 {
        b.key("Backspace in the fuzzy filter", "Backspace");
    }
    b.settle("fuzzy result after backspaces", Screen::Runs);
    b.key("Enter (keep filter)", "Enter");
    b.key("Esc (clear filter)", "Esc");
    b.settle("runs after clearing", Screen::Runs);

    // Run: the timeline, a decision's detail, n, the result.
    b.key("Enter (open run)", "Enter");
    b.settle("run timeline + detail", Screen::Run);
    for _ in 0..40 {
        b.key("j (next decision)", "j");
    }
    b.settle("detail data", Screen::Run);
    for _ in 0..20 {
        b.key("n (next failing)", "n");
        b.key("N (previous failing)", "N");
    }
    b.settle("failing jumps data", Screen::Run);
    b.key("l (detail pane)", "l");
    for _ in 0..20 {
        b.key("j (scroll detail)", "j");
    }
    b.key("v (hidden tools)", "v");
    b.key("h (timeline)", "h");
    b.key("r (result)", "r");
    b.settle("result chunk", Screen::Run);
    b.key("Esc (close result)", "Esc");

    // The other screens.
    b.key("4 (Refusals)", "4");
    b.settle("Refusals week", Screen::Refusals);
    for _ in 0..3 {
        b.key("[ (week back)", "[");
        b.settle("Refusals week", Screen::Refusals);
        for _ in 0..5 {
            b.key("j (next reason)", "j");
        }
    }
    b.key("Enter (refusal decisions)", "Enter");
    b.settle("refusal decisions", Screen::Decisions);
    for _ in 0..100 {
        b.key("j (next decision in list)", "j");
    }
    b.key("Enter (open run at decision)", "Enter");
    b.settle("run at decision", Screen::Run);
    b.key("5 (Confusions)", "5");
    b.settle("Confusions", Screen::Confusions);
    for _ in 0..20 {
        b.key("j (next cell)", "j");
    }
    b.key("m (matrix)", "m");
    for _ in 0..10 {
        b.key("l (matrix column)", "l");
    }
    b.key("m (matrix)", "m");
    b.key("Enter (cell decisions)", "Enter");
    b.settle("cell decisions", Screen::Decisions);
    b.key("6 (Tools)", "6");
    b.settle("Tools usage", Screen::Tools);
    for _ in 0..100 {
        b.key("j (next tool)", "j");
    }
    b.key("/ (find tool)", "/");
    b.typed("typing in the tool find", "search");
    // Enter keeps the find and opens the best match at once (a second
    // Enter would open the first rule's decisions once the audit is in).
    b.key("Enter (keep find, tool: why visible?)", "Enter");
    b.settle("tool audit (rule by rule)", Screen::Tool);
    // Drill-downs (issue 16): a rule row of the audit, a tool's count.
    b.key("Enter (decisions behind a rule)", "Enter");
    b.settle("drill: rule decisions", Screen::Decisions);
    for _ in 0..100 {
        b.key("j (next decision in list)", "j");
    }
    b.key("G (last decision)", "G");
    b.settle("drill: rule decisions, G", Screen::Decisions);
    b.key("Esc (back to the tool)", "Esc");
    b.key("Esc (back to Tools)", "Esc");
    b.key("l (visible count)", "l");
    b.key("Enter (decisions a tool was visible to)", "Enter");
    b.settle("drill: visible decisions", Screen::Decisions);
    b.key("G (last decision)", "G");
    b.settle("drill: visible decisions, G", Screen::Decisions);
    // The Ladder's largest rung, drilled into.
    b.key("1 (Ladder)", "1");
    b.settle("Ladder", Screen::Ladder);
    let largest =
        b.h.app
            .ladder
            .counts
            .value
            .as_ref()
            .and_then(|(c, _)| {
                rung::model::Rung::ALL
                    .iter()
                    .enumerate()
                    .max_by_key(|(_, r)| c.count(**r))
                    .map(|(i, _)| i)
            })
            .unwrap_or(0);
    b.key("g (top rung)", "g");
    for _ in 0..largest {
        b.key("j (next rung)", "j");
    }
    b.key("Enter (largest rung's decisions)", "Enter");
    b.settle("drill: largest rung's decisions", Screen::Decisions);
    b.key("G (last decision)", "G");
    b.settle("drill: largest rung, G", Screen::Decisions);
    b.key("Esc (back to the Ladder)", "Esc");
    b.key("1 (Ladder)", "1");
    b.key("Enter (rung decisions)", "j j j Enter");
    b.settle("rung decisions", Screen::Decisions);
    for _ in 0..200 {
        b.key("j (next decision in list)", "j");
    }
    b.key("G (last decision)", "G");
    b.settle("G data", Screen::Decisions);
    // Findings: six tabs on from the Ladder's tab.
    for _ in 0..6 {
        b.key("Tab (next screen)", "Tab");
    }
    b.settle("Findings counts", Screen::Findings);
    // A kind's findings in the week: its first page, then its last.
    b.key("Enter (a kind's findings)", "Enter");
    b.settle("Findings list", Screen::FindingList);
    b.key("G (last finding)", "G");
    b.settle("Findings list, G", Screen::FindingList);
    b.key("Esc (back to Findings)", "Esc");
    // The Ladder under a filter: the filter editor's model field, checked
    // (does it keep anything?) then applied; the screens reload under it.
    b.key("1 (Ladder)", "1");
    b.settle("Ladder", Screen::Ladder);
    b.key("f (filter editor)", "f");
    assert!(b.h.app.editing_filter, "f opens the filter editor");
    b.settle("filter editor's completions", Screen::Ladder);
    b.typed("typing in the filter editor", "model-c");
    b.key("Enter (apply filter)", "Enter");
    b.wait("filter check (keeps any?)", |app| {
        app.form.checking.is_none()
    });
    b.settle("Ladder under a filter", Screen::Ladder);
    b.filtered(&["model-c"]);
    b.key("2 (Runs)", "2");
    b.settle("Runs under a filter", Screen::Runs);
    b.filtered(&["model-c"]);
    b.key("F (clear filter)", "F");
    b.settle("Runs, filter cleared", Screen::Runs);
    b.filtered(&[]);

    // A 100 MB result: opened, scrolled, jumped to its end and back.
    let big = ensure_big_result_db();
    let mut h = Harness::open(&big, now, false, 120, 40).expect("open the database");
    h.draw();
    h.start();
    let mut b2 = Bench {
        h,
        t: std::mem::take(&mut b.t),
    };
    b2.settle("100 MB result: ladder", Screen::Ladder);
    b2.key("2 (Runs)", "2");
    b2.settle("100 MB result: runs", Screen::Runs);
    b2.key("Enter (open run)", "Enter");
    b2.settle("100 MB result: run", Screen::Run);
    b2.key("r (100 MB result)", "r");
    b2.settle("100 MB result: first chunk", Screen::Run);
    for _ in 0..200 {
        b2.key("j in a 100 MB result", "j");
    }
    for _ in 0..50 {
        b2.key("C-d in a 100 MB result", "C-d");
    }
    b2.settle("100 MB result: next chunks", Screen::Run);
    b2.key("G in a 100 MB result", "G");
    b2.settle("100 MB result: seek to the end", Screen::Run);
    for _ in 0..50 {
        b2.key("C-u in a 100 MB result", "C-u");
    }
    b2.key("g in a 100 MB result", "g");
    b2.settle("100 MB result: back to the start", Screen::Run);
    let mut b = b2;

    let hwm = status_kb("VmHWM:");
    let rss = status_kb("VmRSS:");

    println!("rung TUI benchmark · {} · 120x40 TestBackend", db.display());
    println!();
    println!(
        "first frame        {:8.1} ms   (target ≤ 300 ms)  {}",
        ms(first),
        if first <= Duration::from_millis(300) {
            "ok"
        } else {
            "OVER"
        }
    );
    println!(
        "ladder data in     {:8.1} ms   (worker; loading shown until then)",
        ms(ladder_data)
    );
    println!();
    println!("key → next frame (ms)                         n      p50      p99      max");
    let mut worst = Duration::ZERO;
    let mut names = b.t.order.clone();
    names.push("answer → frame".into());
    names.dedup();
    for name in &names {
        let Some(v) = b.t.frames.get_mut(name) else {
            continue;
        };
        let (p50, p99) = (pct(v, 50.0), pct(v, 99.0));
        let max = *v.iter().max().unwrap();
        if name != "answer → frame" {
            worst = worst.max(p99);
        }
        println!(
            "  {:<40} {:>6} {:>8.2} {:>8.2} {:>8.2}",
            name,
            v.len(),
            ms(p50),
            ms(p99),
            ms(max)
        );
    }
    println!();
    println!("data arrival after the key (worker, ms)       n      p50      max");
    for name in &b.t.order {
        let Some(v) = b.t.data.get_mut(name) else {
            continue;
        };
        let p50 = pct(v, 50.0);
        let max = *v.iter().max().unwrap();
        println!(
            "  {:<40} {:>6} {:>8.1} {:>8.1}",
            name,
            v.len(),
            ms(p50),
            ms(max)
        );
    }
    println!();
    println!(
        "worst key p99      {:8.2} ms   (target ≤ 50 ms)   {}",
        ms(worst),
        if worst <= Duration::from_millis(50) {
            "ok"
        } else {
            "OVER"
        }
    );
    println!(
        "memory             VmHWM {:.1} MB, VmRSS {:.1} MB   (target < 200 MB)  {}",
        hwm as f64 / 1024.0,
        rss as f64 / 1024.0,
        if hwm < 200 * 1024 { "ok" } else { "OVER" }
    );
    println!("peak memory rose after (steps adding ≥ 5 MB, in order)");
    for (name, kb) in b.t.growth.iter().filter(|(_, kb)| *kb >= 5 * 1024) {
        println!("  {:<40} {:>+8.1} MB", name, *kb as f64 / 1024.0);
    }
}

fn main() {
    // `cargo bench` passes --bench; libtest-style filters are ignored.
    if std::env::var_os("RUNG_TUI_BENCH_CHILD").is_some() {
        child(&db_path());
        return;
    }
    let db = ensure_db();
    ensure_big_result_db();
    let status = Command::new(std::env::current_exe().expect("own path"))
        .env("RUNG_TUI_BENCH_CHILD", "1")
        .status()
        .expect("run the measuring child");
    assert!(status.success(), "the measuring child failed");
    let _ = db;
}
