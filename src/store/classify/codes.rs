//! How a verdict's columns are stored in `ladder_rows` (schema 6): short
//! enum texts as their place in the list the `ladder` view spells them from
//! (`schema_v6.sql`), the catalogue as a `catalogue_ids` id, the label's
//! lists and the controls as `ladder_lists` ids, the reason only where it
//! is not the decision's.

use rustc_hash::FxHashMap as HashMap;

use rusqlite::Connection;
use rusqlite::types::Value;

use crate::error::Result;
use crate::ladder::LabelSource;
use crate::model::{Arguments, Boundary, Progress, Routing};

pub(super) fn routing(r: Routing) -> i64 {
    match r {
        Routing::Coverage => 0,
        Routing::Exposure => 1,
        Routing::Discovery => 2,
        Routing::Selection => 3,
        Routing::Unlabelled => 4,
    }
}

pub(super) fn boundary(b: Boundary) -> i64 {
    match b {
        Boundary::Representation => 0,
        Boundary::Schema => 1,
        Boundary::Semantics => 2,
        Boundary::Authorization => 3,
        Boundary::Precondition => 4,
        Boundary::Unclassified => 5,
        Boundary::Execution => 6,
    }
}

pub(super) fn progress(p: Progress) -> i64 {
    match p {
        Progress::Advanced => 0,
        Progress::None => 1,
        Progress::Regressed => 2,
    }
}

pub(super) fn arguments(a: Arguments) -> i64 {
    match a {
        Arguments::Mismatch => 0,
    }
}

pub(super) fn label_source(s: LabelSource) -> i64 {
    match s {
        LabelSource::Inline => 0,
        LabelSource::Case => 1,
        LabelSource::Derived => 2,
    }
}

/// The stored reason: NULL where it is the decision's own, X'' where the
/// decision has one and the verdict none, else the text.
pub(super) fn reason(verdict: Option<&str>, decision: Option<&str>) -> Value {
    match verdict {
        v if v == decision => Value::Null,
        None => Value::Blob(Vec::new()),
        Some(t) => Value::Text(t.to_string()),
    }
}

/// Texts stored as ids of a table of their own (`catalogue_ids` for the
/// catalogues, `ladder_lists` for the label's lists and the controls),
/// each added once; the ids this batch used are remembered.
pub(crate) struct Interned {
    insert: &'static str,
    select: &'static str,
    ids: HashMap<String, i64>,
}

impl Interned {
    pub(crate) fn catalogues() -> Interned {
        Interned {
            insert: "INSERT OR IGNORE INTO catalogue_ids (version) VALUES (?1)",
            select: "SELECT id FROM catalogue_ids WHERE version = ?1",
            ids: HashMap::default(),
        }
    }

    pub(crate) fn lists() -> Interned {
        Interned {
            insert: "INSERT OR IGNORE INTO ladder_lists (body) VALUES (?1)",
            select: "SELECT id FROM ladder_lists WHERE body = ?1",
            ids: HashMap::default(),
        }
    }

    pub(crate) fn id(&mut self, conn: &Connection, text: &str) -> Result<i64> {
        if let Some(&id) = self.ids.get(text) {
            return Ok(id);
        }
        conn.prepare_cached(self.insert)?.execute([text])?;
        let id: i64 = conn
            .prepare_cached(self.select)?
            .query_row([text], |r| r.get(0))?;
        self.ids.insert(text.to_string(), id);
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The places are the ones `schema_v6.sql` spells back.
    #[test]
    fn codes_are_the_places_the_view_spells() {
        let sql = include_str!("../schema_v6.sql");
        let view = &sql[sql.find("CREATE VIEW ladder AS").unwrap()..];
        let view = &view[..view.find("FROM ladder_rows").unwrap()];
        let spelled = |column: &str, code: i64, text: &str| {
            let at = view.find(&format!("CASE l.{column} ")).unwrap();
            let case = &view[at..];
            let case = &case[..case.find(" END").unwrap()];
            assert!(
                case.contains(&format!("WHEN {code} THEN '{text}'")),
                "{column} {code} {text}: {case}"
            );
        };
        for r in Routing::ALL {
            spelled("routing", routing(*r), r.as_str());
        }
        for b in Boundary::ALL {
            spelled("boundary", boundary(*b), b.as_str());
        }
        for p in Progress::ALL {
            spelled("progress", progress(*p), p.as_str());
        }
        for a in Arguments::ALL {
            spelled("arguments", arguments(*a), a.as_str());
        }
        for s in [LabelSource::Inline, LabelSource::Case, LabelSource::Derived] {
            spelled("label_source", label_source(s), s.as_str());
        }
        assert_eq!(reason(Some("x"), Some("x")), Value::Null);
        assert_eq!(reason(None, None), Value::Null);
        assert_eq!(reason(None, Some("x")), Value::Blob(Vec::new()));
        assert_eq!(reason(Some("y"), None), Value::Text("y".into()));
        assert_eq!(reason(Some("y"), Some("x")), Value::Text("y".into()));
    }
}
