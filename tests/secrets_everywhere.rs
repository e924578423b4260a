//! One masking pass on every way out: a trace holding one secret of each
//! kind (and one matching the configuration's `[redact]` pattern) in every
//! string field is imported, then every report in every format, `explain`
//! (text and json) of every run and the TUI's screens are read, and no
//! secret may show. The same outputs under `--no-redact` show every secret
//! somewhere, so the fixture does carry them to each output.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::*;
use rung::tui::harness::Harness;
use serde_json::{Value, json};

const NOW: &str = "2026-11-23T00:00:00Z";

/// (text put in every field, a piece of its secret that must not show).
/// One per built-in kind (`rung::redact::KINDS`), then the configured one.
const SECRETS: &[(&str, &str)] = &[
    ("sk-proj-4f9aQ2xLk81abcdEFGH", "4f9aQ2xLk81"),
    ("Bearer 0a1b2c3d4e5f6a7b8c9d", "0a1b2c3d4e5f"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNz"),
    ("AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EX"),
    ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c"),
    ("glpat-Zq8Yk2Lm4Np6Rt0Vw3Xy", "Zq8Yk2Lm4Np6"),
    ("hf_QwErTyUiOpAsDfGhJkLzXcVbNmQwErTy", "QwErTyUiOpAs"),
    ("npm_Mn8Bv7Cx6Zl5Kj4Hg3Fd2Sa1Qp0Wo9Ei8Ur7", "Mn8Bv7Cx6Zl5"),
    (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3",
    ),
    (
        "https://deploy:s3cr3t-pa55@git.example.com/r",
        "s3cr3t-pa55",
    ),
    (r#"{"password": "hunter2-Qx9"}"#, "hunter2-Qx9"),
    ("DB_PASSWORD=letmein-Zw8", "letmein-Zw8"),
    (
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "AbCdEfGhIjKl",
    ),
    ("sk_live_51H8abcdEFGH1234", "51H8abcdEFGH"),
    ("AIzaSyD-abcdefghijklmnopqrstuvwxyz12345", "SyD-abcdefgh"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKC",
    ),
    ("4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("cus_3Nw8Qz7Rt", "3Nw8Qz7Rt"),
];

const CONFIG: &str = "[redact]\npatterns = [\"cus_[A-Za-z0-9]{4,}\"]\n";

fn ids(i: usize, s: &str) -> [String; 6] {
    [
        format!("r{i} {s}"),
        format!("t{i}a {s}"),
        format!("t{i}b {s}"),
        format!("c{i} {s}"),
        format!("k{i} {s}"),
        format!("x{i} {s}"),
    ]
}

/// The records of kind `i`: a catalogue (defined twice, so its drift is a
/// finding), a run, four decisions (a refusal with the secret for reason,
/// a wrong tool, a call outside the menu, no call) and a case; the secret
/// is in every string. Then a second trial of the task starting with the
/// other tool (so `report consistency` lists it) and the same task on the
/// next kind's catalogue (so `rung compare` of the two versions pairs it).
fn records(i: usize) -> Vec<Value> {
    let s = SECRETS[i].0;
    let next = (i + 1) % SECRETS.len();
    let [run, a, b, cat, task, hidden] = ids(i, s);
    let [_, next_a, next_b, next_cat, ..] = ids(next, SECRETS[next].0);
    let ctrl = format!("ask {i} {s}");
    let tool = |name: &str, description: &str| {
        json!({"name": name, "family": format!("fam {s}"), "effect": "read_only",
               "description": description, "use_when": [s], "avoid_when": [s],
               "keywords": [s], "owner": s, "provenance": s, "approval": s,
               "input_schema": {"type": "object", "description": s,
                                "properties": {"q": {"type": "string", "description": s}}}})
    };
    let control = json!({"name": ctrl, "family": "control", "effect": "none",
                         "description": format!("Ask the user. {s}")});
    let catalogue = |d: &str| {
        json!({"type": "catalogue", "version": cat, "abstain": ctrl, "created_at": "2026-11-01T00:00:00Z",
               "tools": [tool(&a, &format!("Finds things {d}")), tool(&b, &format!("Other {s}")),
                         tool(&hidden, &format!("Hidden {s}")), control]})
    };
    let at = |n: usize| format!("2026-11-2{}T10:0{n}:00Z", i % 2);
    let decision_of = |run: &str, step: usize, selected: Value, status: &str, extra: Value| {
        let mut d = json!({
            "type": "decision", "run_id": run, "step": step, "at": at(step), "phase": format!("ph {s}"),
            "policy": {"allowed_families": [format!("fam {s}"), "control"]},
            "trusted_controls": [ctrl],
            "retrieval": {"k": 3, "selector": s, "query": s,
                          "candidates": [{"name": a, "score": 0.9}, {"name": b, "score": 0.5}]},
            "visible": [ctrl, a, b],
            "selected": selected, "call_id": format!("call {s}"),
            "arguments": {"q": s, "password": "pw-Kq3Zt9", "nested": {"api_key": "ak-Lm2Xv8"}},
            "outcome": {"status": status, "reason": format!("why {s}"), "message": format!("msg {s}")},
            "result": {"text": s, "error": {"message": s}},
            "raw": format!("raw {s}"), "text": format!("said {s}"),
        });
        for (k, v) in extra.as_object().unwrap() {
            d[k] = v.clone();
        }
        d
    };
    let decision = |step: usize, selected: Value, status: &str, extra: Value| {
        decision_of(&run, step, selected, status, extra)
    };
    let again = format!("{run} again");
    let moved = format!("{run} on {next_cat}");
    let other_run = |run_id: &str, trial: u32, catalogue: &str| {
        json!({"type": "run", "run_id": run_id, "task_id": task, "trial": trial,
               "goal": format!("goal {s}"), "model": format!("m {s}"), "catalogue": catalogue,
               "started_at": at(0), "success": true})
    };
    vec![
        catalogue(s),
        catalogue(&format!("{s} changed")),
        json!({"type": "run", "run_id": run, "task_id": task, "trial": 1, "goal": format!("goal {s}"),
               "intent": "act", "model": format!("m {s}"), "catalogue": cat, "selector": s,
               "started_at": at(0), "ended_at": at(9), "terminated": "answered", "success": false,
               "harm": false, "scope": s, "tags": {"suite": s, s: "v"}}),
        decision(1, json!(a), "refused", json!({})),
        decision(
            2,
            json!(b),
            "refused",
            json!({"expected": {"acceptable": [a], "forbidden": [b]}}),
        ),
        decision(3, json!(hidden), "error", json!({})),
        decision(4, Value::Null, "not_run", json!({"outcome": null})),
        json!({"type": "case", "task_id": task, "step": 1, "acceptable": [a, b],
               "forbidden": [hidden], "note": format!("note {s}")}),
        other_run(&again, 2, &cat),
        decision_of(&again, 1, json!(b), "ok", json!({})),
        other_run(&moved, 1, &next_cat),
        decision_of(
            &moved,
            1,
            json!(next_a),
            "ok",
            json!({"visible": [next_a, next_b], "trusted_controls": [],
                   "policy": {"allowed_families": [format!("fam {}", SECRETS[next].0)]}}),
        ),
        decision_of(
            &moved,
            2,
            json!(next_b),
            "ok",
            json!({"visible": [next_a, next_b], "trusted_controls": [],
                   "policy": {"allowed_families": [format!("fam {}", SECRETS[next].0)]}}),
        ),
    ]
}

fn fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let mut text = String::new();
    for i in 0..SECRETS.len() {
        for r in records(i) {
            text.push_str(&r.to_string());
            text.push('\n');
        }
    }
    let trace = write(dir, "secrets.jsonl", &text);
    let config = write(dir, "rung.toml", CONFIG);
    let db = dir.join("t.db");
    let r = rung(
        &db,
        &[
            "--config",
            config.to_str().unwrap(),
            "import",
            trace.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    (db, trace)
}

fn run_at(db: &Path, no_redact: bool, args: &[&str]) -> String {
    let mut c = bin();
    c.env("RUNG_NOW", NOW).arg("--db").arg(db);
    if no_redact {
        c.arg("--no-redact");
    }
    let r: Run = c.args(args).output().unwrap().into();
    assert_eq!(r.code, 0, "rung {args:?}: {}", r.stderr);
    r.stdout + &r.stderr
}

/// Every command-line output: (what, text).
fn cli_outputs(db: &Path, no_redact: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for kind in [
        "ladder",
        "metrics",
        "refusals",
        "confusions",
        "tools",
        "runs",
        "findings",
        "budget",
        "consistency",
    ] {
        for format in ["table", "markdown", "csv", "json"] {
            out.push((
                format!("report {kind} --format {format}"),
                run_at(db, no_redact, &["report", kind, "--format", format]),
            ));
        }
    }
    // Every finding with its detail (the summary is the default but in json).
    for format in ["table", "markdown", "csv", "json"] {
        out.push((
            format!("report findings --all --format {format}"),
            run_at(
                db,
                no_redact,
                &["report", "findings", "--all", "--format", format],
            ),
        ));
    }
    out.push((
        "report findings --summary --format json".into(),
        run_at(
            db,
            no_redact,
            &["report", "findings", "--summary", "--format", "json"],
        ),
    ));
    // Two catalogue versions side by side: each kind's against the next's.
    let n = SECRETS.len();
    for i in 0..n {
        let a = ids(i, SECRETS[i].0)[3].clone();
        let b = ids((i + 1) % n, SECRETS[(i + 1) % n].0)[3].clone();
        for format in ["table", "markdown", "csv", "json"] {
            out.push((
                format!("diff {i} --format {format}"),
                run_at(db, no_redact, &["diff", &a, &b, "--format", format]),
            ));
            out.push((
                format!("compare {i} --format {format}"),
                run_at(db, no_redact, &["compare", &a, &b, "--format", format]),
            ));
        }
    }
    for (i, (s, _)) in SECRETS.iter().enumerate() {
        let [run, a, ..] = ids(i, s);
        for format in ["text", "json"] {
            out.push((
                format!("explain run {i} --format {format}"),
                run_at(db, no_redact, &["explain", &run, "--format", format]),
            ));
            out.push((
                format!("explain run {i} step 1 --tool --format {format}"),
                run_at(
                    db,
                    no_redact,
                    &["explain", &run, "1", "--tool", &a, "--format", format],
                ),
            ));
        }
    }
    out
}

/// The TUI's screens, as text: every screen, every run's timeline and
/// every decision's detail pane (top and bottom), every tool's audit and
/// diff, the Compare screen and a cell's attempts there.
fn tui_outputs(db: &Path, no_redact: bool) -> Vec<(String, String)> {
    let now = rung::model::Timestamp::parse(NOW).unwrap().micros();
    let mut h = Harness::open(db, now, no_redact, 250, 100).unwrap();
    h.draw();
    h.start();
    h.settle_draw();
    let mut out = Vec::new();
    let mut shot = |h: &mut Harness, what: String| {
        h.settle_draw();
        out.push((what, h.text()));
    };
    shot(&mut h, "ladder".into());
    for (key, what) in [
        ("4", "refusals"),
        ("Enter", "refusal decisions"),
        ("5", "confusions"),
        ("Enter", "confusion decisions"),
        ("5 m", "matrix"),
        ("1 j j j j j j j j Enter", "rung decisions"),
    ] {
        h.keys(key);
        shot(&mut h, what.into());
    }
    // Findings: by kind, a kind's list with the selected one's detail, the
    // run opened at it.
    for (key, what) in [
        ("7", "findings"),
        ("Enter", "findings of a kind"),
        ("Enter", "finding's run"),
    ] {
        h.keys(key);
        shot(&mut h, what.into());
    }
    // Compare: the oldest against the newest, then c1 added (it ran c0's
    // task), and the base's cell opened on its attempts.
    for (key, what) in [
        ("8", "compare"),
        ("h j Space l", "compare with c1"),
        ("Enter", "compare cell"),
    ] {
        h.keys(key);
        shot(&mut h, what.into());
    }
    h.keys("6");
    shot(&mut h, "tools".into());
    let tools = h.app.tool_rows().len();
    for t in 0..tools {
        h.keys("Enter");
        shot(&mut h, format!("tool {t}"));
        h.keys("G");
        shot(&mut h, format!("tool {t} bottom"));
        // The tool against the nearest other version.
        h.keys("d");
        shot(&mut h, format!("tool {t} diff"));
        h.keys("Esc Esc j");
    }
    h.keys("2");
    shot(&mut h, "runs".into());
    for r in 0..SECRETS.len() {
        h.keys("Enter");
        shot(&mut h, format!("run {r}"));
        for d in 0..4 {
            h.keys("l");
            shot(&mut h, format!("run {r} decision {d}"));
            h.keys("G");
            shot(&mut h, format!("run {r} decision {d} bottom"));
            h.keys("h j");
        }
        h.keys("Esc j");
    }
    out
}

/// The secrets (by index) that show in `text`.
fn shown(text: &str) -> BTreeSet<usize> {
    let text = text.replace("\\n", "\n");
    SECRETS
        .iter()
        .enumerate()
        .filter(|(_, (_, tell))| text.contains(tell))
        .map(|(i, _)| i)
        .collect()
}

/// No output shows a secret; `--no-redact` shows each secret in `family`.
fn check(family: &str, masked: &[(String, String)], unmasked: &[(String, String)]) {
    for (what, text) in masked {
        let leaked = shown(text);
        assert!(
            leaked.is_empty(),
            "{family}: {what} shows {:?}:\n{text}",
            leaked.iter().map(|&i| SECRETS[i].1).collect::<Vec<_>>()
        );
        for tell in ["pw-Kq3Zt9", "ak-Lm2Xv8"] {
            assert!(!text.contains(tell), "{family}: {what} shows {tell}");
        }
    }
    let seen: BTreeSet<usize> = unmasked.iter().flat_map(|(_, t)| shown(t)).collect();
    let missing: Vec<&str> = (0..SECRETS.len())
        .filter(|i| !seen.contains(i))
        .map(|i| SECRETS[i].1)
        .collect();
    assert!(
        missing.is_empty(),
        "{family}: with --no-redact these never show (the test would not see them leak): {missing:?}"
    );
}

#[test]
fn no_report_format_or_explain_shows_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = fixture(dir.path());
    let masked = cli_outputs(&db, false);
    let unmasked = cli_outputs(&db, true);
    check("command line", &masked, &unmasked);
    // Each report×format shows every secret without masking: each output
    // is covered, not just the outputs together.
    for (what, text) in &unmasked {
        let numbers_only = ["report metrics", "report ladder"];
        if ["report", "diff", "compare"]
            .iter()
            .any(|w| what.starts_with(w))
            && !numbers_only.iter().any(|n| what.starts_with(n))
        {
            assert!(!shown(text).is_empty(), "{what} carries no secret:\n{text}");
        }
    }
}

#[test]
fn no_tui_screen_shows_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = fixture(dir.path());
    let masked = tui_outputs(&db, false);
    let unmasked = tui_outputs(&db, true);
    check("tui", &masked, &unmasked);
}
