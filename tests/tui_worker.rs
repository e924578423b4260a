//! The TUI's workers and the answers they send: a stale answer is dropped
//! (by the worker and by the app), a scan a newer request cancels stops
//! part-way and sends nothing, and a worker that panics answers with the
//! error, which the screen shows instead of "loading…".

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use rung::filter::Filter;
use rung::store::Store;
use rung::store::browse::{Anchor, PayloadColumn};
use rung::tui::harness::Harness;
use rung::tui::payload::Indent;
use rung::tui::theme::Theme;
use rung::tui::worker::{
    Answerer, Done, FuzzyResult, Request, Response, Shared, Slot, Workers, answer,
};
use rung::tui::{Action, App, Options, Screen, update};

const WAIT: Duration = Duration::from_secs(20);

fn now() -> i64 {
    rung::model::Timestamp::parse("2026-11-23T00:00:00Z")
        .unwrap()
        .micros()
}

/// Imports `paths` into a new database in `dir` the way `rung import` does.
fn import(dir: &Path, paths: &[PathBuf]) -> PathBuf {
    let db = dir.join("w.db");
    let cli = rung::cli::Cli::try_parse_from(["rung", "-q", "--db", db.to_str().unwrap()])
        .expect("arguments parse");
    let args = rung::cli::import::ImportArgs {
        paths: paths.to_vec(),
        format: "auto".into(),
        ..Default::default()
    };
    rung::cli::import::run(&cli.global, &args).expect("fixture imports");
    db
}

fn desk() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui/desk.jsonl")
}

fn shared(db: &Path) -> Shared {
    let config = Store::open_ro(db).unwrap().config().unwrap();
    Shared {
        db: db.to_path_buf(),
        config: Arc::new(config),
        redactor: rung::redact::Redactor::new(&[], false).unwrap(),
        chains: Default::default(),
    }
}

fn id(d: Done) -> Done {
    d
}

/// Workers on `db` answering through `answerer`, and their answers.
fn workers(db: &Path, answerer: Answerer) -> (Workers, Receiver<Done>) {
    let (tx, rx) = channel();
    let w = Workers::start_with(shared(db), tx, id, answerer).expect("workers start");
    (w, rx)
}

/// A one-shot gate: the worker says it got there, then waits for the test.
struct Gate {
    reached: Sender<()>,
    open: Mutex<Receiver<()>>,
}

impl Gate {
    fn new() -> (Arc<Gate>, Receiver<()>, Sender<()>) {
        let (reached, reached_rx) = channel();
        let (open_tx, open) = channel();
        (
            Arc::new(Gate {
                reached,
                open: Mutex::new(open),
            }),
            reached_rx,
            open_tx,
        )
    }
    fn pass(&self) {
        self.reached.send(()).unwrap();
        self.open.lock().unwrap().recv().unwrap();
    }
}

#[test]
fn an_answer_made_stale_while_it_was_computed_is_not_sent() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    let (gate, reached, open) = Gate::new();
    let first = Arc::new(AtomicBool::new(true));
    let answerer: Answerer = Arc::new(move |store, shared, request, cancelled| {
        // The first request is held until a newer one has been sent.
        if first.swap(false, Ordering::SeqCst) {
            gate.pass();
        }
        answer(store, shared, request, cancelled)
    });
    let (w, rx) = workers(&db, answerer);
    let fuzzy = |pattern: &str| Request::Fuzzy {
        filter: Filter::default(),
        pattern: pattern.into(),
    };
    w.send(Slot::Fuzzy, 1, fuzzy("harbor"));
    reached
        .recv_timeout(WAIT)
        .expect("request A is being answered");
    w.send(Slot::Fuzzy, 2, fuzzy("r-10"));
    open.send(()).unwrap();
    // One quick thread answers in order: A's answer would come first.
    let d = rx.recv_timeout(WAIT).expect("an answer");
    assert_eq!((d.slot, d.seq), (Slot::Fuzzy, 2), "A's answer was sent");
    match d.response {
        Response::Fuzzy(r) => assert_eq!(r.pattern, "r-10"),
        other => panic!("not a fuzzy answer: {other:?}"),
    }
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
}

fn app() -> App {
    let opts = Options {
        now_us: now(),
        theme: Theme { color: false },
        no_redact: false,
        redactor: Default::default(),
    };
    App::new(opts, (120, 40))
}

fn matched(pattern: &str, matched: u64) -> Response {
    Response::Fuzzy(FuzzyResult {
        pattern: pattern.into(),
        rows: Vec::new(),
        matched,
        why: Default::default(),
        exact: true,
    })
}

#[test]
fn the_app_takes_only_the_answer_to_the_latest_request() {
    let mut app = app();
    update(&mut app, Action::Go(Screen::Runs));
    update(&mut app, Action::Find);
    update(&mut app, Action::Type('h'));
    update(&mut app, Action::Type('a'));
    let fuzzy: Vec<(u64, String)> = app
        .outbox
        .drain(..)
        .filter_map(|(slot, seq, r)| match (slot, r) {
            (Slot::Fuzzy, Request::Fuzzy { pattern, .. }) => Some((seq, pattern)),
            _ => None,
        })
        .collect();
    let [(a, pa), (b, pb)] = &fuzzy[..] else {
        panic!("two fuzzy requests: {fuzzy:?}");
    };
    assert_eq!((pa.as_str(), pb.as_str()), ("h", "ha"));
    assert!(b > a);
    // B's answer first, then A's: A is stale and changes nothing.
    let done = |seq: u64, response| {
        Action::Loaded(Box::new(Done {
            slot: Slot::Fuzzy,
            seq,
            response,
        }))
    };
    update(&mut app, done(*b, matched("ha", 2)));
    update(&mut app, done(*a, matched("h", 3)));
    let r = app.runs.fuzzy.result.as_ref().expect("B's answer is taken");
    assert_eq!((r.pattern.as_str(), r.matched), ("ha", 2));
    assert!(!app.runs.fuzzy.loading);
    assert_eq!(app.pending(), 1, "only the first page of runs is awaited");
    // A stale answer that arrives before the latest one is dropped too.
    update(&mut app, Action::Type('r'));
    let c = app.outbox.last().map(|(_, seq, _)| *seq).unwrap();
    update(&mut app, done(c - 1, matched("old", 9)));
    assert!(app.runs.fuzzy.loading, "still waiting for the latest");
    assert_eq!(app.runs.fuzzy.result.as_ref().unwrap().pattern, "ha");
    update(&mut app, done(c, matched("har", 1)));
    assert_eq!(app.runs.fuzzy.result.as_ref().unwrap().pattern, "har");
}

/// A database with one decision whose result is about 600 KB: ten chunks
/// of the payload viewer.
fn big_result(dir: &Path) -> (PathBuf, i64) {
    let items: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"row":{i},"text":"line {i}"}}"#))
        .collect();
    let line = format!(
        r#"{{"type":"decision","run_id":"big","step":1,"selected":"export","outcome":{{"status":"ok"}},"result":{{"rows":[{}]}}}}"#,
        items.join(",")
    );
    let path = dir.join("big.jsonl");
    std::fs::write(&path, line + "\n").unwrap();
    let db = import(dir, &[path]);
    let store = Store::open_ro(&db).unwrap();
    let timeline = Request::Timeline {
        filter: Filter::default(),
        run_id: "big".into(),
        sort: Default::default(),
        desc: false,
        anchor: Anchor::First,
    };
    let Ok(Some(Response::Timeline(_, page))) = answer(&store, &shared(&db), timeline, &|| false)
    else {
        panic!("the timeline of run big");
    };
    (db, page.rows[0].1.decision_id)
}

#[test]
fn a_scan_cancelled_part_way_stops_and_sends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, decision_id) = big_result(dir.path());
    let seek = Request::PayloadSeek {
        decision_id,
        column: PayloadColumn::Result,
        from: (0, Indent::default()),
    };
    // Uncancelled, the walk checks once per chunk and finds every start.
    let store = Store::open_ro(&db).unwrap();
    let checks = AtomicUsize::new(0);
    let count = || {
        checks.fetch_add(1, Ordering::SeqCst);
        false
    };
    let Ok(Some(Response::PayloadSeek(all))) = answer(&store, &shared(&db), seek.clone(), &count)
    else {
        panic!("the walk finishes");
    };
    let whole = checks.load(Ordering::SeqCst);
    assert!(all.len() >= 8, "{} chunk starts", all.len());
    assert_eq!(whole, all.len(), "one check per chunk");

    // Request A is held at its third check until request B is sent.
    let (gate, reached, open) = Gate::new();
    let (outcome_tx, outcome) = channel();
    let outcome_tx = Mutex::new(outcome_tx);
    let first = Arc::new(AtomicBool::new(true));
    let answerer: Answerer = Arc::new(move |store, shared, request, cancelled| {
        if !first.swap(false, Ordering::SeqCst) {
            return answer(store, shared, request, cancelled);
        }
        let checks = AtomicUsize::new(0);
        let held = || {
            if checks.fetch_add(1, Ordering::SeqCst) + 1 == 3 {
                gate.pass();
            }
            cancelled()
        };
        let r = answer(store, shared, request, &held);
        let stopped = matches!(r, Ok(None));
        outcome_tx
            .lock()
            .unwrap()
            .send((checks.load(Ordering::SeqCst), stopped))
            .unwrap();
        r
    });
    let (w, rx) = workers(&db, answerer);
    w.send(Slot::PayloadSeek, 1, seek.clone());
    reached.recv_timeout(WAIT).expect("A is part-way");
    w.send(Slot::PayloadSeek, 2, seek);
    open.send(()).unwrap();
    let (a_checks, a_stopped) = outcome.recv_timeout(WAIT).expect("A ended");
    assert!(a_stopped, "A ran to its end");
    assert_eq!(a_checks, 3, "A stopped at the check after B was sent");
    let d = rx.recv_timeout(WAIT).expect("an answer");
    assert_eq!((d.slot, d.seq), (Slot::PayloadSeek, 2), "A sent an answer");
    match d.response {
        Response::PayloadSeek(points) => assert_eq!(points, all),
        other => panic!("not a seek answer: {other:?}"),
    }
}

/// The walk to a payload's end (cut a batch at a time, the cuts checked
/// for secrets on two threads) stops where reading it chunk by chunk does,
/// also where a cut would split a secret and moves: here a 1.3 MB string of
/// API keys, which no line end breaks, and then a list of them.
#[test]
fn the_walk_to_the_end_stops_where_chunk_by_chunk_reading_does() {
    let dir = tempfile::tempdir().unwrap();
    let keys: String = (0..30_000).map(|i| format!("sk-live{i:0>30} ")).collect();
    let items: Vec<String> = (0..10_000)
        .map(|i| format!(r#"{{"key":"sk-{i:0>40}"}}"#))
        .collect();
    let line = format!(
        r#"{{"type":"decision","run_id":"keys","step":1,"selected":"export","outcome":{{"status":"ok"}},"result":{{"text":"{keys}","rows":[{}]}}}}"#,
        items.join(",")
    );
    let path = dir.path().join("keys.jsonl");
    std::fs::write(&path, line + "\n").unwrap();
    let db = import(dir.path(), &[path]);
    let store = Store::open_ro(&db).unwrap();
    let shared = shared(&db);
    let seek = Request::PayloadSeek {
        decision_id: 1,
        column: PayloadColumn::Result,
        from: (0, Indent::default()),
    };
    // Each chunk read is one check for a newer request.
    let reads = AtomicUsize::new(0);
    let count = || {
        reads.fetch_add(1, Ordering::SeqCst);
        false
    };
    let Ok(Some(Response::PayloadSeek(stops))) = answer(&store, &shared, seek, &count) else {
        panic!("the walk finishes");
    };
    // Chunk by chunk, as the viewer reads forward.
    let payload =
        rung::store::browse::payload_read(&store.conn, 1, PayloadColumn::Result, 0, usize::MAX)
            .unwrap();
    let (mut at, mut state, mut want, mut moved) = (0usize, Indent::default(), Vec::new(), 0);
    loop {
        want.push((at as u64, state));
        let buf = &payload[at..payload.len().min(at + rung::tui::payload::READ)];
        let (len, end) = rung::tui::payload::chunk_len(buf, state, &shared.redactor);
        if len != rung::tui::payload::structural_len(buf, state).0 {
            moved += 1;
        }
        if len == 0 || at + len >= payload.len() {
            break;
        }
        at += len;
        state = end;
    }
    assert!(moved >= 10, "{moved} cuts moved out of a key");
    assert_eq!(stops, want);
    // A batch whose cut moved read chunks it did not use; the batches
    // shrink after one, so that past the first batch (32 chunks) each stop
    // costs about two reads, not a batch (58 reads here; 128 with batches
    // that stay large).
    let reads = reads.load(Ordering::SeqCst);
    assert!(
        reads <= 32 + 2 * stops.len(),
        "{reads} reads for {} stops",
        stops.len()
    );
}

/// Answers like `rung`, except that the ladder counts and decision 1's
/// detail panic.
fn panicky() -> Answerer {
    Arc::new(|store, shared, request, cancelled| match request {
        Request::Ladder(_) => panic!("counting went wrong"),
        Request::Detail(_) => {
            let v: Vec<u8> = Vec::new();
            let _ = v[3];
            unreachable!()
        }
        other => answer(store, shared, other, cancelled),
    })
}

#[test]
fn a_worker_that_panics_answers_with_the_error_and_lives_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    let (w, rx) = workers(&db, panicky());
    // The quick lane has one thread: after its panic it still answers.
    w.send(Slot::Detail, 1, Request::Detail(1));
    w.send(Slot::RunHeader, 2, Request::RunHeader("r-101".into()));
    let d = rx.recv_timeout(WAIT).expect("the panic is answered");
    assert_eq!((d.slot, d.seq), (Slot::Detail, 1));
    match d.response {
        Response::Error(e) => {
            assert!(
                e.starts_with("internal error: index out of bounds: the len is 0 but the index is 3 (at tests/tui_worker.rs:"),
                "{e}"
            );
            assert!(e.ends_with("; please report it)"), "{e}");
        }
        other => panic!("not an error: {other:?}"),
    }
    let d = rx.recv_timeout(WAIT).expect("the next request is answered");
    assert_eq!((d.slot, d.seq), (Slot::RunHeader, 2));
    match d.response {
        Response::RunHeader(Some(h)) => assert_eq!(h.run_id, "r-101"),
        other => panic!("not the run's header: {other:?}"),
    }
}

#[test]
fn a_worker_that_panics_shows_the_error_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path(), &[desk()]);
    let mut h = Harness::open_with(&db, now(), false, 120, 40, panicky()).unwrap();
    h.draw();
    h.start();
    assert!(h.settle(WAIT), "every request is answered");
    h.draw();
    let text = h.text();
    assert!(!text.contains("loading…"), "{text}");
    // The funnel's pane says why it is empty, wrapped to its width.
    assert!(
        text.contains("│could not load: internal error: counting went wrong (at │"),
        "{text}"
    );
    assert!(text.contains("│tests/tui_worker.rs:"), "{text}");
    // The key bar says it too; the rest of the Ladder is there.
    let last = text.lines().nth(39).unwrap();
    assert!(
        last.starts_with(" internal error: counting went wrong (at tests/tui_worker.rs:"),
        "{last}"
    );
    assert!(text.contains("Routing rates"), "{text}");
    let status = h.app.status.clone().unwrap();
    assert_eq!(h.app.ladder.counts.error.as_deref(), Some(status.as_str()));
    assert!(!h.app.ladder.counts.loading);
    // The detail pane of the Run screen shows its panic likewise.
    h.keys("2");
    assert!(h.settle(WAIT));
    h.keys("Enter");
    assert!(h.settle(WAIT));
    h.draw();
    let text = h.text();
    assert!(
        text.contains("could not load: internal error: index out of bounds"),
        "{text}"
    );
    assert!(!text.contains("loading…"), "{text}");
}
