//! Answers a request from the store: one function per kind, with the
//! weekly refusal report and a payload chunk put together here.

use std::sync::Arc;

use super::Shared;
use super::request::{
    Chunk, DetailView, INLINE_ARGS, PAGE, RefusalData, Request, Response, ToolRow,
};
use super::scan::{fuzzy, seek};
use crate::error::Result;
use crate::filter::Filter;
use crate::redact::Redactor;
use crate::store::Store;
use crate::store::browse::{self, PayloadColumn};
use crate::store::compare;
use crate::store::query;
use crate::tui::payload::{self, Indent};

/// Answers one request (`None`: abandoned for a newer one).
pub fn answer(
    store: &Store,
    shared: &Shared,
    request: Request,
    cancelled: &dyn Fn() -> bool,
) -> Result<Option<Response>> {
    let conn = &store.conn;
    Ok(Some(match request {
        Request::Empty => Response::Empty(browse::is_empty(conn)?),
        Request::Ladder(f) => {
            Response::Ladder(query::ladder(conn, &f)?, query::boundary_profile(conn, &f)?)
        }
        Request::Metrics(f) => Response::Metrics(Box::new(query::metrics(conn, &f)?)),
        Request::Confusions(f) => Response::Confusions(query::confusions(conn, &f)?),
        Request::Trend {
            filter,
            until,
            days,
        } => Response::Trend(browse::refusals_per_day(conn, &filter, until, days)?),
        Request::Refusals {
            filter,
            since,
            until,
        } => Response::Refusals(Box::new(refusals(conn, &filter, since, until)?)),
        Request::Tools(f) => {
            let flags = browse::tool_flags(conn)?;
            let rows = query::tools(conn, &f)?
                .into_iter()
                .map(|usage| ToolRow {
                    flags: flags
                        .get(&(usage.catalogue.clone(), usage.name.clone()))
                        .copied()
                        .unwrap_or_default(),
                    usage,
                })
                .collect();
            Response::Tools(rows)
        }
        Request::ToolDef { catalogue, name } => {
            Response::ToolDef(browse::tool_def(conn, &catalogue, &name)?.map(Box::new))
        }
        Request::ToolAudit {
            filter,
            catalogue,
            name,
        } => Response::ToolAudit(browse::tool_audit(
            conn, &filter, &catalogue, &name, cancelled,
        )?),
        Request::Hints => Response::Hints(browse::filter_hints(conn)?),
        Request::Completions => {
            Response::Completions(Box::new(crate::store::completion::completions(conn)?))
        }
        Request::Keeps(filter) => {
            let any = crate::store::completion::filter_keeps_any(conn, &filter)?;
            Response::Keeps(filter, any)
        }
        Request::Runs {
            filter,
            sort,
            desc,
            anchor,
        } => Response::Runs(browse::runs_page(conn, &filter, sort, desc, &anchor, PAGE)?),
        Request::Fuzzy { filter, pattern } => match fuzzy(conn, &filter, &pattern, cancelled)? {
            Some(r) => Response::Fuzzy(r),
            None => return Ok(None),
        },
        Request::RunHeader(run_id) => Response::RunHeader(browse::run_header(conn, &run_id)?),
        Request::Timeline {
            filter,
            run_id,
            sort,
            desc,
            anchor,
        } => {
            let page =
                browse::timeline_page_sorted(conn, &filter, &run_id, sort, desc, &anchor, PAGE)?;
            Response::Timeline(run_id, page)
        }
        Request::NextFailing {
            filter,
            run_id,
            step,
            forward,
        } => Response::NextFailing(browse::next_failing(conn, &filter, &run_id, step, forward)?),
        Request::Detail(id) => {
            let detail = browse::decision_detail(conn, &shared.config, id)?;
            let arguments = match detail.arguments_bytes {
                Some(n) if n <= INLINE_ARGS => {
                    let bytes =
                        browse::payload_read(conn, id, PayloadColumn::Arguments, 0, n as usize)?;
                    Some(payload::render(&bytes, Indent::default(), &shared.redactor))
                }
                _ => None,
            };
            Response::Detail(Arc::new(DetailView { detail, arguments }))
        }
        Request::Payload {
            decision_id,
            column,
            start,
            state,
        } => Response::Payload(Box::new(chunk(
            conn,
            &shared.redactor,
            decision_id,
            column,
            start,
            state,
        )?)),
        Request::PayloadSeek {
            decision_id,
            column,
            from,
        } => match seek(conn, &shared.redactor, decision_id, column, from, cancelled)? {
            Some(c) => Response::PayloadSeek(c),
            None => return Ok(None),
        },
        Request::Decisions {
            filter,
            set,
            view,
            anchor,
        } => Response::Decisions(browse::drill_page_view(
            conn, &filter, &set, &view, &anchor, PAGE,
        )?),
        Request::Findings {
            filter,
            since,
            until,
        } => Response::Findings(Box::new(browse::finding_counts(
            conn, &filter, since, until,
        )?)),
        Request::FindingList {
            filter,
            set,
            sort,
            desc,
            anchor,
        } => Response::FindingList(browse::findings_page_sorted(
            conn, &filter, &set, sort, desc, &anchor, PAGE,
        )?),
        Request::Catalogues => Response::Catalogues(compare::catalogues(conn)?),
        Request::Compare { filter, ask } => {
            let mask = |s: &str| shared.redactor.apply(s).into_owned();
            Response::Compare(Arc::new(compare::compare_menus(
                conn, &filter, &ask, &mask,
            )?))
        }
        Request::CellAttempts {
            filter,
            base,
            candidates,
            cell,
        } => {
            let mut v = compare::cells(conn, &filter, &base, &candidates, Some(&cell))?;
            Response::CellAttempts(Box::new(v.pop()))
        }
        Request::Record(row) => {
            let what = format!("{} {}", row.run_id, row.step);
            Response::Clip(super::export::record(conn, shared, &row)?, what)
        }
        Request::PayloadFind {
            decision_id,
            column,
            pattern,
            from,
            forward,
        } => match super::find::find(
            conn,
            &shared.redactor,
            &shared.chains,
            decision_id,
            column,
            &pattern,
            from,
            forward,
            cancelled,
        )? {
            Some(found) => Response::PayloadFound(Box::new(found)),
            None => return Ok(None),
        },
        Request::NextMatch {
            filter,
            run_id,
            step,
            forward,
            pattern,
        } => Response::NextMatch(crate::store::next_match::next_matching(
            conn, &filter, &run_id, step, forward, &pattern,
        )?),
        Request::Export {
            filter,
            list,
            markdown,
            title,
            noun,
            path,
        } => {
            let n = super::export::write_list(
                conn, shared, &filter, &list, markdown, &title, &path, cancelled,
            )?;
            Response::Exported(path, n, noun)
        }
        Request::ToolDiff { catalogue, name } => {
            let mask = |s: &str| shared.redactor.apply(s).into_owned();
            Response::ToolDiff(Box::new(compare::tool_diff(
                conn, &catalogue, &name, &mask,
            )?))
        }
    }))
}

fn refusals(
    conn: &rusqlite::Connection,
    f: &Filter,
    since: i64,
    until: i64,
) -> Result<RefusalData> {
    let (items, undated) = browse::refusal_items(conn, f, since, until)?;
    let trend = crate::metrics::refusal_trend(items, since, until);
    let mut report = trend.report;
    report.undated = undated;
    Ok(RefusalData {
        report,
        runs_affected: trend.runs_affected,
        per_day: trend.per_day,
        days: trend.days,
        latest: browse::latest_refusal(conn, f)?,
    })
}

fn chunk(
    conn: &rusqlite::Connection,
    redactor: &Redactor,
    id: i64,
    column: PayloadColumn,
    start: u64,
    state: Indent,
) -> Result<Chunk> {
    let total = browse::payload_bytes(conn, id, column).unwrap_or(0);
    let buf = browse::payload_read(conn, id, column, start, payload::READ)?;
    let (len, end_state) = payload::chunk_len(&buf, state, redactor);
    let bytes = &buf[..len];
    // A raw model output is usually one JSON string: show its text.
    let lines = if column == PayloadColumn::Raw && start == 0 && len as u64 == total {
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(serde_json::Value::String(s)) => payload::render_text(&s, redactor),
            _ => payload::render(bytes, state, redactor),
        }
    } else {
        payload::render(bytes, state, redactor)
    };
    Ok(Chunk {
        start,
        end: start + len as u64,
        total,
        end_state,
        lines,
    })
}
