//! The scans a newer request can cancel: the fuzzy filter over every run of
//! the filter, and the walk to a payload's last chunk. Each checks
//! `cancelled` as it goes and returns `None` when it stopped.

use std::ops::ControlFlow;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::request::{FUZZY_KEEP, FuzzyResult};
use crate::error::Result;
use crate::filter::Filter;
use crate::redact::Redactor;
use crate::store::browse::{self, PayloadColumn};
use crate::store::query::RunRow;
use crate::tui::payload::{self, Indent};

pub(super) fn seek(
    conn: &rusqlite::Connection,
    redactor: &Redactor,
    id: i64,
    column: PayloadColumn,
    from: (u64, Indent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Vec<(u64, Indent)>>> {
    let reader = browse::PayloadReader::open(conn, id, column)?;
    let total = reader.len();
    let (mut start, mut state) = from;
    let mut out = vec![from];
    loop {
        if cancelled() {
            return Ok(None);
        }
        let buf = reader.read(start, payload::READ)?;
        let (len, end) = payload::chunk_len(&buf, state, redactor);
        if len == 0 || start + len as u64 >= total {
            return Ok(Some(out));
        }
        start += len as u64;
        state = end;
        out.push((start, state));
    }
}

/// Every run in the filter whose id, task, goal or model matches each word
/// of `pattern` (skim's fuzzy matcher); the best `FUZZY_KEEP`, best first.
pub(super) fn fuzzy(
    conn: &rusqlite::Connection,
    f: &Filter,
    pattern: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<FuzzyResult>> {
    let matcher = SkimMatcherV2::default().smart_case();
    let terms: Vec<&str> = pattern.split_whitespace().collect();
    let lowered: Vec<Vec<char>> = terms
        .iter()
        .map(|t| t.to_lowercase().chars().collect())
        .collect();
    let mut best: Vec<(i64, RunRow)> = Vec::new();
    let mut matched = 0u64;
    let mut seen = 0u64;
    let mut abandoned = false;
    let mut hay = String::new();
    browse::scan_runs(conn, f, &mut |t| {
        seen += 1;
        if seen.is_multiple_of(2048) && cancelled() {
            abandoned = true;
            return ControlFlow::Break(());
        }
        let fields = [
            Some(t.row.run_id.as_str()),
            t.row.task_id.as_deref(),
            t.row.model.as_deref(),
            t.goal.as_deref(),
        ];
        hay.clear();
        for s in fields.iter().flatten() {
            hay.extend(s.chars().flat_map(char::to_lowercase));
            hay.push('\u{0}');
        }
        let mut score = 0i64;
        for (term, low) in terms.iter().zip(&lowered) {
            // Cheap in-order check first; the scorer only sees candidates.
            let mut it = hay.chars();
            if !low.iter().all(|c| it.any(|h| h == *c)) {
                return ControlFlow::Continue(());
            }
            let Some(s) = fields
                .iter()
                .flatten()
                .filter_map(|s| matcher.fuzzy_match(s, term))
                .max()
            else {
                return ControlFlow::Continue(());
            };
            score += s;
        }
        matched += 1;
        best.push((score, t.row));
        if best.len() >= FUZZY_KEEP * 2 {
            sort_best(&mut best);
            best.truncate(FUZZY_KEEP);
        }
        ControlFlow::Continue(())
    })?;
    if abandoned {
        return Ok(None);
    }
    sort_best(&mut best);
    best.truncate(FUZZY_KEEP);
    Ok(Some(FuzzyResult {
        pattern: pattern.to_string(),
        rows: best.into_iter().map(|(_, r)| r).collect(),
        matched,
    }))
}

fn sort_best(v: &mut [(i64, RunRow)]) {
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.run_id.cmp(&b.1.run_id)));
}
