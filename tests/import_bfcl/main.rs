//! `rung import --format bfcl` on hand-made BFCL files of the shapes BFCL
//! writes (tests/fixtures/bfcl: a v1 run with one entry per error type of
//! BFCL's checker, and a v4 run with a multi-turn entry, a relevance entry
//! and a prompting model), and on the public question files in
//! ../shared/real-traces with results made up here.

#[path = "../bfcl_fixture/mod.rs"]
mod bfcl_fixture;
#[path = "../import_util/mod.rs"]
mod import_util;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use import_util::*;
use serde_json::{Value, json};

/// A fixture path by BFCL's names, in the staged copy (tests/bfcl_fixture).
fn bfcl(rel: &str) -> String {
    bfcl_fixture::staged(rel).display().to_string()
}

/// (step, turn, selected) of each decision of a run.
fn calls(db: &Path, run: &str) -> Vec<(i64, Option<i64>, Option<String>)> {
    stored(db, run)
        .into_iter()
        .map(|d| (d.step, d.turn, d.selected))
        .collect()
}

/// The stored cases that label a decision: task id → acceptable list
/// (the cases of possible answers carry expected calls only).
fn cases(db: &Path) -> BTreeMap<String, Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut s = conn
        .prepare(
            "SELECT task_id, acceptable FROM cases WHERE acceptable <> 'null' ORDER BY task_id",
        )
        .unwrap();
    s.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            serde_json::from_str(&r.get::<_, String>(1)?).unwrap(),
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// A stored run's column (`goal`, `visible`, `tags`...), as JSON.
fn run_column(db: &Path, run: &str, column: &str) -> Value {
    let conn = rusqlite::Connection::open(db).unwrap();
    let v: Option<String> = conn
        .query_row(
            &format!("SELECT {column} FROM runs WHERE run_id = ?1"),
            [run],
            |r| r.get(0),
        )
        .unwrap();
    match v {
        None => Value::Null,
        Some(t) => serde_json::from_str(&t).unwrap_or(Value::String(t)),
    }
}

fn run_of<'a>(runs: &'a Value, id: &str) -> &'a Value {
    runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == id)
        .unwrap_or_else(|| panic!("no run {id}"))
}

// ---------------------------------------------------------------------------
// The public BFCL question files, with results made up here: every function
// on the menu called once (with its dots written as underscores, as
// function-calling models must), and one text answer per turn for
// multi-turn entries.

fn shared(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-traces")
        .join(rel);
    assert!(
        p.exists(),
        "{} is missing (the public samples live in ../shared/real-traces beside the project)",
        p.display()
    );
    p
}

fn lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes a result file answering every entry of a question file.
fn made_up_results(question: &Path, out: &Path) {
    let mut text = String::new();
    for q in lines(question) {
        let result = match &q["function"] {
            Value::Null => {
                let turns = q["question"].as_array().unwrap().len();
                json!(vec![vec![json!("Done.")]; turns])
            }
            f => {
                let fs = match f {
                    Value::Array(a) => a.clone(),
                    one => vec![one.clone()],
                };
                json!(
                    fs.iter()
                        .map(|f| {
                            let name = f["name"].as_str().unwrap().replace('.', "_");
                            json!({ name: "{}" })
                        })
                        .collect::<Vec<_>>()
                )
            }
        };
        text.push_str(&json!({"id": q["id"], "result": result}).to_string());
        text.push('\n');
    }
    std::fs::write(out, text).unwrap();
}

/// Per category: (runs, decisions, tool definitions, decisions that mapped
/// a name back, cases), counted from the database.
type Counts = BTreeMap<String, (usize, usize, usize, usize, usize)>;

fn import_with_made_up_results(dir: &str, categories: &[&str]) -> Counts {
    let root = shared(dir);
    let (tmp, db) = setup();
    let model = tmp.path().join("result/made-up-FC");
    std::fs::create_dir_all(&model).unwrap();
    for c in categories {
        let q = root.join("question").join(format!("{c}.json"));
        made_up_results(&q, &model.join(format!("{c}_result.json")));
    }
    let s = import(
        &db,
        &[
            "--format",
            "bfcl",
            root.to_str().unwrap(),
            model.to_str().unwrap(),
        ],
    );
    assert!(!s.contains("skipped"), "{s}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut counts = Counts::new();
    let mut s = conn
        .prepare(
            "SELECT r.run_id, r.task_id, r.tags, r.extra,
                    (SELECT COUNT(*) FROM decisions d WHERE d.run_id = r.run_id),
                    (SELECT COUNT(*) FROM decisions d WHERE d.run_id = r.run_id
                       AND d.extra LIKE '%bfcl_name%')
             FROM runs r",
        )
        .unwrap();
    let rows = s
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, i64>(5)?,
            ))
        })
        .unwrap();
    let case_ids: Vec<String> = conn
        .prepare("SELECT task_id FROM cases")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for row in rows {
        let (task, tags, extra, decisions, mapped) = row.unwrap();
        let tags: Value = serde_json::from_str(&tags).unwrap();
        let extra: Value = serde_json::from_str(&extra).unwrap();
        let defs = extra["tool_definitions"].as_array().unwrap();
        // Every type is JSON Schema's: none of BFCL's own names is left.
        let text = serde_json::to_string(defs).unwrap();
        for bfcl_only in ["\"dict\"", "\"float\"", "\"tuple\"", "\"any\""] {
            assert!(
                !text.contains(&format!("\"type\":{bfcl_only}")),
                "{task}: {bfcl_only} in {text}"
            );
        }
        let e = counts
            .entry(tags["bfcl_category"].as_str().unwrap().to_string())
            .or_default();
        e.0 += 1;
        e.1 += decisions as usize;
        e.2 += defs.len();
        e.3 += mapped as usize;
        e.4 += case_ids.contains(&task) as usize;
    }
    // Every call maps to a name on its menu.
    let off_menu: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM decisions d JOIN runs r ON r.run_id = d.run_id
             WHERE d.selected IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM json_each(json_extract(r.extra, '$.tool_definitions')) t
               WHERE json_extract(t.value, '$.name') = d.selected)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(off_menu, 0);
    counts
}

mod cases;
