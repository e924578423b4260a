//! The tool audit and its rule drill read each decision's rule from the
//! stored menu ids over every decision; the long way (explain over the
//! decision's whole menu, what the audit did before) must agree decision by
//! decision: the same counts, the same examples, the same decisions behind
//! each rule, on the desk and menus fixtures (run-level menus, exposed
//! sets, candidates with fields of their own, missing scores) and on a
//! synthetic set (dense menus, policies, retrievals, recorded menus).
//! menus.jsonl by hand: list_invoices is retrieved on m-1 step 2 (rank 1 ≤
//! k=2), m-1 step 3 (rank 1 ≤ k=1) and m-2's two steps (rank 2 ≤ k=2, the
//! run's retrieval), and visible by the flat rule on m-1 step 1 (no policy,
//! no retrieval); refund_invoice (mutating) is hidden by the read-only
//! ceiling on m-1 step 3 and m-2's two steps, retrieved on m-1 step 2
//! (rank 2 ≤ k=2) and missing from m-1 step 1's recorded menu though the
//! flat rule shows it.

mod import_util;
mod store_util;

use std::collections::BTreeMap;
use std::io::Write;

use import_util::*;
use rung::filter::Filter;
use rung::store::browse::{
    Anchor, DecisionRow, Drill, Page, RuleCount, drill_page, rules_the_long_way, tool_audit,
};
use rusqlite::Connection;
use store_util::*;

fn tools_of(conn: &Connection, catalogue: &str) -> Vec<String> {
    conn.prepare("SELECT name FROM tools WHERE catalogue = ?1 ORDER BY name")
        .unwrap()
        .query_map([catalogue], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The audit the long way: per (visible, rule), the decisions and the
/// first one's explanation, by decisions descending.
fn audit_the_long_way(long: &[(i64, bool, String, String)]) -> Vec<RuleCount> {
    let mut counts: BTreeMap<(bool, String), (u64, String)> = BTreeMap::new();
    for (_, visible, rule, why) in long {
        counts
            .entry((*visible, rule.clone()))
            .or_insert((0, why.clone()))
            .0 += 1;
    }
    let mut rules: Vec<RuleCount> = counts
        .into_iter()
        .map(|((visible, rule), (decisions, example))| RuleCount {
            visible,
            rule,
            decisions,
            example,
        })
        .collect();
    rules.sort_by(|a, b| b.decisions.cmp(&a.decisions).then(a.rule.cmp(&b.rule)));
    rules
}

fn ids(p: &Page<DecisionRow>) -> Vec<i64> {
    p.rows.iter().map(|(_, r)| r.decision_id).collect()
}

/// Every decision of one rule's list, `n` at a time from the first.
fn walk_forward(conn: &Connection, f: &Filter, d: &Drill, n: usize) -> Vec<i64> {
    let mut page = drill_page(conn, f, d, &Anchor::First, n).unwrap();
    let mut out = ids(&page);
    while page.more_after {
        let last = page.rows.last().unwrap().0.clone();
        page = drill_page(conn, f, d, &Anchor::After(last), n).unwrap();
        out.extend(ids(&page));
    }
    out
}

/// The audit of every listed tool and each of its rules' decisions agree
/// with the long way (the lists paged `n` at a time; with 3, also counted
/// by the drill itself); returns the audits, by tool.
fn agree(
    conn: &Connection,
    f: &Filter,
    catalogue: &str,
    tools: &[String],
    n: usize,
) -> BTreeMap<String, Vec<(bool, String, u64)>> {
    let mut seen = BTreeMap::new();
    for name in tools {
        let long = rules_the_long_way(conn, f, catalogue, name).unwrap();
        let audit = tool_audit(conn, f, catalogue, name, &|| false).unwrap();
        assert_eq!(audit.rules, audit_the_long_way(&long), "{name} {f:?}");
        assert_eq!(audit.total, long.len() as u64, "{name} {f:?}");
        for rc in &audit.rules {
            let want: Vec<i64> = long
                .iter()
                .filter(|(_, v, r, _)| *v == rc.visible && *r == rc.rule)
                .map(|(id, ..)| *id)
                .collect();
            let counts = if n == 3 {
                vec![Some(rc.decisions), None]
            } else {
                vec![Some(rc.decisions)]
            };
            for decisions in counts {
                let d = Drill::Rule {
                    catalogue: catalogue.into(),
                    name: name.clone(),
                    visible: rc.visible,
                    rule: rc.rule.clone(),
                    decisions,
                };
                assert_eq!(walk_forward(conn, f, &d, n), want, "{name} {}", rc.rule);
                let first = drill_page(conn, f, &d, &Anchor::First, 3).unwrap();
                assert_eq!(first.total, Some(want.len() as u64));
                let last = drill_page(conn, f, &d, &Anchor::Last, 3).unwrap();
                let tail = want.len().saturating_sub(3);
                assert_eq!(ids(&last), want[tail..], "{name} {}", rc.rule);
                assert_eq!(last.before, Some(tail as u64));
                assert_eq!(last.more_before, tail > 0);
            }
        }
        seen.insert(
            name.clone(),
            audit
                .rules
                .iter()
                .map(|r| (r.visible, r.rule.clone(), r.decisions))
                .collect(),
        );
    }
    seen
}

fn rules(v: &[(bool, &str, u64)]) -> Vec<(bool, String, u64)> {
    v.iter().map(|(b, r, n)| (*b, r.to_string(), *n)).collect()
}

#[test]
fn the_fixtures_audit_the_same_both_ways_and_by_hand() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    let tools = tools_of(&conn, "desk-1");
    assert!(tools.len() >= 6, "{tools:?}");
    let gpt = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    let menus = Filter {
        runs: vec!["m-1".into(), "m-2".into()],
        ..Filter::default()
    };
    agree(&conn, &Filter::default(), "desk-1", &tools, 3);
    agree(&conn, &gpt, "desk-1", &tools, 3);
    let by_hand = agree(&conn, &menus, "desk-1", &tools, 3);
    assert_eq!(
        by_hand["list_invoices"],
        rules(&[(true, "retrieved", 4), (true, "flat", 1)])
    );
    assert_eq!(
        by_hand["refund_invoice"],
        rules(&[
            (false, "effect", 3),
            (false, "not_recorded", 1),
            (true, "retrieved", 1)
        ])
    );
}

#[test]
fn a_synthetic_set_audits_the_same_both_ways() {
    let (dir, db) = setup();
    let file = dir.path().join("synthetic.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    rung_samplegen::synthetic(600, 42, &mut w).unwrap();
    w.flush().unwrap();
    drop(w);
    import(&db, &["-q", &file.display().to_string()]);
    let conn = Connection::open(&db).unwrap();
    let catalogue: String = conn
        .query_row(
            "SELECT version FROM catalogues ORDER BY version LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Every 23rd tool and the first search tool.
    let all = tools_of(&conn, &catalogue);
    let mut tools: Vec<String> = all.iter().step_by(23).cloned().collect();
    tools.extend(all.iter().find(|t| t.starts_with("search")).cloned());
    let seen = agree(&conn, &Filter::default(), &catalogue, &tools, 40);
    // The set exercises the rules that read the retrieval.
    let kinds: std::collections::BTreeSet<&str> = seen
        .values()
        .flatten()
        .map(|(_, r, _)| r.as_str())
        .collect();
    for rule in ["family", "retrieved", "not_retrieved"] {
        assert!(kinds.contains(rule), "{rule}: {kinds:?}");
    }
}
