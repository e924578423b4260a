//! Sort and search over a list held whole in memory (issue 16), one helper
//! for every such table (Ladder rungs, Refusals, Confusions cells, Findings
//! kinds, Tools, Compare cells and menus): `s` cycles the sorted column,
//! `S` reverses it, `/` marks the rows that contain the text and `n`/`N`
//! move between them; the selected row stays selected through a sort.

use crate::find;
use crate::tui::paged::Cursor;

/// A value a column sorts by.
#[derive(Debug, Clone, PartialEq)]
pub enum SortKey {
    Num(f64),
    Text(String),
}

impl SortKey {
    /// Text sorts in any case; numbers by value; a number before text.
    fn cmp(&self, other: &SortKey) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (self, other) {
            (SortKey::Num(a), SortKey::Num(b)) => a.total_cmp(b),
            (SortKey::Text(a), SortKey::Text(b)) => a.to_lowercase().cmp(&b.to_lowercase()),
            (SortKey::Num(_), SortKey::Text(_)) => Ordering::Less,
            (SortKey::Text(_), SortKey::Num(_)) => Ordering::Greater,
        }
    }
}

/// A row of a table `TableView` sorts and searches.
pub trait Listed {
    /// The columns `s` cycles through, named as the header names them.
    const COLUMNS: &'static [&'static str];
    /// The row's value in column `col` of [`Listed::COLUMNS`].
    fn key(&self, col: usize) -> SortKey;
    /// Every field `/` looks in, shown or not: (name, text).
    fn fields(&self) -> Vec<(&'static str, String)>;
}

/// How a table is shown: its sort, its search and the order that makes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableView {
    /// The sorted column (an index into [`Listed::COLUMNS`]); `None`: the
    /// list's own order.
    pub sort: Option<usize>,
    pub desc: bool,
    /// The text `/` looks for, as typed.
    pub find: String,
    /// `/` is being typed.
    pub typing: bool,
    /// The rows in the order shown (indices into the data).
    pub order: Vec<usize>,
    /// The positions (in `order`) of the rows that match `find`.
    pub hits: Vec<usize>,
}

impl TableView {
    /// The search as rows are compared with it (empty: none).
    pub fn pattern(&self) -> String {
        find::pattern(&self.find)
    }

    /// The data index of the row shown at `pos` (the list's own order
    /// until the rows are first ordered).
    pub fn at(&self, pos: usize) -> usize {
        if self.order.is_empty() {
            pos
        } else {
            self.order.get(pos).copied().unwrap_or(pos)
        }
    }

    /// The data index of the row under `cursor`.
    pub fn selected(&self, cursor: &Cursor) -> Option<usize> {
        if self.order.is_empty() {
            return Some(cursor.sel);
        }
        self.order.get(cursor.sel).copied()
    }

    /// Whether the row shown at `pos` matches the search.
    pub fn is_hit(&self, pos: usize) -> bool {
        self.hits.binary_search(&pos).is_ok()
    }

    /// The header's name of column `col`, with an arrow when it is sorted.
    pub fn head(&self, columns: &[&str], col: usize) -> String {
        let name = columns.get(col).copied().unwrap_or("");
        if self.sort == Some(col) {
            format!("{name} {}", if self.desc { "↓" } else { "↑" })
        } else {
            name.to_string()
        }
    }

    /// What the sort is, for a title: `sorted by count ↓`, or nothing in the
    /// list's own order.
    pub fn sorted_by(&self, columns: &[&str]) -> Option<String> {
        sorted_by(columns, self.sort, self.desc)
    }

    /// Orders `rows` again (the data or the sort changed), keeping the row
    /// under `cursor` selected when it is still there.
    pub fn refresh<T: Listed>(&mut self, rows: &[T], cursor: &mut Cursor, height: usize) {
        let keep = self.selected(cursor);
        let mut order: Vec<usize> = (0..rows.len()).collect();
        if let Some(col) = self.sort.filter(|c| *c < T::COLUMNS.len()) {
            let keys: Vec<SortKey> = rows.iter().map(|r| r.key(col)).collect();
            order.sort_by(|&a, &b| {
                let o = keys[a].cmp(&keys[b]);
                // Ties keep the list's order either way.
                (if self.desc { o.reverse() } else { o }).then(a.cmp(&b))
            });
        } else if self.desc {
            order.reverse();
        }
        self.order = order;
        self.mark(rows);
        match keep.and_then(|k| self.order.iter().position(|&i| i == k)) {
            Some(p) => cursor.to(p, self.order.len(), height),
            None => cursor.fit(self.order.len(), height),
        }
    }

    /// Finds the matches again (the search changed).
    fn mark<T: Listed>(&mut self, rows: &[T]) {
        let pat = self.pattern();
        self.hits = if pat.is_empty() {
            Vec::new()
        } else {
            self.order
                .iter()
                .enumerate()
                .filter(|(_, i)| {
                    rows[**i]
                        .fields()
                        .iter()
                        .any(|(_, v)| find::contains(v, &pat))
                })
                .map(|(p, _)| p)
                .collect()
        };
    }

    /// `s`: the next column (after the last, the list's own order).
    pub fn cycle<T: Listed>(&mut self, rows: &[T], cursor: &mut Cursor, height: usize) {
        self.sort = match self.sort {
            None if !T::COLUMNS.is_empty() => Some(0),
            Some(c) if c + 1 < T::COLUMNS.len() => Some(c + 1),
            _ => None,
        };
        self.refresh(rows, cursor, height);
    }

    /// `S`: the other direction.
    pub fn reverse<T: Listed>(&mut self, rows: &[T], cursor: &mut Cursor, height: usize) {
        self.desc = !self.desc;
        self.refresh(rows, cursor, height);
    }

    /// The search text changed: marks the matches and selects the first at
    /// or after the selection (the first of all when none follows).
    pub fn search<T: Listed>(&mut self, rows: &[T], cursor: &mut Cursor, height: usize) {
        self.mark(rows);
        let at = cursor.sel;
        if let Some(p) = self.hits.iter().find(|&&p| p >= at).or(self.hits.first()) {
            cursor.to(*p, self.order.len(), height);
        }
    }

    /// `n`/`N`: selects the next (previous) match, wrapping around; false
    /// when nothing matches.
    pub fn step(&self, cursor: &mut Cursor, forward: bool, height: usize) -> bool {
        let at = cursor.sel;
        let next = if forward {
            self.hits.iter().find(|&&p| p > at).or(self.hits.first())
        } else {
            self.hits
                .iter()
                .rev()
                .find(|&&p| p < at)
                .or(self.hits.last())
        };
        match next {
            Some(&p) => {
                cursor.to(p, self.order.len(), height);
                true
            }
            None => false,
        }
    }

    /// Which match the selection is (1-based), when it is one.
    pub fn hit_index(&self, cursor: &Cursor) -> Option<usize> {
        self.hits.binary_search(&cursor.sel).ok().map(|i| i + 1)
    }

    /// The fields of `row` that match but are not among `shown`.
    pub fn hidden_matches<T: Listed>(&self, row: &T, shown: &[&str]) -> Vec<&'static str> {
        out_of_sight(row, &self.pattern(), shown)
    }

    /// Clears the search; true when there was one.
    pub fn clear_find(&mut self) -> bool {
        self.typing = false;
        if self.find.is_empty() {
            return false;
        }
        self.find.clear();
        self.hits.clear();
        true
    }
}

/// The fields of `row` that contain `pat` (a [`find::pattern`]) but are
/// not among `shown`: what a row that matched out of sight says.
pub fn out_of_sight<T: Listed>(row: &T, pat: &str, shown: &[&str]) -> Vec<&'static str> {
    if pat.is_empty() {
        return Vec::new();
    }
    let fields = row.fields();
    let as_ref: Vec<(&'static str, Option<&str>)> =
        fields.iter().map(|(k, v)| (*k, Some(v.as_str()))).collect();
    find::found_in(&as_ref, pat)
        .into_iter()
        .filter(|f| !shown.contains(f))
        .collect()
}

/// The rows a list narrowed by a fuzzy find shows (Tools, the Compare
/// menus): the matches best first, or in `view`'s sort when one is chosen;
/// every row in `view`'s order without a find.
/// [`TableView::sorted_by`] for a list sorted by the store (its own
/// column and direction).
pub fn sorted_by(columns: &[&str], sort: Option<usize>, desc: bool) -> Option<String> {
    let c = columns.get(sort?)?;
    Some(format!("sorted by {c} {}", if desc { "↓" } else { "↑" }))
}

pub fn narrowed(matches: &Option<Vec<usize>>, view: &TableView, len: usize) -> Vec<usize> {
    let all = || -> Vec<usize> {
        if view.order.len() == len {
            view.order.clone()
        } else {
            (0..len).collect()
        }
    };
    match matches {
        None => all(),
        Some(m) if view.sort.is_none() => m.clone(),
        Some(m) => {
            let keep: std::collections::HashSet<usize> = m.iter().copied().collect();
            all().into_iter().filter(|i| keep.contains(i)).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct R(&'static str, u64, &'static str);
    impl Listed for R {
        const COLUMNS: &'static [&'static str] = &["name", "count"];
        fn key(&self, col: usize) -> SortKey {
            match col {
                0 => SortKey::Text(self.0.into()),
                _ => SortKey::Num(self.1 as f64),
            }
        }
        fn fields(&self) -> Vec<(&'static str, String)> {
            vec![("name", self.0.into()), ("note", self.2.into())]
        }
    }

    #[test]
    fn sorting_keeps_the_selection_and_search_marks_matches() {
        let rows = [R("b", 5, ""), R("a", 7, "x"), R("c", 1, "")];
        let mut v = TableView::default();
        let mut cur = Cursor::default();
        v.refresh(&rows, &mut cur, 10);
        assert_eq!(v.order, vec![0, 1, 2]);
        cur.to(1, 3, 10); // "a"
        v.cycle(&rows, &mut cur, 10);
        assert_eq!(v.order, vec![1, 0, 2]);
        assert_eq!(v.selected(&cur), Some(1));
        assert_eq!(v.head(R::COLUMNS, 0), "name ↑");
        v.cycle(&rows, &mut cur, 10);
        v.reverse(&rows, &mut cur, 10);
        assert_eq!(v.order, vec![1, 0, 2]);
        assert_eq!(v.head(R::COLUMNS, 1), "count ↓");
        v.cycle(&rows, &mut cur, 10);
        assert_eq!(v.sort, None);
        v.find = "X".into();
        v.search(&rows, &mut cur, 10);
        assert_eq!(v.hits.len(), 1);
        assert_eq!(v.hidden_matches(&rows[1], &["name"]), vec!["note"]);
        assert!(v.step(&mut cur, true, 10));
        assert_eq!(v.hit_index(&cur), Some(1));
    }
}
