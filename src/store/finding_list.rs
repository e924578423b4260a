//! The findings list read whole and fast (`rung report findings --all`,
//! `--format json`): the rows of `finding_rows` as they are stored, their
//! kind, catalogue and names as ids that the reader decodes (and masks,
//! and escapes) once per distinct id with [`FindingNames`], sorted by
//! SQLite on the ranks of the names (integers) rather than on the names.
//! The order is the `findings` view's by (kind, catalogue, task_id,
//! run_id, step, tool, detail), nulls first.

use std::borrow::Cow;
use std::sync::Arc;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, params_from_iter};
use rustc_hash::FxHashMap;

use super::findings::{Among, FindingRow, selected_from, unpack_detail};
use crate::error::Result;
use crate::filter::Filter;

/// One stored finding, its kind, catalogue and names as ids of
/// [`FindingNames`] (an id that names nothing reads as none, as the view's
/// outer joins show it).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredFinding {
    pub kind: i64,
    pub catalogue: Option<i64>,
    pub task_id: Option<i64>,
    pub run_id: Option<i64>,
    pub step: Option<i64>,
    pub tool: Option<i64>,
    /// As stored: packed (see `findings::pack_detail`) when `packed`.
    pub detail: String,
    pub packed: bool,
}

impl StoredFinding {
    /// The detail spelt out.
    pub fn detail<'a>(&'a self, names: &FindingNames) -> Cow<'a, str> {
        if self.packed {
            Cow::Owned(unpack_detail(&self.detail, names.name(self.tool)))
        } else {
            Cow::Borrowed(&self.detail)
        }
    }
}

/// A name and its place in the names' binary order.
#[derive(Debug, Default)]
struct Ranked {
    names: FxHashMap<i64, (u32, String)>,
}

impl Ranked {
    /// `sql` returns (id, name) by name.
    fn load(conn: &Connection, sql: &str) -> Result<Ranked> {
        let mut names = FxHashMap::default();
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let rank = names.len() as u32;
            names.insert(r.get(0)?, (rank, r.get(1)?));
        }
        Ok(Ranked { names })
    }

    fn name(&self, id: i64) -> Option<&str> {
        self.names.get(&id).map(|(_, n)| n.as_str())
    }

    /// The rank of `id` plus one; 0 for none (nulls first).
    fn rank(&self, id: Option<i64>) -> u64 {
        id.and_then(|i| self.names.get(&i))
            .map_or(0, |(r, _)| u64::from(*r) + 1)
    }

    fn known(&self, id: Option<i64>) -> Option<i64> {
        id.filter(|i| self.names.contains_key(i))
    }
}

/// The names findings use: kinds, catalogues and `finding_names` (tasks,
/// runs, tools), each with its rank by name.
#[derive(Debug, Default)]
pub struct FindingNames {
    kinds: Ranked,
    catalogues: Ranked,
    names: Ranked,
}

impl FindingNames {
    pub fn load(conn: &Connection) -> Result<FindingNames> {
        Ok(FindingNames {
            kinds: Ranked::load(conn, "SELECT id, name FROM finding_kinds ORDER BY name")?,
            catalogues: Ranked::load(
                conn,
                "SELECT id, version FROM catalogue_ids ORDER BY version",
            )?,
            names: Ranked::load(conn, "SELECT id, name FROM finding_names ORDER BY name")?,
        })
    }

    /// A finding's kind (always known: a finding of an unknown kind is
    /// not read, as the view leaves it out).
    pub fn kind(&self, id: i64) -> &str {
        self.kinds.name(id).unwrap_or("")
    }

    pub fn catalogue(&self, id: Option<i64>) -> Option<&str> {
        id.and_then(|i| self.catalogues.name(i))
    }

    /// A task, run or tool.
    pub fn name(&self, id: Option<i64>) -> Option<&str> {
        id.and_then(|i| self.names.name(i))
    }

    /// The finding with its names.
    pub fn row(&self, f: &StoredFinding) -> FindingRow {
        let own = |s: Option<&str>| s.map(str::to_string);
        FindingRow {
            kind: self.kind(f.kind).to_string(),
            catalogue: own(self.catalogue(f.catalogue)),
            task_id: own(self.name(f.task_id)),
            run_id: own(self.name(f.run_id)),
            step: f.step,
            tool: own(self.name(f.tool)),
            detail: f.detail(self).into_owned(),
        }
    }

    /// How many bits the ranks (plus one) of kinds, catalogues and names
    /// take.
    fn widths(&self) -> [u32; 3] {
        let bits = |r: &Ranked| u64::BITS - (r.names.len() as u64).leading_zeros();
        [bits(&self.kinds), bits(&self.catalogues), bits(&self.names)]
    }

    /// How many of (kind, catalogue, task, run) one integer sort key holds:
    /// all four when their ranks fit in 63 bits (always, but for millions
    /// of names), else the first three (the run's rank a key of its own).
    fn key_parts(&self) -> Result<usize> {
        let [k, c, n] = self.widths();
        if k + c + 2 * n <= 63 {
            Ok(4)
        } else if k + c + n <= 63 {
            Ok(3)
        } else {
            Err(crate::error::Error::usage(
                "too many finding names to sort".to_string(),
            ))
        }
    }

    /// The sort key of the first `ids.len()` of (kind, catalogue, task,
    /// run): their ranks plus one (0: none), side by side in the bits of
    /// [`FindingNames::widths`].
    fn key(&self, ids: &[Option<i64>]) -> i64 {
        let [k, c, n] = self.widths();
        let parts = [
            (&self.kinds, k),
            (&self.catalogues, c),
            (&self.names, n),
            (&self.names, n),
        ];
        let mut key = 0u64;
        for (id, (ranked, bits)) in ids.iter().zip(parts) {
            key = key << bits | ranked.rank(*id);
        }
        key as i64
    }
}

/// The SQL functions the sorted query calls: the key of (kind,
/// catalogue, task[, run]), and the rank of a run or tool.
const KEY_FN: &str = "rung_finding_key";
const RANK_FN: &str = "rung_finding_name_rank";

fn register(conn: &Connection, names: &Arc<FindingNames>, parts: usize) -> Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let n = Arc::clone(names);
    conn.create_scalar_function(KEY_FN, parts as i32, flags, move |ctx| {
        let mut ids = [None; 4];
        for (i, id) in ids.iter_mut().enumerate().take(parts) {
            *id = ctx.get(i)?;
        }
        Ok(n.key(&ids[..parts]))
    })?;
    let n = Arc::clone(names);
    conn.create_scalar_function(RANK_FN, 1, flags, move |ctx| {
        Ok(n.names.rank(ctx.get(0)?) as i64)
    })?;
    Ok(())
}

fn unregister(conn: &Connection, parts: usize) -> Result<()> {
    conn.remove_function(KEY_FN, parts as i32)?;
    conn.remove_function(RANK_FN, 1)?;
    Ok(())
}

/// The columns read, over `finding_rows p`.
const COLUMNS: &str =
    "p.kind, p.catalogue, p.task_id, p.run_id, p.step, p.tool, p.detail, p.packed";

/// Calls `each` with every finding the filter selects (see
/// `findings::selected`), one at a time so that memory does not grow with
/// their number: `ordered`, by (kind, catalogue, task_id, run_id, step,
/// tool, detail) of their names, nulls first; else in storage order (for
/// measuring). SQLite sorts by all but the detail; each run of rows equal
/// on those is sorted here by its detail (as SQLite compares text: bytes).
pub fn for_each_stored(
    conn: &Connection,
    f: &Filter,
    names: &Arc<FindingNames>,
    ordered: bool,
    mut each: impl FnMut(StoredFinding) -> Result<()>,
) -> Result<()> {
    let parts = names.key_parts()?;
    let order = match (ordered, parts) {
        (false, _) => String::new(),
        (true, 4) => format!(
            "ORDER BY {KEY_FN}(p.kind, p.catalogue, p.task_id, p.run_id), p.step, {RANK_FN}(p.tool)"
        ),
        (true, _) => format!(
            "ORDER BY {KEY_FN}(p.kind, p.catalogue, p.task_id), {RANK_FN}(p.run_id), p.step, \
             {RANK_FN}(p.tool)"
        ),
    };
    if ordered {
        register(conn, names, parts)?;
    }
    let (sql, args) = if f.is_empty() {
        (
            format!("SELECT {COLUMNS} FROM finding_rows p {order}"),
            Vec::new(),
        )
    } else {
        selected_from(
            f,
            "findings x JOIN finding_rows p ON p.id = x.id",
            Among::Every,
            COLUMNS,
            &order,
        )
    };
    let read = read_rows(conn, &sql, args, names, ordered, &mut each);
    if ordered {
        unregister(conn, parts)?;
    }
    read
}

fn read_rows(
    conn: &Connection,
    sql: &str,
    args: Vec<rusqlite::types::Value>,
    names: &FindingNames,
    ordered: bool,
    each: &mut impl FnMut(StoredFinding) -> Result<()>,
) -> Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query(params_from_iter(args))?;
    let mut group: Vec<StoredFinding> = Vec::new();
    while let Some(r) = rows.next()? {
        let kind: i64 = r.get(0)?;
        if names.kinds.name(kind).is_none() {
            continue;
        }
        let tool = names.names.known(r.get(5)?);
        let detail = r.get_ref(6)?.as_str().map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e))
        })?;
        let packed = r.get::<_, Option<f64>>(7)?.is_some_and(|p| p != 0.0);
        let row = StoredFinding {
            kind,
            catalogue: names.catalogues.known(r.get(1)?),
            task_id: names.names.known(r.get(2)?),
            run_id: names.names.known(r.get(3)?),
            step: r.get(4)?,
            tool,
            detail: detail.to_string(),
            packed,
        };
        if !ordered {
            each(row)?;
            continue;
        }
        if group.first().is_some_and(|g| !same_but_detail(g, &row)) {
            flush_sorted(&mut group, names, each)?;
        }
        group.push(row);
    }
    flush_sorted(&mut group, names, each)
}

/// Equal but for the detail (names are unique: equal ids, equal names).
fn same_but_detail(a: &StoredFinding, b: &StoredFinding) -> bool {
    (a.kind, a.catalogue, a.task_id, a.run_id, a.step, a.tool)
        == (b.kind, b.catalogue, b.task_id, b.run_id, b.step, b.tool)
}

/// Hands on a run of rows equal but for the detail, by detail.
fn flush_sorted(
    group: &mut Vec<StoredFinding>,
    names: &FindingNames,
    each: &mut impl FnMut(StoredFinding) -> Result<()>,
) -> Result<()> {
    if group.len() > 1 {
        // (A String's order is its bytes'.)
        group.sort_by_cached_key(|r| r.detail(names).into_owned());
    }
    for row in group.drain(..) {
        each(row)?;
    }
    Ok(())
}

/// [`for_each_stored`] with each finding's names spelt out.
pub fn for_each_finding(
    conn: &Connection,
    f: &Filter,
    ordered: bool,
    mut each: impl FnMut(FindingRow) -> Result<()>,
) -> Result<()> {
    let names = Arc::new(FindingNames::load(conn)?);
    for_each_stored(conn, f, &names, ordered, |s| each(names.row(&s)))
}

/// Every finding the filter selects, in order, in memory
/// ([`for_each_finding`] streams them).
pub fn findings(conn: &Connection, f: &Filter) -> Result<Vec<FindingRow>> {
    let mut out = Vec::new();
    for_each_finding(conn, f, true, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FindingKind;
    use crate::store::findings::insert_finding;

    /// Findings whose names were stored in the reverse of their order (so
    /// ids and names sort differently), with no catalogue, task, run, step
    /// or tool, packed details, and rows equal but for the detail.
    #[test]
    fn the_list_comes_in_the_order_of_the_view() {
        let store = crate::store::Store::open_rw(std::path::Path::new(":memory:")).unwrap();
        let conn = &store.conn;
        type Finding<'a> = (
            FindingKind,
            Option<&'a str>,
            Option<&'a str>,
            Option<&'a str>,
            Option<i64>,
            Option<&'a str>,
            &'a str,
        );
        let schema = "the arguments of zeta fail its schema: /id: required: missing";
        let list: [Finding; 10] = [
            (
                FindingKind::UnsourcedId,
                Some("c2"),
                Some("t-2"),
                Some("r-c"),
                Some(3),
                Some("zeta"),
                "z",
            ),
            (
                FindingKind::UnsourcedId,
                Some("c2"),
                Some("t-2"),
                Some("r-c"),
                Some(3),
                Some("zeta"),
                "b",
            ),
            (
                FindingKind::UnsourcedId,
                Some("c2"),
                Some("t-2"),
                Some("r-c"),
                Some(3),
                Some("zeta"),
                "a",
            ),
            (
                FindingKind::SchemaViolation,
                Some("c2"),
                Some("t-1"),
                Some("r-b"),
                Some(10),
                Some("zeta"),
                schema,
            ),
            (
                FindingKind::SchemaViolation,
                Some("c2"),
                Some("t-1"),
                Some("r-b"),
                Some(2),
                Some("alpha"),
                schema,
            ),
            (
                FindingKind::SchemaViolation,
                Some("c1"),
                Some("t-1"),
                Some("r-a"),
                None,
                Some("alpha"),
                "x",
            ),
            (
                FindingKind::MissingOutput,
                Some("c1"),
                Some("t-2"),
                Some("r-a"),
                None,
                None,
                "no answer",
            ),
            (
                FindingKind::DescriptionDrift,
                Some("c1"),
                None,
                None,
                None,
                Some("zeta"),
                "hash a → b",
            ),
            (
                FindingKind::DescriptionDrift,
                None,
                None,
                None,
                None,
                Some("alpha"),
                "hash",
            ),
            (
                FindingKind::MenuChanged,
                Some("c2"),
                Some("t-1"),
                Some("r-b"),
                Some(-1),
                None,
                "the visible menu changed 2 times within the run; first here, after step 1",
            ),
        ];
        for (kind, catalogue, task, run, step, tool, detail) in list {
            insert_finding(conn, kind, catalogue, task, run, step, tool, detail).unwrap();
        }
        let packed: i64 = conn
            .query_row("SELECT sum(packed) FROM finding_rows", [], |r| r.get(0))
            .unwrap();
        assert_eq!(packed, 10);
        let view: Vec<FindingRow> = conn
            .prepare(
                "SELECT kind, catalogue, task_id, run_id, step, tool, detail FROM findings
                 ORDER BY kind, catalogue, task_id, run_id, step, tool, detail",
            )
            .unwrap()
            .query_map([], |r| {
                Ok(FindingRow {
                    kind: r.get(0)?,
                    catalogue: r.get(1)?,
                    task_id: r.get(2)?,
                    run_id: r.get(3)?,
                    step: r.get(4)?,
                    tool: r.get(5)?,
                    detail: r.get(6)?,
                })
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let listed = findings(conn, &Filter::default()).unwrap();
        assert_eq!(listed, view);
        assert_eq!(listed.len(), 10);
        assert_eq!(
            listed
                .iter()
                .map(|f| (f.kind.as_str(), f.detail.as_str()))
                .take(5)
                .collect::<Vec<_>>(),
            [
                ("description_drift", "hash"),
                ("description_drift", "hash a → b"),
                ("menu_changed", list[9].6),
                ("missing_output", "no answer"),
                ("schema_violation", "x"),
            ]
        );
        assert_eq!(
            listed[7..]
                .iter()
                .map(|f| f.detail.as_str())
                .collect::<Vec<_>>(),
            ["a", "b", "z"]
        );
        // Storage order, unsorted, for measuring: the same findings.
        let mut stored = Vec::new();
        let names = Arc::new(FindingNames::load(conn).unwrap());
        for_each_stored(conn, &Filter::default(), &names, false, |s| {
            stored.push(names.row(&s));
            Ok(())
        })
        .unwrap();
        assert_eq!(stored.len(), 10);
        assert_eq!(stored[0].detail, "z");
    }
}
