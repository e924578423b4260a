//! The tool audit's counts kept (schema 10, `agg_audit`): after an import,
//! the re-import of a changed file, a reclassification, writes by hand and
//! the upgrade from schema 9, the kept counts of every tool are the ones
//! counted by hand from desk.jsonl and menus.jsonl, and the audit (which
//! reads them) agrees with the long way.
//!
//! By hand, over the 17 decisions on desk-1:
//! * send_email (comms, mutating, open world): hidden by family where the
//!   policy allows billing only (r-101's three, r-102's four, m-1 step 3,
//!   m-2's two: 10), by open world on r-103 (3: comms allowed, open world
//!   not), flat on r-104 (2), not recorded on m-1 step 1 (flat, but not in
//!   the run's recorded menu), not retrieved on m-1 step 2 (no policy, not
//!   a candidate).
//! * cancel_subscription (billing, mutating): retrieved on r-101 step 3 and
//!   r-102's four (ranks 2, 2, 2, 1, 1 ≤ k=3), not retrieved on r-101 steps
//!   1 (rank 4) and 2 and m-1 step 2 (not a candidate), eligible on r-103
//!   (3), flat on r-104 (2), not recorded on m-1 step 1, hidden by the
//!   read-only ceiling on m-1 step 3 and m-2's two (3).
//! * ask_user (control, none): a trusted control on r-101, r-102, r-103,
//!   m-1 steps 1 and 2 (12), flat on r-104 (2), not recorded on m-1 step 3
//!   (a control missing from its recorded menu), recorded on m-2's two (the
//!   family rule hides it; m-2 has no controls).

mod import_util;
mod store_util;

use import_util::*;
use rung::filter::Filter;
use rung::store::agg::audit::kept;
use rung::store::browse::{rules_the_long_way, tool_audit};
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use store_util::*;

type Rules = Vec<(bool, String, u64)>;

fn r(v: &[(bool, &str, u64)]) -> Rules {
    let mut out: Rules = v.iter().map(|(b, s, n)| (*b, s.to_string(), *n)).collect();
    out.sort();
    out
}

/// The kept counts (asserting they answer), checked against the audit and
/// the long way.
fn kept_rules(conn: &Connection, f: &Filter, name: &str) -> (Rules, u64) {
    let (mut rules, total) = kept(conn, f, "desk-1", name)
        .unwrap()
        .expect("the kept counts answer");
    rules.sort();
    let long = rules_the_long_way(conn, f, "desk-1", name).unwrap();
    let mut by_long: std::collections::BTreeMap<(bool, String), u64> = Default::default();
    for (_, v, rule, _) in &long {
        *by_long.entry((*v, rule.clone())).or_default() += 1;
    }
    let long_rules: Rules = by_long.into_iter().map(|((v, r), n)| (v, r, n)).collect();
    assert_eq!(rules, long_rules, "{name} {f:?}");
    assert_eq!(total, long.len() as u64, "{name} {f:?}");
    // The audit reads them, and finds each rule's first decision.
    let audit = tool_audit(conn, f, "desk-1", name, &|| false).unwrap();
    let mut shown: Rules = audit
        .rules
        .iter()
        .map(|c| (c.visible, c.rule.clone(), c.decisions))
        .collect();
    shown.sort();
    assert_eq!(shown, rules, "{name} {f:?}");
    assert_eq!(audit.total, total);
    for c in &audit.rules {
        let first = long
            .iter()
            .find(|(_, v, rule, _)| *v == c.visible && *rule == c.rule)
            .unwrap();
        assert_eq!(c.example, first.3, "{name} {}", c.rule);
    }
    (rules, total)
}

fn send_email() -> Rules {
    r(&[
        (false, "family", 10),
        (false, "open_world", 3),
        (true, "flat", 2),
        (false, "not_recorded", 1),
        (false, "not_retrieved", 1),
    ])
}

fn cancel_subscription() -> Rules {
    r(&[
        (true, "retrieved", 5),
        (false, "not_retrieved", 3),
        (true, "eligible", 3),
        (true, "flat", 2),
        (false, "not_recorded", 1),
        (false, "effect", 3),
    ])
}

fn ask_user() -> Rules {
    r(&[
        (true, "trusted_control", 12),
        (true, "flat", 2),
        (false, "not_recorded", 1),
        (true, "recorded", 2),
    ])
}

fn assert_by_hand(conn: &Connection) {
    let all = Filter::default();
    assert_eq!(kept_rules(conn, &all, "send_email"), (send_email(), 17));
    assert_eq!(
        kept_rules(conn, &all, "cancel_subscription"),
        (cancel_subscription(), 17)
    );
    assert_eq!(kept_rules(conn, &all, "ask_user"), (ask_user(), 17));
    // gpt-4o: r-102's four decisions and r-104's two.
    let gpt = Filter {
        models: vec!["gpt-4o".into()],
        ..Filter::default()
    };
    assert_eq!(
        kept_rules(conn, &gpt, "send_email"),
        (r(&[(false, "family", 4), (true, "flat", 2)]), 6)
    );
    assert_eq!(
        kept_rules(conn, &gpt, "cancel_subscription"),
        (r(&[(true, "retrieved", 4), (true, "flat", 2)]), 6)
    );
    // Every tool of the catalogue agrees with the long way, by day too.
    let day = Filter {
        since: Some(at_day(18)),
        until: Some(at_day(19)),
        ..Filter::default()
    };
    for name in [
        "find_customer",
        "list_invoices",
        "refund_invoice",
        "delete_customer",
        "no_applicable_tool",
    ] {
        kept_rules(conn, &all, name);
        kept_rules(conn, &gpt, name);
        kept_rules(conn, &day, name);
    }
}

/// 2026-11-DD 00:00:00 UTC in microseconds.
fn at_day(dd: i64) -> i64 {
    (1_793_491_200 + (dd - 1) * 86_400) * 1_000_000
}

#[test]
fn counts_after_an_import_are_the_ones_counted_by_hand() {
    let (_dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    let conn = Connection::open(&db).unwrap();
    assert_by_hand(&conn);
    // A run filter is not answered by them.
    let runs = Filter {
        runs: vec!["m-1".into()],
        ..Filter::default()
    };
    assert_eq!(kept(&conn, &runs, "desk-1", "send_email").unwrap(), None);
}

#[test]
fn a_changed_file_a_reclassification_and_writes_by_hand_are_counted_again() {
    let (dir, db) = setup();
    import(&db, &["-q", &path(DESK), &path(MENUS)]);
    // m-2's policy now allows comms, mutating and open-world tools:
    // send_email and cancel_subscription pass it on m-2's two decisions,
    // and are not retrieved there (not among the run's candidates).
    let changed = dir.path().join("menus.jsonl");
    let text = std::fs::read_to_string(path(MENUS)).unwrap().replace(
        r#""policy":{"allowed_families":["billing"],"max_effect":"read_only"},"retrieval":{"k":2,"query""#,
        r#""policy":{"allowed_families":["billing","comms"],"max_effect":"mutating","allow_open_world":true},"retrieval":{"k":2,"query""#,
    );
    assert_ne!(text, std::fs::read_to_string(path(MENUS)).unwrap());
    std::fs::write(&changed, text).unwrap();
    import(&db, &["-q", "--replace", &changed.display().to_string()]);
    let conn = Connection::open(&db).unwrap();
    let all = Filter::default();
    let mut send = send_email();
    send.retain(|(_, rule, _)| rule != "family" && rule != "not_retrieved");
    send.extend([
        (false, "family".to_string(), 8),
        (false, "not_retrieved".to_string(), 3),
    ]);
    send.sort();
    assert_eq!(kept_rules(&conn, &all, "send_email"), (send.clone(), 17));
    let mut cancel = cancel_subscription();
    cancel.retain(|(_, rule, _)| rule != "effect" && rule != "not_retrieved");
    cancel.extend([
        (false, "effect".to_string(), 1),
        (false, "not_retrieved".to_string(), 5),
    ]);
    cancel.sort();
    assert_eq!(
        kept_rules(&conn, &all, "cancel_subscription"),
        (cancel.clone(), 17)
    );
    drop(conn);
    // Classified again from scratch: the same counts.
    let out = rung(&db, &["-q", "reclassify"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(kept_rules(&conn, &all, "send_email"), (send, 17));
    assert_eq!(kept_rules(&conn, &all, "cancel_subscription"), (cancel, 17));
    // r-104's two decisions deleted by hand: its day is listed (the kept
    // counts do not answer) until they are counted again.
    conn.execute_batch(
        "DELETE FROM ladder_rows WHERE decision_id IN
             (SELECT id FROM decision_rows WHERE run_id = 'r-104');
         DELETE FROM decision_rows WHERE run_id = 'r-104';",
    )
    .unwrap();
    assert_eq!(kept(&conn, &all, "desk-1", "send_email").unwrap(), None);
    rung::store::agg::refresh(&conn).unwrap();
    let (rules, total) = kept_rules(&conn, &all, "ask_user");
    assert_eq!(
        (rules, total),
        (
            r(&[
                (true, "trusted_control", 12),
                (false, "not_recorded", 1),
                (true, "recorded", 2),
            ]),
            15
        )
    );
}

#[test]
fn a_schema_9_database_gets_the_audit_counts_on_upgrade() {
    let (_dir, db) = setup();
    load_dump(&db, include_str!("fixtures/migration/schema-v9.sql"), 9);
    // Opening it to write upgrades it (and classifies nothing).
    let store = rung::store::Store::open_rw(&db).unwrap();
    let conn = &store.conn;
    assert_eq!(
        one(conn, "PRAGMA user_version"),
        Sql::Integer(rung::store::SCHEMA_VERSION)
    );
    assert_eq!(one(conn, "SELECT count(*) FROM agg_dirty"), Sql::Integer(0));
    assert_by_hand(conn);
    drop(store);
    // The same blobs as a fresh import's, key by key.
    let (_d2, fresh) = setup();
    import(&fresh, &["-q", &path(DESK), &path(MENUS)]);
    let q = "SELECT k.day, k.whole, c.version, k.phase, k.model, length(a.counts)
             FROM agg_audit a JOIN agg_keys k ON k.id = a.key
             LEFT JOIN catalogue_ids c ON c.id = k.catalogue ORDER BY 1, 2, 3, 4, 5";
    let upgraded = rows(&Connection::open(&db).unwrap(), q);
    assert_eq!(upgraded.len(), 15);
    assert_eq!(upgraded, rows(&Connection::open(&fresh).unwrap(), q));
}

#[test]
fn every_tool_of_a_synthetic_set_counts_as_the_long_way() {
    use std::io::Write;
    let (dir, db) = setup();
    let file = dir.path().join("synthetic.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    rung_samplegen::synthetic(300, 7, &mut w).unwrap();
    w.flush().unwrap();
    drop(w);
    import(&db, &["-q", &file.display().to_string()]);
    let conn = Connection::open(&db).unwrap();
    let catalogue: String = one_text(&conn, "SELECT version FROM catalogues LIMIT 1");
    let tools: Vec<String> = conn
        .prepare("SELECT name FROM tools WHERE catalogue = ?1 ORDER BY name")
        .unwrap()
        .query_map([&catalogue], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(tools.len(), 230);
    let f = Filter::default();
    let mut rules = std::collections::BTreeSet::new();
    for name in &tools {
        let (mut got, total) = kept(&conn, &f, &catalogue, name).unwrap().unwrap();
        got.sort();
        let mut by: std::collections::BTreeMap<(bool, String), u64> = Default::default();
        let long = rules_the_long_way(&conn, &f, &catalogue, name).unwrap();
        for (_, v, rule, _) in &long {
            *by.entry((*v, rule.clone())).or_default() += 1;
        }
        let want: Rules = by.into_iter().map(|((v, r), n)| (v, r, n)).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(total, long.len() as u64, "{name}");
        rules.extend(got.into_iter().map(|(_, r, _)| r));
    }
    // The set reaches the rules read from the policy and from the lists.
    for rule in [
        "family",
        "effect",
        "retrieved",
        "not_retrieved",
        "trusted_control",
    ] {
        assert!(rules.contains(rule), "{rule}: {rules:?}");
    }
}

fn one_text(conn: &Connection, sql: &str) -> String {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}
