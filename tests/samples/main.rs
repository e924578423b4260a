//! The bundled sample corpus (`sample-traces/`): the committed files are
//! what `rung-samplegen` writes today, and the built `rung` reproduces the
//! numbers each sample's README promises, read from its json output: the
//! explicit stories of issue 3 first, then every ladder, metrics and
//! refusals json block and every ladder, refusal, confusion, findings and
//! runs table of the READMEs. Also the spec's worked example
//! (`../shared/spec/examples/`: ignored unless run with `--include-ignored`,
//! and failing when the shared folder is not beside the project).

#[path = "../common/mod.rs"]
mod common;
#[path = "../report_util/mod.rs"]
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
                let text = lines[i + 1..end].join("\n");
                check_json_block(s, &at, &para, heading_catalogue.as_deref(), &text);
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

/// A README json block is what the command its paragraph names prints,
/// byte for byte (the tool's current format), and its numbers are rung's.
fn check_json_block(s: &Sample, at: &str, para: &str, heading: Option<&str>, text: &str) {
    let want: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{at}: bad json: {e}"));
    let kind = if para.contains("rung report ladder --format json") {
        "ladder"
    } else if para.contains("rung report metrics --format json") {
        "metrics"
    } else if para.contains("rung report refusals --format json") {
        "refusals"
    } else {
        panic!("{at}: a json block after {para:?}: teach tests/samples/main.rs which report it is");
    };
    let args = args_for(kind, para, heading);
    let got = report(s, &args);
    if let Some(diff) = json_diff("$", &got, &want) {
        panic!(
            "{at}: `rung {}` differs from the README at {diff}",
            args.join(" ")
        );
    }
    let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
    a.extend(["--format", "json"]);
    let printed = s.db.out(&s.now, &a);
    assert_eq!(
        printed,
        format!("{text}\n"),
        "{at}: the README does not show `rung {}` as rung prints it; \
         change rung-samplegen and run `{REGENERATE}`",
        a.join(" ")
    );
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

mod cases;
