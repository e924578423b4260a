//! The bundled sample corpus (`sample-traces/`): the committed files are
//! what `rung-samplegen` writes today, and the built `rung` reproduces the
//! numbers each sample's README promises, read from its json output: the
//! explicit stories of issue 3 first, then every ladder, metrics and
//! refusals json block and every ladder, refusal, confusion, findings and
//! runs table of the READMEs. Also the spec's worked example
//! (`../shared/spec/examples/`), when the shared folder is beside the
//! project.

mod common;
mod report_util;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use report_util::{Db, assert_json_eq, json_diff, root};
use serde_json::{Value, json};

const REGENERATE: &str = "cargo run -p rung-samplegen -- sample-traces";

// ---- freshness ------------------------------------------------------------

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(base).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn committed_samples_are_what_the_generator_writes() {
    let tmp = tempfile::tempdir().unwrap();
    rung_samplegen::generate(tmp.path()).expect("the generator writes");
    let fresh = files(tmp.path());
    let committed = files(&root().join("sample-traces"));
    let mut problems = Vec::new();
    for (path, bytes) in &fresh {
        match committed.get(path) {
            None => problems.push(format!("missing: sample-traces/{}", path.display())),
            Some(c) if c != bytes => problems.push(format!(
                "differs: sample-traces/{} ({} bytes committed, {} generated)",
                path.display(),
                c.len(),
                bytes.len()
            )),
            Some(_) => {}
        }
    }
    for path in committed.keys().filter(|p| !fresh.contains_key(*p)) {
        problems.push(format!(
            "extra (the generator does not write it): sample-traces/{}",
            path.display()
        ));
    }
    assert!(
        problems.is_empty(),
        "sample-traces/ is out of date with rung-samplegen:\n  {}\nRegenerate it with `{REGENERATE}` and commit the result.",
        problems.join("\n  ")
    );
}

// ---- importing a sample -----------------------------------------------------

struct Sample {
    name: &'static str,
    db: Db,
    readme: String,
    /// The `RUNG_NOW` the README names.
    now: String,
}

fn sample(name: &'static str) -> Sample {
    let dir = root().join("sample-traces").join(name);
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let at = readme
        .find("RUNG_NOW=")
        .unwrap_or_else(|| panic!("{name}/README.md names no RUNG_NOW"))
        + "RUNG_NOW=".len();
    let now: String = readme[at..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '`' && *c != ',')
        .collect();
    Sample {
        name,
        db: Db::import(&[&dir]),
        readme,
        now,
    }
}

impl Sample {
    fn json(&self, args: &[&str]) -> Value {
        self.db.json(&self.now, args)
    }
}

fn successes(runs: &Value) -> (usize, usize) {
    let runs = runs["runs"].as_array().unwrap();
    let ok = runs.iter().filter(|r| r["success"] == true).count();
    (ok, runs.len())
}

// ---- the stories of issue 3 ------------------------------------------------

#[test]
fn brightdesk_success_per_tool_set() {
    let s = sample("brightdesk-billing");
    for (catalogue, ok) in [
        ("billing-A", 6),
        ("billing-B", 11),
        ("billing-C", 25),
        ("billing-C2", 22),
    ] {
        let runs = s.json(&["report", "runs", "--catalogue", catalogue]);
        assert_eq!(successes(&runs), (ok, 36), "{catalogue}");
        // Each task has 3 runs, so pass^1 is the pass rate.
        let m = s.json(&["report", "metrics", "--catalogue", catalogue]);
        assert_eq!(m["pass_hat_k"]["1"]["tasks"], 12, "{catalogue}");
        let p1 = m["pass_hat_k"]["1"]["value"].as_f64().unwrap();
        assert!((p1 - ok as f64 / 36.0).abs() < 1e-12, "{catalogue}: {p1}");
    }
    check_readme(&s);
}

/// The billing chapter's audit findings, as rung stores them: the two
/// Pinecrest runs on C that cancelled `sub_31` without a lookup carry both
/// `unsourced_id` and `id_from_description`; the Northwind runs that listed
/// `sub_31` first carry neither; B's announced lookup and its call written
/// as text are `announced_no_call`.
#[test]
fn brightdesk_audit_findings() {
    let s = sample("brightdesk-billing");
    let all = s.json(&["report", "findings"]);
    let of = |kind: &str, run: &str| -> Vec<(Value, Value)> {
        all["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == kind && f["run_id"] == run)
            .map(|f| (f["step"].clone(), f["tool"].clone()))
            .collect()
    };
    for run in ["bd-C-10-1", "bd-C-10-2"] {
        for kind in ["unsourced_id", "id_from_description"] {
            assert_eq!(
                of(kind, run),
                vec![(json!(1), json!("cancel_subscription"))],
                "{kind} {run}"
            );
        }
    }
    let detail = |kind: &str, run: &str| -> String {
        all["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["kind"] == kind && f["run_id"] == run)
            .unwrap()["detail"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        detail("unsourced_id", "bd-C-10-1"),
        "cancel_subscription (mutating) was called with an identifier that no earlier result of the run returned and neither its goal nor its scope contains: subscription_id = \"sub_31\" (never seen earlier in the run); executed (ok)"
    );
    assert_eq!(
        detail("id_from_description", "bd-C-10-2"),
        "subscription_id = \"sub_31\" appears in the description of cancel_subscription (catalogue billing-C): the model copied an example from a tool's documents instead of looking the id up"
    );
    // The Northwind cancels on C and C2 looked sub_31 up first.
    for set in ["C", "C2"] {
        for (task, n) in [("01", 3), ("12", 3)] {
            for t in 1..=n {
                let run = format!("bd-{set}-{task}-{t}");
                assert_eq!(of("unsourced_id", &run), vec![], "{run}");
                assert_eq!(of("id_from_description", &run), vec![], "{run}");
            }
        }
    }
    assert_eq!(
        of("announced_no_call", "bd-B-03-1"),
        vec![(json!(1), json!(null))]
    );
    assert_eq!(
        of("announced_no_call", "bd-B-03-2"),
        vec![(json!(1), json!("search_customers"))]
    );
    assert!(
        detail("announced_no_call", "bd-B-03-2").starts_with(
            "the answer writes a call out as text: \"{\\\"type\\\": \\\"search_customers\\\""
        ),
        "{}",
        detail("announced_no_call", "bd-B-03-2")
    );
    // The seeds' figures do not move.
    brightdesk_successes(&s);
}

fn brightdesk_successes(s: &Sample) {
    for (catalogue, ok) in [
        ("billing-A", 6),
        ("billing-B", 11),
        ("billing-C", 25),
        ("billing-C2", 22),
    ] {
        let runs = s.json(&["report", "runs", "--catalogue", catalogue]);
        assert_eq!(successes(&runs), (ok, 36), "{catalogue}");
    }
}

#[test]
fn reference_agent_first_calls_recovery_and_confusions() {
    let s = sample("reference-agent");
    let m = s.json(&["report", "metrics", "--catalogue", "menu-42"]);
    assert_json_eq(
        &m["first_call_accuracy"],
        &json!({"value": 0.9025, "numerator": 1083, "denominator": 1200}),
    );
    assert_json_eq(
        &m["recovery_within_3"],
        &json!({"value": 79.0 / 117.0, "numerator": 79, "denominator": 117}),
    );
    let c = s.json(&["report", "confusions", "--catalogue", "menu-42"]);
    assert_eq!(c["selection_failures"], 117);
    assert_json_eq(
        &json!([c["cells"][0], c["cells"][1]]),
        &json!([
            {"acceptable": ["search_sharepoint"], "selected": "search_confluence", "count": 72, "share": 72.0 / 117.0},
            {"acceptable": ["get_incident"], "selected": "get_ticket", "count": 31, "share": 31.0 / 117.0}
        ]),
    );
    // The top two cells: (72 + 31) / 117 = 88.03%.
    let table =
        s.db.out(&s.now, &["report", "confusions", "--catalogue", "menu-42"]);
    assert!(
        table.contains("The top two cells explain 103 of 117 selection failures (88.0%)."),
        "{table}"
    );
    // The merged menu.
    let m = s.json(&["report", "metrics", "--catalogue", "menu-43"]);
    assert_json_eq(
        &m["first_call_accuracy"],
        &json!({"value": 0.965, "numerator": 1158, "denominator": 1200}),
    );
    check_readme(&s);
}

#[test]
fn atlas_weekly_refusals() {
    let s = sample("atlas-chains");
    let row = |reason: &str, stage: &str, count: u64, runs: u64, previous: u64| json!({"reason": reason, "stage": stage, "count": count, "runs": runs, "previous": previous});
    // The default window is the latest week; insufficient_scope is gone.
    assert_json_eq(
        &s.json(&["report", "refusals"]),
        &json!({
            "window": {"since": "2026-11-16T00:00:00Z", "until": "2026-11-23T00:00:00Z"},
            "undated": 0,
            "rows": [
                row("outside_intent", "authorization", 41, 37, 29),
                row("existing_ticket", "precondition", 18, 17, 22),
                row("scope_drift", "semantics", 6, 6, 5),
                row("precondition", "precondition", 4, 4, 7),
                row("insufficient_scope", "authorization", 0, 0, 3),
            ]
        }),
    );
    // The weekly review document: title with the window, one-line summary.
    let md =
        s.db.out(&s.now, &["report", "refusals", "--format", "markdown"]);
    let head: Vec<&str> = md.lines().take(3).collect();
    assert_eq!(
        head,
        [
            "## Refusals by reason, 2026-11-16T00:00:00Z to 2026-11-23T00:00:00Z",
            "",
            "69 refusals in 64 runs (previous window: 66); biggest mover: outside_intent +12 (29 → 41).",
        ]
    );
    check_readme(&s);
}

#[test]
fn routing_ladder_read_file_search_code_cell() {
    let s = sample("routing-ladder");
    let c = s.json(&["report", "confusions"]);
    assert_json_eq(
        &c["cells"][0],
        &json!({"acceptable": ["read_file"], "selected": "search_code", "count": 38, "share": 38.0 / 41.0}),
    );
    check_readme(&s);
}

#[test]
fn ladder_tour_every_rung_and_every_finding() {
    let s = sample("ladder-tour");
    let l = s.json(&["report", "ladder"]);
    // The README's ladder: one decision on each of the twelve failing rungs,
    // ten unlabelled and six passed.
    assert_json_eq(
        &l,
        &json!({"decisions": 28, "labelled": 14, "rungs": {
            "coverage": 1, "exposure": 1, "discovery": 1, "selection": 1,
            "representation": 1, "schema": 1, "semantics": 1, "authorization": 1,
            "precondition": 1, "unclassified": 1, "execution": 1, "progress": 1,
            "unlabelled": 10, "passed": 6
        }}),
    );
    for (rung, n) in l["rungs"].as_object().unwrap() {
        assert!(n.as_u64().unwrap() > 0, "no decision on {rung}");
    }
    assert_eq!(l["rungs"].as_object().unwrap().len(), 14);
    let f = s.json(&["report", "findings"]);
    let mut kinds: Vec<&str> = f["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            "announced_no_call",
            "catalogue_conflict",
            "control_impostor",
            "description_drift",
            "exposure_mismatch",
            "hidden_proposal",
            "id_from_description",
            "invalid_control",
            "label_conflict",
            "menu_changed",
            "repeated_call",
            "schema_violation",
            "unclassified_reason",
            "unsourced_id",
            "write_under_inform",
        ]
    );
    // The summary counts the same findings by kind and tool.
    let summary = s.json(&["report", "findings", "--summary"]);
    assert_eq!(summary["total"], f["findings"].as_array().unwrap().len());
    check_readme(&s);
}

#[test]
fn operations_cases_numbers() {
    check_readme(&sample("operations-cases"));
}

/// The README's first command imports the whole folder at once: the sets
/// do not collide, so the totals are the sums of the parts.
#[test]
fn the_whole_folder_imports_as_one() {
    let all = Db::import(&[&root().join("sample-traces")]);
    let now = "2026-12-31T00:00:00Z";
    let mut sum = json!(null);
    let mut findings = 0;
    for name in [
        "ladder-tour",
        "brightdesk-billing",
        "reference-agent",
        "atlas-chains",
        "routing-ladder",
        "operations-cases",
    ] {
        let one = Db::import(&[&root().join("sample-traces").join(name)]);
        let l = one.json(now, &["report", "ladder"]);
        sum = if sum.is_null() { l } else { add(&sum, &l) };
        findings += one.json(now, &["report", "findings"])["findings"]
            .as_array()
            .unwrap()
            .len();
    }
    assert_json_eq(&all.json(now, &["report", "ladder"]), &sum);
    // Every table of the whole corpus fits in 80 columns.
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
        let out = all.out("2026-11-23T00:00:00Z", &["report", kind]);
        for line in out.lines() {
            assert!(
                line.chars().count() <= 80,
                "report {kind}: wider than 80 columns:\n{line}"
            );
        }
    }
    assert_eq!(
        all.json(now, &["report", "findings"])["findings"]
            .as_array()
            .unwrap()
            .len(),
        findings
    );
}

/// Sums two json objects of counts, key by key.
fn add(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            Value::Object(x.iter().map(|(k, v)| (k.clone(), add(v, &y[k]))).collect())
        }
        _ => json!(a.as_u64().unwrap() + b.as_u64().unwrap()),
    }
}

// ---- the READMEs' numbers --------------------------------------------------

/// The README walk is not vacuous: a wrong number in any kind of block
/// fails it.
#[test]
fn the_readme_check_catches_a_wrong_number() {
    let mut s = sample("ladder-tour");
    let good = s.readme.clone();
    for (from, to) in [
        (r#""passed":6"#, r#""passed":7"#),
        ("| passed | 6 |", "| passed | 5 |"),
        ("| unlabelled | 10 |", "| unlabelled | 11 |"),
        (
            "| read_file | search_code | 1 | 1.0000 |",
            "| read_file | search_code | 1 | 0.5000 |",
        ),
        (
            "| not_found | semantics | 1 | 1 | 0 |",
            "| not_found | semantics | 1 | 1 | 1 |",
        ),
        (
            "| tour-05 | refund-no-id | null | true |",
            "| tour-05 | refund-no-id | progress | true |",
        ),
        (
            "| tour-04/5 | 4 | authorization |",
            "| tour-04/5 | 4 | semantics |",
        ),
        (
            "| label_conflict | tour-1 | open-token | tour-01 | 2 | — |",
            "| label_conflict | tour-1 | open-token | tour-01 | 3 | — |",
        ),
        (
            "| menu_changed | — | 3 | 3 |",
            "| menu_changed | — | 4 | 3 |",
        ),
        (
            "| write_under_inform | comment_ticket | 1 | 1 |",
            "| write_under_inform | comment_ticket | 1 | 2 |",
        ),
    ] {
        assert!(
            good.contains(from),
            "the ladder-tour README no longer has {from:?}"
        );
        s.readme = good.replace(from, to);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_readme(&s)));
        assert!(r.is_err(), "changing {from:?} went unnoticed");
    }
}

/// Report options from a README paragraph: `--catalogue X`, `--since A
/// --until B`.
fn flag(text: &str, name: &str) -> Option<String> {
    let at = text.find(&format!("--{name} "))? + name.len() + 3;
    Some(
        text[at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !"`)".contains(*c))
            .collect(),
    )
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim().trim_start_matches('|').trim_end_matches('|');
    t.split('|').map(|c| c.trim().to_string()).collect()
}

/// Walks a sample's README and checks every json block (ladder, metrics,
/// refusals) and every table rung can produce against the built binary.
fn check_readme(s: &Sample) {
    let lines: Vec<&str> = s.readme.lines().collect();
    let mut heading_catalogue: Option<String> = None;
    let mut para = String::new();
    let mut failures: Option<u64> = None;
    let mut checked = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = format!("{}/README.md:{}", s.name, i + 1);
        if line.starts_with('#') {
            heading_catalogue = flag(line, "catalogue");
            para.clear();
            failures = None;
            i += 1;
        } else if line.starts_with("```") {
            let lang = line.trim_start_matches('`').to_string();
            let end = (i + 1..lines.len())
                .find(|&j| lines[j].starts_with("```"))
                .unwrap();
            if lang == "json" {
                let want: Value = serde_json::from_str(&lines[i + 1..end].join("\n"))
                    .unwrap_or_else(|e| panic!("{at}: bad json: {e}"));
                check_json_block(s, &at, &para, heading_catalogue.as_deref(), &want);
                checked += 1;
            }
            i = end + 1;
        } else if line.starts_with('|') {
            let end = (i..lines.len())
                .find(|&j| !lines[j].starts_with('|'))
                .unwrap_or(lines.len());
            let header = cells(line);
            let rows: Vec<Vec<String>> = lines[i + 2..end].iter().map(|l| cells(l)).collect();
            if check_table(
                s,
                &at,
                &para,
                heading_catalogue.as_deref(),
                failures,
                &header,
                &rows,
            ) {
                checked += 1;
            }
            i = end;
        } else if let Some(n) = line.strip_prefix("selection_failures: ") {
            failures = Some(n.trim().parse().unwrap());
            i += 1;
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            // A paragraph: it names the command of the blocks after it.
            let end = (i..lines.len())
                .find(|&j| {
                    lines[j].trim().is_empty()
                        || lines[j].starts_with(['#', '|'])
                        || lines[j].starts_with("```")
                })
                .unwrap_or(lines.len())
                .max(i + 1);
            para = lines[i..end].join(" ");
            i = end;
        }
    }
    assert!(checked > 0, "{}: nothing checked in the README", s.name);
    println!("{}: checked {checked} blocks of README.md", s.name);
}

/// The report arguments a README block stands for.
fn args_for(kind: &str, para: &str, heading_catalogue: Option<&str>) -> Vec<String> {
    let mut a = vec!["report".to_string(), kind.to_string()];
    // Headings name a catalogue for the per-tool-set ladders, metrics and
    // confusions; a paragraph's own flags always apply.
    let catalogue = flag(para, "catalogue").or_else(|| {
        ["ladder", "metrics", "confusions"]
            .contains(&kind)
            .then(|| heading_catalogue.map(str::to_string))
            .flatten()
    });
    if let Some(c) = catalogue {
        a.extend(["--catalogue".to_string(), c]);
    }
    if let (Some(since), Some(until)) = (flag(para, "since"), flag(para, "until")) {
        a.extend(["--since".to_string(), since, "--until".to_string(), until]);
    }
    a
}

fn report(s: &Sample, args: &[String]) -> Value {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    s.json(&a)
}

fn check_json_block(s: &Sample, at: &str, para: &str, heading: Option<&str>, want: &Value) {
    let kind = if para.contains("rung report ladder --format json") {
        "ladder"
    } else if para.starts_with("As `--format json`") {
        "metrics"
    } else if para.contains("rung report refusals --format json") {
        "refusals"
    } else {
        panic!("{at}: a json block after {para:?}: teach tests/samples.rs which report it is");
    };
    let args = args_for(kind, para, heading);
    let got = report(s, &args);
    if let Some(diff) = json_diff("$", &got, want) {
        panic!(
            "{at}: `rung {}` differs from the README at {diff}",
            args.join(" ")
        );
    }
}

/// Checks one README table; false when it is not one rung prints.
fn check_table(
    s: &Sample,
    at: &str,
    para: &str,
    heading: Option<&str>,
    failures: Option<u64>,
    header: &[String],
    rows: &[Vec<String>],
) -> bool {
    let h: Vec<&str> = header.iter().map(String::as_str).collect();
    let opt = |c: &str| -> Value {
        if c == "—" || c == "null" {
            Value::Null
        } else {
            json!(c)
        }
    };
    let num = |c: &str| -> u64 {
        c.parse()
            .unwrap_or_else(|_| panic!("{at}: {c:?} is not a count"))
    };
    match h[..] {
        ["rung", "decisions"] => {
            let args = args_for("ladder", para, heading);
            let got = report(s, &args);
            assert_eq!(rows.len(), 14, "{at}: every rung");
            for r in rows {
                assert_eq!(
                    got["rungs"][&r[0]],
                    num(&r[1]),
                    "{at}: `rung {}`: {}",
                    args.join(" "),
                    r[0]
                );
            }
        }
        ["reason", "stage", "count", "runs", "previous"] => {
            let args = args_for("refusals", para, heading);
            let got = report(s, &args);
            let want: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({"reason": r[0], "stage": r[1], "count": num(&r[2]),
                           "runs": num(&r[3]), "previous": num(&r[4])})
                })
                .collect();
            assert_json_eq(&got["rows"], &Value::Array(want));
        }
        ["acceptable", "selected", "count", "share"] => {
            let args = args_for("confusions", para, heading);
            let got = report(s, &args);
            if let Some(n) = failures {
                assert_eq!(
                    got["selection_failures"],
                    n,
                    "{at}: `rung {}`",
                    args.join(" ")
                );
            }
            let shown: Vec<Vec<String>> = got["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    let acc: Vec<&str> = c["acceptable"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_str().unwrap())
                        .collect();
                    vec![
                        acc.join(", "),
                        c["selected"].as_str().unwrap_or("(no call)").to_string(),
                        c["count"].to_string(),
                        format!("{:.4}", c["share"].as_f64().unwrap()),
                    ]
                })
                .collect();
            assert_eq!(shown, rows, "{at}: `rung {}`", args.join(" "));
        }
        ["kind", "catalogue", "task", "run", "step", "tool"] => {
            let args = args_for("findings", para, heading);
            let got = report(s, &args);
            let want: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({"kind": r[0], "catalogue": opt(&r[1]), "task_id": opt(&r[2]),
                           "run_id": opt(&r[3]),
                           "step": if r[4] == "—" { Value::Null } else { json!(num(&r[4])) },
                           "tool": opt(&r[5])})
                })
                .collect();
            let shown: Vec<Value> = got["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    f.as_object_mut().unwrap().remove("detail");
                    f
                })
                .collect();
            assert_json_eq(&Value::Array(shown), &Value::Array(want));
        }
        ["kind", "tool", "findings", "runs"] => {
            let mut args = args_for("findings", para, heading);
            args.push("--summary".to_string());
            let got = report(s, &args);
            let want: Vec<Value> = rows
                .iter()
                .map(|r| {
                    json!({"kind": r[0], "tool": opt(&r[1]), "findings": num(&r[2]),
                           "runs": num(&r[3])})
                })
                .collect();
            assert_json_eq(&got["summary"], &Value::Array(want));
            let total: u64 = rows.iter().map(|r| num(&r[2])).sum();
            assert_eq!(got["total"], total, "{at}: `rung {}`", args.join(" "));
        }
        ["run", "task", "first_failed_rung", "success"] => {
            let args = args_for("runs", para, heading);
            let got = report(s, &args);
            let shown: Vec<Vec<String>> = got["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    vec![
                        r["run_id"].as_str().unwrap().to_string(),
                        r["task_id"].as_str().unwrap().to_string(),
                        r["first_failed_rung"]
                            .as_str()
                            .unwrap_or("null")
                            .to_string(),
                        r["success"].to_string(),
                    ]
                })
                .collect();
            assert_eq!(shown, rows, "{at}: `rung {}`", args.join(" "));
        }
        ["run/step", "turn", "rung", "why"] => {
            // Every decision's rung, as `rung explain` walks it.
            let mut by_run: BTreeMap<&str, Value> = BTreeMap::new();
            for r in rows {
                let (run, step) = r[0].split_once('/').unwrap();
                let e = by_run
                    .entry(run)
                    .or_insert_with(|| s.json(&["explain", run]));
                let d = e["decisions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|d| d["step"] == num(step))
                    .unwrap_or_else(|| panic!("{at}: no decision {}", r[0]));
                assert_eq!(d["rung"], r[2].as_str(), "{at}: {}", r[0]);
            }
        }
        [
            "tool set",
            "catalogue",
            "runs passed",
            "`pass_hat_k.1`",
            "`pass_hat_k.3`",
            "harm runs",
            "missed calls",
        ] => {
            for r in rows {
                let catalogue = r[1].trim_matches('`');
                let runs = s.json(&["report", "runs", "--catalogue", catalogue]);
                let (ok, n) = successes(&runs);
                assert_eq!(format!("{ok}/{n}"), r[2], "{at}: {catalogue}");
                let harm = runs["runs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|r| r["harm"] == true)
                    .count();
                assert_eq!(harm.to_string(), r[5], "{at}: {catalogue} harm");
                let m = s.json(&["report", "metrics", "--catalogue", catalogue]);
                let p = &m["pass_hat_k"];
                assert_eq!(
                    format!(
                        "{:.4} ({} tasks)",
                        p["1"]["value"].as_f64().unwrap(),
                        p["1"]["tasks"]
                    ),
                    r[3],
                    "{at}: {catalogue}"
                );
                assert_eq!(
                    format!("{:.4}", p["3"]["value"].as_f64().unwrap()),
                    r[4],
                    "{at}: {catalogue}"
                );
            }
        }
        ["#", "task_id", "A", "B", "C", "C2"] => {
            for (col, set) in ["A", "B", "C", "C2"].iter().enumerate() {
                let catalogue = format!("billing-{set}");
                let runs = s.json(&["report", "runs", "--catalogue", &catalogue]);
                for r in rows {
                    let task = r[1].trim_matches('`');
                    let of_task: Vec<&Value> = runs["runs"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|x| x["task_id"] == task)
                        .collect();
                    let ok = of_task.iter().filter(|x| x["success"] == true).count();
                    assert_eq!(
                        format!("{ok}/{}", of_task.len()),
                        r[2 + col],
                        "{at}: {task} on {catalogue}"
                    );
                }
            }
        }
        ["menu", "catalogue", "how it differs", "right of 72"] => {
            // `rung compare BASE CANDIDATE... --cell CELL`, from the paragraph.
            let at_cmd = para.find("rung compare ").unwrap() + "rung ".len();
            let cmd: Vec<String> = para[at_cmd..]
                .split('`')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|w| w.trim_matches('\'').to_string())
                .collect();
            let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
            let got = s.json(&args);
            let cell = &got["cells"][0];
            assert_eq!(cell["attempts"], 72, "{at}");
            let shown: Vec<Vec<String>> = std::iter::once(vec![
                got["base"].as_str().unwrap().to_string(),
                "the incumbent".to_string(),
                "0".to_string(),
            ])
            .chain(cell["candidates"].as_array().unwrap().iter().map(|c| {
                vec![
                    c["catalogue"].as_str().unwrap().to_string(),
                    c["change"].as_str().unwrap().to_string(),
                    c["right"].to_string(),
                ]
            }))
            .collect();
            let want: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r[1].trim_matches('`').to_string(),
                        r[2].clone(),
                        r[3].clone(),
                    ]
                })
                .collect();
            assert_eq!(shown, want, "{at}: `rung {}`", cmd.join(" "));
            assert_eq!(got["verdict"]["repair"], "merge", "{at}");
        }
        [
            "catalogue",
            "tools",
            "runs",
            "tokens/turn p50",
            "tokens/turn p95",
            "run turns p50",
            "run turns p95",
            "flat tokens/turn",
            "saved at p50",
        ] => {
            let got = s.json(&["report", "budget"]);
            for r in rows {
                let version = r[0].trim_matches('`');
                let b = got["catalogues"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["catalogue"] == version)
                    .unwrap_or_else(|| panic!("{at}: no budget for {version}"));
                let shown = vec![
                    r[0].clone(),
                    b["tools"].to_string(),
                    b["runs"].to_string(),
                    b["tokens_per_turn"]["p50"].to_string(),
                    b["tokens_per_turn"]["p95"].to_string(),
                    b["run_turns"]["p50"].to_string(),
                    b["run_turns"]["p95"].to_string(),
                    b["flat_tokens_per_turn"].to_string(),
                    format!(
                        "{:.2}%",
                        100.0 * b["per_run_p50"]["saved"].as_f64().unwrap()
                    ),
                ];
                assert_eq!(&shown, r, "{at}: `rung report budget`");
                assert_eq!(b["menu_changed_runs"], 0, "{at}: {version}");
            }
        }
        // Tables of prose, and the metric tables whose json follows them.
        _ => return false,
    }
    true
}

// ---- the spec's worked example ------------------------------------------------

#[test]
fn worked_example_matches_the_spec() {
    let Some(shared) = common::shared() else {
        println!("SKIPPED: ../shared/spec/examples is not beside the project");
        return;
    };
    let ex = shared.join("spec/examples");
    if !ex.join("worked.jsonl").is_file() {
        println!("SKIPPED: {} has no worked.jsonl", ex.display());
        return;
    }
    let db = Db::import(&[&ex.join("worked.jsonl")]);
    let now = "2026-11-23T00:00:00Z";
    let expected = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(ex.join(name)).unwrap()).unwrap()
    };
    assert_json_eq(
        &db.json(now, &["report", "ladder"]),
        &expected("expected-ladder.json"),
    );
    assert_json_eq(
        &db.json(now, &["report", "confusions"]),
        &expected("expected-confusions.json"),
    );
    // Format 1.1 adds `as_expected` to every run: null, as no case of the
    // worked example sets expectations.
    let mut want = expected("expected-runs.json");
    for run in want["runs"].as_array_mut().unwrap() {
        run["as_expected"] = Value::Null;
    }
    assert_json_eq(&db.json(now, &["report", "runs"]), &want);
    // The expected metrics leave definition_tokens out; by ladder.md:
    // canonical {description, input_schema, name} in characters / 4 rounded
    // up: read_file 156 → 39, search_code 158 → 40, edit_file 80 → 20,
    // run_tests 80 → 20, deploy_release 90 → 23, ask_user 78 → 20,
    // no_applicable_tool 98 → 25. w1/1, w1/2 (discover: read_file,
    // search_code + the two controls) 124 each; w2/1 (verify adds run_tests)
    // 144; w2/2 (retrieved search_code, read_file + controls) 124; the six
    // flat menus (w2/3-5, w3/1-3) 187 each. Sum 1638 over 10.
    let mut want = expected("expected-metrics.json");
    want["definition_tokens"] = json!({"mean": 163.8, "p50": 187, "p95": 187, "decisions": 10});
    // Three tasks, one run each: no task has two trials to compare.
    want["inconsistent_tasks"] = json!({"value": null, "numerator": 0, "denominator": 0});
    // Format 1.1's four metrics over runs with expectations: none here.
    for k in [
        "expected_call_recall",
        "argument_accuracy",
        "runs_as_expected",
        "agreement_with_success",
    ] {
        want[k] = json!({"value": null, "numerator": 0, "denominator": 0});
    }
    assert_json_eq(&db.json(now, &["report", "metrics"]), &want);
    // explain: the expected file leaves some keys out (why, findings, ...);
    // every key it has must match.
    let got = db.json(now, &["explain", "w2", "2"]);
    let want = expected("expected-explain-w2-2.json");
    assert_subset(&got, &want, "$");
}

/// Every key of `want` is in `got` with the same value (recursively; lists
/// item by item, same length).
fn assert_subset(got: &Value, want: &Value, path: &str) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, v) in w {
                let g = g.get(k).unwrap_or_else(|| panic!("{path}.{k} is missing"));
                assert_subset(g, v, &format!("{path}.{k}"));
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(
                g.len(),
                w.len(),
                "{path}: {} items, want {}",
                g.len(),
                w.len()
            );
            for (i, (a, b)) in g.iter().zip(w).enumerate() {
                assert_subset(a, b, &format!("{path}[{i}]"));
            }
        }
        (g, w) => assert_eq!(g, w, "{path}"),
    }
}
