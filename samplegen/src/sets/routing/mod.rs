//! `routing-ladder`: a coding agent whose exposure follows its phase
//! (discover / modify / verify / release), with trusted controls and keyword
//! retrieval, and decisions failing at every rung (action-space-and-routing.txt).
//! Its confusion table is dominated by one cell: 38 × ([read_file], search_code).

mod catalogue;
mod readme;
mod steps;

use serde_json::{Value, json};

use crate::check::{self, Analysis, Finding};
use crate::model::{Case, Decision, Label, Record, TraceSet};
use crate::rng::Rng;
use crate::sets::run;
use crate::time::{at, fmt};
use catalogue::catalogue;
use readme::readme;
use steps::{PATHS, R, discover_retrieval, file_text, retrieval};

const MODEL: &str = "qwen3-coder:30b";
const CAT: &str = "repo-agent-3";
const CONTROLS: [&str; 3] = ["ask_user", "wait_for_event", "no_applicable_tool"];

pub fn build() -> TraceSet {
    let mut set = TraceSet::new("routing-ladder");
    set.file("catalogue.jsonl")
        .push(Record::Catalogue(catalogue()));
    let mut rng = Rng::new(0x0A11_5EA5_0013_0038);
    let mut runs: Vec<(crate::model::Run, Vec<Decision>)> = vec![];
    let mut cases: Vec<Case> = vec![];
    let controls: Vec<String> = CONTROLS.iter().map(|s| s.to_string()).collect();
    let base = at(2026, 11, 24, 9, 0, 0);
    let mut n = 0usize;
    let new_run = |task: &str, trial: u32, goal: &str, intent: &'static str, n: &mut usize| {
        *n += 1;
        let t0 = base + (*n as i64 / 24) * 86_400 + (*n as i64 % 24) * 1200;
        let id = format!("rl-{:03}", *n);
        let mut r = run(&id, task, trial, goal, intent, MODEL, CAT, t0);
        r.menu.trusted_controls = Some(controls.clone());
        (
            r,
            R {
                id,
                t: t0,
                step: 0,
                turn: 0,
                out: vec![],
            },
        )
    };
    let finish = |mut r: crate::model::Run,
                  rr: R,
                  success: bool,
                  terminated: &'static str,
                  runs: &mut Vec<(crate::model::Run, Vec<Decision>)>| {
        r.ended_at = Some(fmt(rr.t + 4));
        r.success = Some(success);
        r.terminated = Some(terminated);
        r.harm = Some(false);
        runs.push((r, rr.out));
    };

    // 1. open a file by path: 30 tasks x 2 attempts; 38 first calls search instead
    let mut wrong: Vec<bool> = (0..60).map(|i| i < 38).collect();
    rng.shuffle(&mut wrong);
    for (i, path) in PATHS.iter().enumerate() {
        let task = format!("explain-{}", path.replace(['/', '.'], "-"));
        cases.push(Case::new(&task, &["read_file"], &[]).note("the path is in the request"));
        for trial in 1..=2 {
            let (r, mut rr) = new_run(
                &task,
                trial,
                &format!("Walk me through what {path} does."),
                "inform",
                &mut n,
            );
            if wrong[i * 2 + trial as usize - 1] {
                let file = path.rsplit('/').next().unwrap();
                let d = rr
                    .d("discover", Some("search_code"), json!({"query": file}))
                    .retrieval(discover_retrieval(path))
                    .ok()
                    .latency(150)
                    .result(
                        json!({"hits": [{"path": path, "line": 1, "text": format!("# {path}")}]}),
                    )
                    .stalled();
                rr.push(d);
            }
            let d = rr
                .d("discover", Some("read_file"), json!({"path": path}))
                .retrieval(discover_retrieval(path))
                .ok()
                .latency(30)
                .result(file_text(path))
                .advanced();
            rr.push(d);
            let d = rr.d("discover", None, Value::Null).not_run();
            rr.push(d);
            finish(r, rr, true, "answered", &mut runs);
        }
    }

    // 2. fix a bug: discover, modify, verify; each run fails somewhere different
    let bugs = [
        (
            "fix-proration-rounding",
            "src/billing/proration.py",
            "round_half_even",
        ),
        ("fix-token-expiry", "src/auth/token.py", "is_expired"),
        ("fix-retry-backoff", "src/jobs/retry.py", "backoff_seconds"),
        ("fix-cache-key", "src/cache/keys.py", "cart_key"),
        (
            "fix-webhook-signature",
            "src/webhooks/sign.py",
            "sign_payload",
        ),
        ("fix-pool-leak", "src/db/pool.py", "release"),
        ("fix-rate-window", "src/rate/limiter.py", "window_start"),
        ("fix-pdf-fonts", "src/pdf/render.py", "load_fonts"),
        ("fix-geo-fallback", "src/geo/lookup.py", "fallback_country"),
        ("fix-ledger-sign", "src/ledger/postings.py", "post_refund"),
    ];
    // what goes wrong, per run (20 runs)
    let faults = [
        "clean",
        "clean",
        "schema",
        "discovery",
        "execution",
        "exposure",
        "progress",
        "selection_lint",
        "clean",
        "schema",
        "discovery",
        "execution",
        "regressed",
        "selection_create",
        "clean",
        "exposure",
        "schema",
        "discovery",
        "selection_lint",
        "clean",
    ];
    for (bi, (task, path, symbol)) in bugs.iter().enumerate() {
        cases.push(
            Case::new(task, &["lookup_symbol", "search_code"], &[]).note("find the code first"),
        );
        for trial in 1..=2 {
            let fault = faults[bi * 2 + trial as usize - 1];
            let (r, mut rr) = new_run(
                task,
                trial,
                &format!(
                    "`{symbol}` in {path} gives the wrong answer for the case in the failing test. Fix it."
                ),
                "act",
                &mut n,
            );
            let q = retrieval(
                4,
                &format!("{symbol} wrong"),
                &[
                    ("lookup_symbol", 0.88),
                    ("search_code", 0.86),
                    ("read_file", 0.61),
                    ("git_log", 0.35),
                    ("list_directory", 0.2),
                ],
            );
            let d = rr
                .d("discover", Some("lookup_symbol"), json!({"symbol": symbol}))
                .retrieval(q)
                .ok()
                .latency(90)
                .result(json!({"definition": {"path": path, "line": 41}, "references": 3}))
                .advanced();
            rr.push(d);
            let d = rr
                .d("discover", Some("read_file"), json!({"path": path}))
                .ok()
                .latency(25)
                .result(file_text(path))
                .advanced();
            rr.push(d);
            let edit = json!({"path": path, "old": "return int(x)", "new": "return round(x)"});
            let must_edit = Label::new(&["edit_file"], &["delete_file"]);
            match fault {
                "schema" => {
                    let d = rr
                        .d(
                            "modify",
                            Some("edit_file"),
                            json!({"path": path, "old": "return int(x)"}),
                        )
                        .refused_at("schema", "missing_argument", "\"new\" is required.")
                        .expected(must_edit.clone());
                    rr.push(d);
                }
                "selection_create" => {
                    let d = rr
                        .d(
                            "modify",
                            Some("create_file"),
                            json!({"path": path, "content": "..."}),
                        )
                        .refused("precondition", "The file exists; change it with edit_file.")
                        .expected(must_edit.clone());
                    rr.push(d);
                }
                _ => {}
            }
            let d = rr
                .d("modify", Some("edit_file"), edit)
                .ok()
                .latency(15)
                .result(json!({"path": path, "replaced": 1}))
                .progress(if fault == "progress" {
                    crate::model::Progress::None
                } else {
                    crate::model::Progress::Advanced
                })
                .expected(must_edit.clone());
            rr.push(d);
            let tests = json!({"suite": "unit", "target": format!("tests/{}", path.trim_start_matches("src/").replace('/', "_"))});
            let must_test = Label::new(&["run_tests"], &[]);
            let mut success = true;
            match fault {
                "discovery" => {
                    let q = retrieval(
                        2,
                        "verify fix",
                        &[
                            ("read_file", 0.81),
                            ("run_linter", 0.77),
                            ("run_tests", 0.74),
                            ("get_ci_status", 0.5),
                        ],
                    );
                    let d = rr
                        .d("verify", Some("run_linter"), json!({"paths": [path]}))
                        .retrieval(q)
                        .ok()
                        .latency(2100)
                        .result(json!({"findings": 0}))
                        .stalled()
                        .expected(must_test.clone());
                    rr.push(d);
                }
                "selection_lint" => {
                    let d = rr
                        .d("verify", Some("run_linter"), json!({"paths": [path]}))
                        .ok()
                        .latency(2000)
                        .result(json!({"findings": 0}))
                        .stalled()
                        .expected(must_test.clone());
                    rr.push(d);
                }
                "execution" => {
                    let d = rr.d("verify", Some("run_tests"), tests.clone()).error("provider_error", "The test runner pool is unavailable (HTTP 503). Try again in a few minutes.", true).latency(1200).expected(must_test.clone());
                    rr.push(d);
                }
                _ => {}
            }
            let (passed, failed) = if fault == "regressed" {
                (201, 3)
            } else if fault == "exposure" {
                (203, 1)
            } else {
                (204, 0)
            };
            let d = rr
                .d("verify", Some("run_tests"), tests)
                .ok()
                .latency(48_000)
                .result(json!({"ok": failed == 0, "passed": passed, "failed": failed}))
                .progress(if fault == "regressed" {
                    crate::model::Progress::Regressed
                } else {
                    crate::model::Progress::Advanced
                })
                .expected(must_test);
            rr.push(d);
            if fault == "exposure" || fault == "regressed" {
                // one test still fails: the fix needs another edit, which verify does not expose
                let d = rr
                    .d("verify", Some("read_file"), json!({"path": path}))
                    .ok()
                    .latency(25)
                    .result(file_text(path))
                    .stalled()
                    .expected(must_edit.clone());
                rr.push(d);
                success = false;
            }
            let d = rr.d("verify", None, Value::Null).not_run();
            rr.push(d);
            finish(
                r,
                rr,
                success,
                if success { "answered" } else { "step_limit" },
                &mut runs,
            );
        }
    }

    // 3. release: approvals and preconditions at the boundary
    let releases = [
        (
            "awaiting_approval",
            "Production deploys wait for the release manager's approval (request REL-311).",
        ),
        ("ok", ""),
        (
            "awaiting_approval",
            "Waiting for the release manager's approval (REL-312).",
        ),
        (
            "precondition",
            "The pipeline for this tag is still running; deploy when it is green.",
        ),
        ("ok", ""),
        (
            "awaiting_approval",
            "Waiting for the release manager's approval (REL-318).",
        ),
        (
            "precondition",
            "The pipeline for this tag failed; fix it before deploying.",
        ),
        ("ok", ""),
        (
            "awaiting_approval",
            "Waiting for the release manager's approval (REL-320).",
        ),
        ("ok", ""),
    ];
    for (i, (what, msg)) in releases.iter().enumerate() {
        let version = format!("v3.8.{}", i / 2 + 1);
        let task = format!("ship-{version}");
        if i % 2 == 0 {
            cases.push(Case::new(&task, &["deploy_release"], &["rollback_release"]));
        }
        let (r, mut rr) = new_run(
            &task,
            i as u32 % 2 + 1,
            &format!("Ship {version} to production."),
            "act",
            &mut n,
        );
        let d = rr.d(
            "release",
            Some("deploy_release"),
            json!({"version": version, "environment": "production"}),
        );
        let d = match *what {
            "ok" => d
                .ok()
                .latency(95_000)
                .result(
                    json!({"environment": "production", "version": version, "status": "deployed"}),
                )
                .advanced(),
            reason => d.refused(reason, msg),
        };
        rr.push(d);
        let d = rr.d("release", None, Value::Null).not_run();
        rr.push(d);
        finish(
            r,
            rr,
            *what == "ok",
            if *what == "ok" {
                "answered"
            } else {
                "needs_confirmation"
            },
            &mut runs,
        );
    }

    // 4. coverage: no tool can bisect history
    cases.push(
        Case::new("bisect-regression", &["bisect_commits"], &[])
            .note("nothing in the registry bisects; the right fix is a new tool"),
    );
    for trial in 1..=3 {
        let (r, mut rr) = new_run(
            "bisect-regression",
            trial,
            "Find which commit since v3.7.0 made the export job slow.",
            "inform",
            &mut n,
        );
        let d = rr
            .d(
                "discover",
                Some("git_log"),
                json!({"path": "src/jobs/nightly_export.py"}),
            )
            .ok()
            .latency(300)
            .result(json!({"commits": 50, "truncated": true}))
            .stalled();
        rr.push(d);
        let d = rr.d("discover", None, Value::Null).not_run();
        rr.push(d);
        finish(r, rr, false, "answered", &mut runs);
    }

    // 5. the rest of the boundary, and abstention
    cases.push(
        Case::new(
            "rotate-db-password",
            &["ask_user", "no_applicable_tool"],
            &["edit_file"],
        )
        .note("secrets live in the vault, which no tool here reaches"),
    );
    for trial in 1..=4 {
        let (r, mut rr) = new_run(
            "rotate-db-password",
            trial,
            "Rotate the production database password.",
            "act",
            &mut n,
        );
        let sel = if trial == 2 {
            "ask_user"
        } else {
            "no_applicable_tool"
        };
        let d = rr.d("discover", Some(sel), json!({"reason": "Secrets are managed in the vault; no tool here can rotate them."})).ok().result(json!({"recorded": true}));
        rr.push(d);
        finish(r, rr, true, "asked_user", &mut runs);
    }
    let misc: [(&str, &str, &str); 9] = [
        ("representation", "src/mail/sender.py", ""),
        ("representation", "src/mail/templates.py", ""),
        ("semantics", "src/mail/smtp.py", ""),
        ("semantics", "src/search/ranker.py", ""),
        ("semantics", "src/api/v3/routes.py", ""),
        ("unclassified", "src/images/resize.py", ""),
        ("unclassified", "src/pdf/render.py", ""),
        ("hidden", "src/flags/rollout.py", ""),
        ("hidden", "src/flags/client.py", ""),
    ];
    for (i, (what, path, _)) in misc.iter().enumerate() {
        let task = format!("tidy-{}", path.replace(['/', '.'], "-"));
        let (r, mut rr) = new_run(
            &task,
            1,
            &format!("Have a look at {path} and tell me if anything is obviously wrong."),
            "inform",
            &mut n,
        );
        let d = match *what {
            "representation" => rr
                .d("discover", Some("read_file"), Value::Null)
                .raw(&format!("I'll open it: read_file(\"{path}\")"))
                .refused(
                    "call_in_text",
                    "The reply contains a call written as text; nothing was called.",
                ),
            "semantics" => rr
                .d("discover", Some("read_file"), json!({"path": path}))
                .refused(
                    "not_found",
                    &format!("No file {path}. find_file with a glob can locate it."),
                ),
            "unclassified" => rr
                .d("discover", Some("read_file"), json!({"path": path}))
                .refused(
                    "sandbox_io_quota",
                    "The sandbox has used its read quota for this minute.",
                ),
            _ => rr
                .d(
                    "discover",
                    Some("edit_file"),
                    json!({"path": path, "old": "TODO", "new": "DONE"}),
                )
                .refused(
                    "not_permitted",
                    "edit_file is not available in the discover phase.",
                ),
        };
        rr.push(d);
        let d = if *what == "semantics" {
            rr.d(
                "discover",
                Some("find_file"),
                json!({"glob": format!("**/{}", path.rsplit('/').next().unwrap())}),
            )
            .ok()
            .latency(40)
            .result(json!({"paths": []}))
            .stalled()
        } else {
            rr.d("discover", Some("read_file"), json!({"path": path}))
                .ok()
                .latency(30)
                .result(file_text(path))
                .advanced()
        };
        rr.push(d);
        let d = rr.d("discover", None, Value::Null).not_run();
        rr.push(d);
        let _ = i;
        finish(r, rr, *what != "semantics", "answered", &mut runs);
    }

    for (r, ds) in runs {
        set.file("runs.jsonl").push(Record::Run(r));
        set.file("runs.jsonl")
            .extend(ds.into_iter().map(Record::Decision));
    }
    set.file("cases.jsonl")
        .extend(cases.into_iter().map(Record::Case));

    let a = check::analyze(&set);
    let all = a.all();
    for r in check::RUNGS {
        assert!(
            all.iter().any(|d| d.rung == *r),
            "routing-ladder misses rung {r}"
        );
    }
    let cells = Analysis::confusions(&all);
    assert_eq!(
        (cells[0].0.clone(), cells[0].1.clone(), cells[0].2),
        (
            vec!["read_file".to_string()],
            Some("search_code".into()),
            38
        )
    );
    assert!(cells[1..].iter().all(|c| c.2 <= 3));
    let hidden: Vec<&Finding> = a
        .findings
        .iter()
        .filter(|f| f.kind == "hidden_proposal")
        .collect();
    assert_eq!(hidden.len(), 2);
    assert!(
        a.findings.iter().all(|f| matches!(
            f.kind,
            "hidden_proposal" | "unclassified_reason" | "schema_violation"
        )),
        "{:?}",
        a.findings
    );
    assert!(
        a.audit
            .iter()
            .all(|f| f.kind == "menu_changed" || f.kind == "repeated_call"),
        "{:?}",
        a.audit
    );
    set.readme = readme(&a);
    set
}
