//! Selection and scrolling over lists: `Cursor` for lists held whole in
//! memory, `Paged` for lists read from SQLite a page at a time (keyset
//! paging), holding a bounded window of rows around the selection.

use crate::store::browse::{Anchor, Key, Page};

/// Selection and first visible row of a list of `len` rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub sel: usize,
    pub top: usize,
}

impl Cursor {
    /// Moves by `delta` rows within `len`, keeping the selection visible in
    /// `height` rows.
    pub fn move_by(&mut self, delta: isize, len: usize, height: usize) {
        if len == 0 {
            *self = Cursor::default();
            return;
        }
        self.sel = (self.sel as isize + delta).clamp(0, len as isize - 1) as usize;
        self.fit(len, height);
    }

    pub fn to(&mut self, index: usize, len: usize, height: usize) {
        self.sel = index.min(len.saturating_sub(1));
        self.fit(len, height);
    }

    /// Keeps `sel` inside `[top, top + height)`.
    pub fn fit(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        self.sel = self.sel.min(len.saturating_sub(1));
        if self.sel < self.top {
            self.top = self.sel;
        } else if self.sel >= self.top + height {
            self.top = self.sel + 1 - height;
        }
        self.top = self.top.min(len.saturating_sub(height)).min(self.sel);
    }

    /// The first visible row when `height` rows show (never hides `sel`).
    pub fn visible_top(&self, height: usize) -> usize {
        let height = height.max(1);
        if self.sel < self.top {
            self.sel
        } else if self.sel >= self.top + height {
            self.sel + 1 - height
        } else {
            self.top
        }
    }
}

/// Rows kept around the selection at most; pages beyond are dropped and
/// read again when the user comes back.
pub const WINDOW: usize = 500;
/// Rows from the edge of the window at which the next page is requested.
const PREFETCH: usize = 60;

/// A window onto a keyset-paged list.
#[derive(Debug, Clone)]
pub struct Paged<T> {
    pub rows: Vec<(Key, T)>,
    pub cursor: Cursor,
    /// The absolute index of `rows[0]`, when known.
    pub offset: Option<u64>,
    pub total: Option<u64>,
    pub more_before: bool,
    pub more_after: bool,
    /// A page request is in flight (the first load included).
    pub loading: bool,
    /// The first page has arrived.
    pub loaded: bool,
    /// Why the last page request failed (shown until a page arrives).
    pub error: Option<String>,
    /// Movement asked for beyond the rows held, applied when they arrive.
    pending: isize,
}

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Paged {
            rows: Vec::new(),
            cursor: Cursor::default(),
            offset: None,
            total: None,
            more_before: false,
            more_after: false,
            loading: false,
            loaded: false,
            error: None,
            pending: 0,
        }
    }
}

impl<T> Paged<T> {
    /// Forgets every row; the caller requests the anchor it returns.
    pub fn reset(&mut self, anchor: Anchor) -> Anchor {
        *self = Paged::default();
        self.loading = true;
        anchor
    }

    pub fn selected(&self) -> Option<&T> {
        self.rows.get(self.cursor.sel).map(|(_, t)| t)
    }

    /// The selection's absolute position (0-based), when known.
    pub fn position(&self) -> Option<u64> {
        self.offset.map(|o| o + self.cursor.sel as u64)
    }

    /// Moves the selection; returns the page to request, if one is needed.
    pub fn move_by(&mut self, delta: isize, height: usize) -> Option<Anchor> {
        let len = self.rows.len();
        if len == 0 {
            return None;
        }
        let want = self.cursor.sel as isize + delta;
        if want >= len as isize && self.more_after {
            self.pending = want - (len as isize - 1);
        } else if want < 0 && self.more_before {
            self.pending = want;
        } else {
            self.pending = 0;
        }
        self.cursor.move_by(delta, len, height);
        self.prefetch()
    }

    fn prefetch(&mut self) -> Option<Anchor> {
        if self.loading || self.rows.is_empty() {
            return None;
        }
        let sel = self.cursor.sel;
        if self.more_after && (self.rows.len() - sel <= PREFETCH || self.pending > 0) {
            self.loading = true;
            return Some(Anchor::After(self.rows.last()?.0.clone()));
        }
        if self.more_before && (sel < PREFETCH || self.pending < 0) {
            self.loading = true;
            return Some(Anchor::Before(self.rows.first()?.0.clone()));
        }
        None
    }

    /// The page request failed: nothing more is coming for it.
    pub fn fail(&mut self, e: String) {
        self.loading = false;
        self.error = Some(e);
    }

    /// Takes in a page answering `anchor`; returns a further page to request
    /// when the selection still sits near an edge.
    pub fn apply(&mut self, anchor: &Anchor, page: Page<T>, height: usize) -> Option<Anchor> {
        self.loading = false;
        self.loaded = true;
        self.error = None;
        if page.total.is_some() {
            self.total = page.total;
        }
        match anchor {
            Anchor::First | Anchor::Last | Anchor::Around(_) => {
                let len = page.rows.len();
                self.rows = page.rows;
                self.offset = page.before;
                self.more_before = page.more_before;
                self.more_after = page.more_after;
                let sel = match anchor {
                    Anchor::First => 0,
                    Anchor::Last => len.saturating_sub(1),
                    _ => page.focus.unwrap_or(0).min(len.saturating_sub(1)),
                };
                self.cursor = Cursor { sel, top: 0 };
                if matches!(anchor, Anchor::Around(_)) {
                    // Show the focus in the middle of the screen.
                    self.cursor.top = sel.saturating_sub(height / 2);
                }
                self.pending = 0;
            }
            Anchor::After(_) => {
                self.more_after = page.more_after;
                self.rows.extend(page.rows);
                if self.pending > 0 {
                    self.cursor.sel += self.pending as usize;
                    self.pending = 0;
                }
                if self.rows.len() > WINDOW {
                    let drop = self.rows.len() - WINDOW;
                    let drop = drop.min(self.cursor.sel.saturating_sub(height));
                    self.rows.drain(..drop);
                    self.cursor.sel -= drop;
                    self.cursor.top = self.cursor.top.saturating_sub(drop);
                    self.offset = self.offset.map(|o| o + drop as u64);
                    if drop > 0 {
                        self.more_before = true;
                    }
                }
            }
            Anchor::Before(_) => {
                self.more_before = page.more_before;
                let n = page.rows.len();
                let mut rows = page.rows;
                rows.append(&mut self.rows);
                self.rows = rows;
                self.cursor.sel += n;
                self.cursor.top += n;
                self.offset = self.offset.map(|o| o.saturating_sub(n as u64));
                if self.pending < 0 {
                    self.cursor.sel = (self.cursor.sel as isize + self.pending).max(0) as usize;
                    self.pending = 0;
                }
                if self.rows.len() > WINDOW {
                    let keep = WINDOW.max(self.cursor.sel + height + 1);
                    if self.rows.len() > keep {
                        self.rows.truncate(keep);
                        self.more_after = true;
                    }
                }
            }
        }
        self.cursor.fit(self.rows.len(), height);
        self.prefetch()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::types::Value;

    fn page(from: i64, n: i64, more_before: bool, more_after: bool) -> Page<i64> {
        Page {
            rows: (from..from + n)
                .map(|i| ((Value::Integer(i), Value::Integer(i)), i))
                .collect(),
            before: None,
            total: None,
            more_before,
            more_after,
            focus: None,
        }
    }

    #[test]
    fn pages_forward_and_keeps_a_bounded_window() {
        let mut p: Paged<i64> = Paged::default();
        let a = p.reset(Anchor::First);
        let mut first = page(0, 100, false, true);
        first.before = Some(0);
        assert!(p.apply(&a, first, 20).is_none());
        // Moving near the end asks for the next page after the last key.
        let next = p.move_by(50, 20).expect("prefetch");
        assert_eq!(
            next,
            Anchor::After((Value::Integer(99), Value::Integer(99)))
        );
        assert!(p.move_by(1, 20).is_none(), "one request at a time");
        let mut at = 100;
        let mut req = Some(next);
        for _ in 0..10 {
            let a = req.take().expect("a page was asked for");
            let r1 = p.apply(&a, page(at, 100, true, true), 20);
            at += 100;
            let r2 = p.move_by(100, 20);
            req = r1.or(r2);
            assert!(p.rows.len() <= WINDOW + 100);
        }
        assert_eq!(p.position(), Some(*p.selected().unwrap() as u64));
    }
}
