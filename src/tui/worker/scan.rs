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

/// At most this many chunks are read and cut where the structure allows
/// before their cuts are checked for secrets, on two threads (a chunk's
/// check needs only its own bytes): 32 of 96 KB. A batch whose cut moves
/// wasted the chunks read past it, so the next is half as large (at least
/// 2), and one that did not twice as large.
const SEEK_BATCH: usize = 32;

/// A chunk of the walk, cut where the structure allows.
struct Speculated {
    start: u64,
    state: Indent,
    bytes: Vec<u8>,
    cut: (usize, Indent),
}

/// The stops of the walk from `from` to the payload's last chunk: the
/// chunks [`payload::chunk_len`] cuts one after another. The cuts are made
/// a batch at a time where the structure allows, then each checked for a
/// secret it would split, half of the batch on another thread (the checks
/// are most of the walk's work); a cut that moves ends the batch there,
/// and the next batch starts from it ([`SEEK_BATCH`]).
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
    let mut batch: Vec<Speculated> = Vec::with_capacity(SEEK_BATCH);
    let mut size = SEEK_BATCH;
    loop {
        batch.clear();
        let (mut at, mut st) = (start, state);
        while batch.len() < size {
            if cancelled() {
                return Ok(None);
            }
            let buf = reader.read(at, payload::READ)?;
            let cut = payload::structural_len(&buf, st);
            let last = cut.0 == 0 || at + cut.0 as u64 >= total;
            let next = (at + cut.0 as u64, cut.1);
            batch.push(Speculated {
                start: at,
                state: st,
                bytes: buf,
                cut,
            });
            if last {
                break;
            }
            (at, st) = next;
        }
        let check = |part: &[Speculated]| -> Vec<(usize, Indent)> {
            part.iter()
                .map(|c| payload::out_of_secrets(&c.bytes, c.state, c.cut, redactor))
                .collect()
        };
        let (first, second) = batch.split_at(batch.len() / 2);
        let cuts: Vec<(usize, Indent)> = std::thread::scope(|s| {
            let other = s.spawn(|| check(second));
            let mut cuts = check(first);
            cuts.extend(
                other
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            );
            cuts
        });
        size = (size * 2).min(SEEK_BATCH);
        for (c, (len, end)) in batch.iter().zip(cuts) {
            if len == 0 || c.start + len as u64 >= total {
                return Ok(Some(out));
            }
            start = c.start + len as u64;
            state = end;
            out.push((start, state));
            if len != c.cut.0 {
                // The cut moved: the rest of the batch started elsewhere.
                size = (size / 4).max(2);
                break;
            }
        }
    }
}

/// Every run in the filter whose id, task, goal or model holds each word of
/// `pattern` as written (case aside); when no run does, every run whose
/// fields match each word loosely (skim's fuzzy matcher, letters in order).
/// The best `FUZZY_KEEP`, best first, each with why it matched.
pub(super) fn fuzzy(
    conn: &rusqlite::Connection,
    f: &Filter,
    pattern: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<FuzzyResult>> {
    let matcher = SkimMatcherV2::default().smart_case();
    let terms: Vec<&str> = pattern.split_whitespace().collect();
    let lowered: Vec<String> = terms.iter().map(|t| t.to_lowercase()).collect();
    let low_chars: Vec<Vec<char>> = lowered.iter().map(|t| t.chars().collect()).collect();
    // (score, row, why) of exact and of loose matches.
    let mut exact: Vec<(i64, RunRow, String)> = Vec::new();
    let mut loose: Vec<(i64, RunRow, String)> = Vec::new();
    let (mut n_exact, mut n_loose) = (0u64, 0u64);
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
            ("run", Some(t.row.run_id.as_str())),
            ("task", t.row.task_id.as_deref()),
            ("model", t.row.model.as_deref()),
            ("goal", t.goal.as_deref()),
        ];
        // Exact: every word inside some field; why names the first word's.
        let found: Option<Vec<(usize, usize, usize)>> = lowered
            .iter()
            .map(|low| {
                fields.iter().enumerate().find_map(|(k, (_, s))| {
                    let s = (*s)?;
                    let at = s.to_lowercase().find(low.as_str())?;
                    Some((k, at, low.len()))
                })
            })
            .collect();
        if let Some(found) = found {
            n_exact += 1;
            let (k, at, len) = found[0];
            let (name, s) = fields[k];
            let why = format!("{name}: {}", excerpt(s.unwrap_or(""), at, at + len));
            // Shorter fields first: the word is more of what they say.
            let score = -(found
                .iter()
                .map(|(k, ..)| fields[*k].1.map_or(0, str::len) as i64))
            .sum::<i64>();
            keep(&mut exact, (score, t.row, why));
            return ControlFlow::Continue(());
        }
        if n_exact > 0 {
            return ControlFlow::Continue(());
        }
        hay.clear();
        for (_, s) in fields.iter() {
            if let Some(s) = s {
                hay.extend(s.chars().flat_map(char::to_lowercase));
                hay.push('\u{0}');
            }
        }
        let mut score = 0i64;
        let mut why = String::new();
        for (term, low) in terms.iter().zip(&low_chars) {
            // Cheap in-order check first; the scorer only sees candidates.
            let mut it = hay.chars();
            if !low.iter().all(|c| it.any(|h| h == *c)) {
                return ControlFlow::Continue(());
            }
            let Some((s, k, idx)) = fields
                .iter()
                .enumerate()
                .filter_map(|(k, (_, s))| {
                    let (s, idx) = matcher.fuzzy_indices((*s)?, term)?;
                    Some((s, k, idx))
                })
                .max_by_key(|(s, ..)| *s)
            else {
                return ControlFlow::Continue(());
            };
            score += s;
            if why.is_empty() {
                let (name, text) = fields[k];
                let text = text.unwrap_or("");
                // Character indices to byte offsets.
                let byte = |ci: usize| text.char_indices().nth(ci).map_or(text.len(), |(b, _)| b);
                let first = idx.first().copied().unwrap_or(0);
                let last = idx.last().copied().unwrap_or(0);
                let end = byte(last) + text[byte(last)..].chars().next().map_or(0, char::len_utf8);
                why = format!("{name} (loosely): {}", excerpt(text, byte(first), end));
            }
        }
        n_loose += 1;
        keep(&mut loose, (score, t.row, why));
        ControlFlow::Continue(())
    })?;
    if abandoned {
        return Ok(None);
    }
    let (mut best, matched, exact) = if n_exact > 0 {
        (exact, n_exact, true)
    } else {
        (loose, n_loose, false)
    };
    sort_best(&mut best);
    best.truncate(FUZZY_KEEP);
    let why = best
        .iter()
        .map(|(_, r, w)| (r.run_id.clone(), w.clone()))
        .collect();
    Ok(Some(FuzzyResult {
        pattern: pattern.to_string(),
        rows: best.into_iter().map(|(_, r, _)| r).collect(),
        matched,
        why,
        exact,
    }))
}

/// Adds a match, keeping the best `FUZZY_KEEP` (in bounded memory).
fn keep(v: &mut Vec<(i64, RunRow, String)>, m: (i64, RunRow, String)) {
    v.push(m);
    if v.len() >= FUZZY_KEEP * 2 {
        sort_best(v);
        v.truncate(FUZZY_KEEP);
    }
}

/// The part of `s` around bytes `[from, to)`, about 60 characters, cut
/// with `…` where it does not start or end.
fn excerpt(s: &str, from: usize, to: usize) -> String {
    const AROUND: usize = 20;
    let before: Vec<char> = s[..from].chars().collect();
    let start = before.len().saturating_sub(AROUND);
    let head: String = before[start..].iter().collect();
    let mid = &s[from..to];
    let after: String = s[to..]
        .chars()
        .take(
            60usize
                .saturating_sub(AROUND + mid.chars().count())
                .max(AROUND),
        )
        .collect();
    let cut_after = after.chars().count() < s[to..].chars().count();
    format!(
        "{}{head}{mid}{after}{}",
        if start > 0 { "…" } else { "" },
        if cut_after { "…" } else { "" }
    )
}

fn sort_best(v: &mut [(i64, RunRow, String)]) {
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.run_id.cmp(&b.1.run_id)));
}
