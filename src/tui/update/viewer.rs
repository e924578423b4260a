//! The Run screen's payload viewer: a large argument, result or raw output
//! read a chunk at a time around the scroll position (at most three chunks
//! held), with checkpoints so that any chunk can be read again.

use crate::store::browse::PayloadColumn;
use crate::tui::layout;
use crate::tui::payload::Indent;
use crate::tui::state::{App, Viewer};
use crate::tui::worker::{Chunk, Request, Slot};

/// Opens the viewer on `column` of the selected decision.
pub(super) fn open(app: &mut App, column: PayloadColumn) {
    let Some(d) = app.selected_detail().cloned() else {
        return;
    };
    let total = match column {
        PayloadColumn::Arguments => d.detail.arguments_bytes,
        PayloadColumn::Result => d.detail.result_bytes,
        PayloadColumn::Raw => d.detail.raw_bytes,
    };
    if total.is_none() {
        app.status = Some(format!("this decision recorded no {}", column.as_str()));
        return;
    }
    let id = d.detail.decision_id;
    app.run.viewer = Some(Viewer::new(id, column, total));
    app.run.focus_detail = true;
    app.request(
        Slot::Payload,
        Request::Payload {
            decision_id: id,
            column,
            start: 0,
            state: Indent::default(),
        },
    );
}

fn request(app: &mut App, start: u64, state: Indent) {
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    v.loading = true;
    v.error = None;
    let (decision_id, column) = (v.decision_id, v.column);
    app.request(
        Slot::Payload,
        Request::Payload {
            decision_id,
            column,
            start,
            state,
        },
    );
}

/// Scrolls the payload viewer, reading neighbouring chunks as needed.
pub(super) fn scroll(app: &mut App, delta: isize) {
    let h = app.height(layout::List::Detail);
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    let len = v.len();
    v.scroll = (v.scroll as isize + delta).clamp(0, len.saturating_sub(1) as isize) as usize;
    if v.loading {
        return;
    }
    let next = v
        .chunks
        .back()
        .filter(|c| c.end < c.total && v.scroll + 2 * h >= len)
        .map(|c| (c.end, c.end_state));
    let prev = v
        .chunks
        .front()
        .filter(|c| c.start > 0 && v.scroll < h)
        .and_then(|c| {
            v.checkpoints
                .iter()
                .rev()
                .find(|(at, _)| *at < c.start)
                .copied()
        });
    if let Some((s, st)) = next {
        request(app, s, st);
    } else if let Some((s, st)) = prev {
        request(app, s, st);
    }
}

pub(super) fn top(app: &mut App) {
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    v.scroll = 0;
    if v.chunks.front().is_some_and(|c| c.start > 0) {
        v.want_bottom = false;
        request(app, 0, Indent::default());
    }
}

/// Goes to the end: the worker finds the last chunks' starts first.
pub(super) fn bottom(app: &mut App) {
    let h = app.height(layout::List::Detail);
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    if v.at_end() {
        v.scroll = (v.len() + 1).saturating_sub(h);
        return;
    }
    v.want_bottom = true;
    v.loading = true;
    v.error = None;
    let from = v.last_checkpoint();
    let (decision_id, column) = (v.decision_id, v.column);
    app.request(
        Slot::PayloadSeek,
        Request::PayloadSeek {
            decision_id,
            column,
            from,
        },
    );
}

pub(super) fn take_chunk(app: &mut App, c: Chunk) {
    let h = app.height(layout::List::Detail);
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    v.loading = false;
    v.error = None;
    v.total = Some(c.total);
    v.add_checkpoint(c.end, c.end_state);
    let n = c.lines.len();
    let (start, end) = (c.start, c.end);
    if v.chunks.back().is_some_and(|b| b.end == c.start) {
        v.chunks.push_back(c);
        if v.chunks.len() > 3 {
            let gone = v.chunks.pop_front().map(|x| x.lines.len()).unwrap_or(0);
            v.scroll = v.scroll.saturating_sub(gone);
        }
    } else if v.chunks.front().is_some_and(|f| f.start == c.end) {
        v.chunks.push_front(c);
        v.scroll += n;
        if v.chunks.len() > 3 {
            v.chunks.pop_back();
        }
    } else {
        v.chunks.clear();
        v.chunks.push_back(c);
        v.scroll = 0;
    }
    super::search::chunk_arrived(app, start, end);
    let Some(v) = &mut app.run.viewer else {
        return;
    };
    if v.want_bottom {
        if v.at_end() {
            v.want_bottom = false;
            v.scroll = (v.len() + 1).saturating_sub(h);
        } else if let Some((s, st)) = v.chunks.back().map(|c| (c.end, c.end_state)) {
            request(app, s, st);
        }
    }
}

pub(super) fn take_seek(app: &mut App, points: Vec<(u64, Indent)>) {
    if let Some(v) = &mut app.run.viewer {
        for (at, st) in points.iter().copied() {
            v.add_checkpoint(at, st);
        }
        // Start one chunk before the last, so that a short last chunk still
        // ends a full screen; the last is appended.
        let i = points.len().saturating_sub(2);
        if let Some((s, st)) = points.get(i).copied() {
            request(app, s, st);
        }
    }
}
