//! Requests and answers: `update` queues tagged requests for the workers
//! and takes back only the answer to the latest request of each slot (a
//! stale answer is dropped); each answer goes to its screen's module.

use super::{compare, confusions, decisions, findings, refusals, run, runs, search, tools, viewer};
use crate::store::browse::Anchor;
use crate::tui::state::App;
use crate::tui::worker::{Done, Request, Response, Slot};

impl App {
    /// Queues `request`; it supersedes every earlier request of `slot`.
    pub(super) fn request(&mut self, slot: Slot, request: Request) {
        let seq = self.inflight.next(slot);
        self.outbox.push((slot, seq, request));
    }

    /// Queues a page request, remembering the anchor its answer fills.
    pub(super) fn request_page(&mut self, slot: Slot, anchor: Anchor, request: Request) {
        self.inflight.set_anchor(slot, anchor);
        self.request(slot, request);
    }

    /// Takes a worker's answer, unless a newer request of its slot was sent.
    pub(super) fn receive(&mut self, done: Done) {
        let current = self.inflight.is_latest(done.slot, done.seq);
        if let Response::Detail(d) = done.response {
            // Still valid even when superseded: keep it.
            if current {
                self.inflight.done(done.slot);
            }
            self.details.insert(d);
            return;
        }
        if !current {
            return;
        }
        let anchor = self.inflight.done(done.slot);
        match done.response {
            Response::Error(e) => {
                self.status = Some(e.clone());
                self.fail(done.slot, e);
            }
            Response::Empty(e) => self.empty.set(e),
            Response::Ladder(c, b) => {
                self.ladder.counts.set((c, b));
                super::table::ladder_rows(self);
            }
            Response::Metrics(m) => self.ladder.metrics.set(m),
            Response::Confusions(c) => confusions::take(self, c),
            Response::Trend(t) => self.ladder.trend.set(t),
            Response::Refusals(r) => refusals::take(self, r),
            Response::Tools(t) => tools::take(self, t),
            Response::ToolDef(d) => self.tool.def.set(d),
            Response::ToolAudit(a) => {
                self.tool.audit.set(a);
                super::table::apply(self, super::table::Table::Rules, super::table::Op::Refresh);
            }
            Response::Hints(h) => self.hints.set(h),
            Response::Completions(c) => self.completions.set(*c),
            Response::Keeps(f, any) => super::form::take_keeps(self, f, any),
            Response::Runs(page) => runs::take_page(self, anchor, page),
            Response::Fuzzy(r) => runs::take_fuzzy(self, r),
            Response::RunHeader(h) => self.run.header.set(h),
            Response::Timeline(run_id, page) => run::take_timeline(self, anchor, run_id, page),
            Response::NextFailing(step) => run::take_next_failing(self, step),
            Response::Detail(_) => {}
            Response::Payload(c) => viewer::take_chunk(self, *c),
            Response::PayloadFound(found) => search::take_found(self, *found),
            Response::NextMatch(step) => search::take_next_match(self, step),
            Response::PayloadSeek(points) => viewer::take_seek(self, points),
            Response::Decisions(page) => decisions::take_page(self, anchor, page),
            Response::Findings(c) => findings::take(self, c),
            Response::FindingList(page) => findings::take_page(self, anchor, page),
            Response::Catalogues(v) => compare::take_catalogues(self, v),
            Response::Compare(r) => compare::take_compare(self, r),
            Response::CellAttempts(a) => compare::take_cell(self, *a),
            Response::ToolDiff(d) => compare::take_tool_diff(self, d),
            Response::Clip(text, what) => super::copy::take_clip(self, text, &what, true),
            Response::Exported(path, n, noun) => {
                // `decisions` → `decision` for one.
                let noun = if n == 1 {
                    noun.strip_suffix('s').unwrap_or(noun)
                } else {
                    noun
                };
                self.status = Some(format!("wrote {n} {noun} to {}", path.display()));
            }
        }
    }

    /// The latest request of `slot` failed: what waited for it shows why.
    fn fail(&mut self, slot: Slot, e: String) {
        match slot {
            Slot::Empty => self.empty.fail(e),
            Slot::Ladder => self.ladder.counts.fail(e),
            Slot::Metrics => self.ladder.metrics.fail(e),
            Slot::Confusions => self.confusions.fail(e),
            Slot::Trend => self.ladder.trend.fail(e),
            Slot::Refusals => self.refusals.data.fail(e),
            Slot::Tools => self.tools.data.fail(e),
            Slot::ToolDef => self.tool.def.fail(e),
            Slot::ToolAudit => self.tool.audit.fail(e),
            Slot::Hints => self.hints.fail(e),
            Slot::Completions => self.completions.fail(e),
            // The check could not be made: the filter is applied unchecked.
            Slot::Keeps => super::form::keeps_failed(self),
            Slot::Runs => self.runs.page.fail(e),
            Slot::Fuzzy => {
                self.runs.fuzzy.loading = false;
                self.runs.fuzzy.error = Some(e);
            }
            Slot::RunHeader => self.run.header.fail(e),
            Slot::Timeline => self.run.timeline.fail(e),
            Slot::Decisions => self.decisions.page.fail(e),
            Slot::Findings => self.findings.data.fail(e),
            Slot::FindingList => self.findings.list.page.fail(e),
            Slot::Catalogues => self.compare.catalogues.fail(e),
            Slot::Compare => self.compare.result.fail(e),
            Slot::CellAttempts => {
                if let Some(open) = &mut self.compare.open {
                    open.data.fail(e);
                }
            }
            Slot::ToolDiff => self.tool_diff.data.fail(e),
            Slot::PayloadFind => {
                if let Some(v) = &mut self.run.viewer {
                    v.search.searching = false;
                }
            }
            Slot::Payload | Slot::PayloadSeek => {
                if let Some(v) = &mut self.run.viewer {
                    v.loading = false;
                    v.error = Some(e);
                }
            }
            Slot::Detail => self.details.failed = self.details.wanted.map(|id| (id, e)),
            // Only the key bar says it.
            Slot::NextFailing | Slot::NextMatch | Slot::Record | Slot::Export => {}
        }
    }
}
