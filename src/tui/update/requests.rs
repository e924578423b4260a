//! Requests and answers: `update` queues tagged requests for the workers
//! and takes back only the answer to the latest request of each slot (a
//! stale answer is dropped); each answer goes to its screen's module.

use super::{confusions, decisions, refusals, run, runs, tools, viewer};
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
                self.status = Some(e);
                self.clear_loading(done.slot);
            }
            Response::Empty(e) => self.empty.set(e),
            Response::Ladder(c, b) => self.ladder.counts.set((c, b)),
            Response::Metrics(m) => self.ladder.metrics.set(m),
            Response::Confusions(c) => confusions::take(self, c),
            Response::Trend(t) => self.ladder.trend.set(t),
            Response::Refusals(r) => refusals::take(self, r),
            Response::Tools(t) => tools::take(self, t),
            Response::ToolDef(d) => self.tool.def.set(d),
            Response::ToolAudit(a) => self.tool.audit.set(a),
            Response::Hints(h) => self.hints.set(h),
            Response::Runs(page) => runs::take_page(self, anchor, page),
            Response::Fuzzy(r) => runs::take_fuzzy(self, r),
            Response::RunHeader(h) => self.run.header.set(h),
            Response::Timeline(run_id, page) => run::take_timeline(self, anchor, run_id, page),
            Response::NextFailing(step) => run::take_next_failing(self, step),
            Response::Detail(_) => {}
            Response::Payload(c) => viewer::take_chunk(self, *c),
            Response::PayloadSeek(points) => viewer::take_seek(self, points),
            Response::Decisions(page) => decisions::take_page(self, anchor, page),
        }
    }

    fn clear_loading(&mut self, slot: Slot) {
        match slot {
            Slot::Empty => self.empty.loading = false,
            Slot::Ladder => self.ladder.counts.loading = false,
            Slot::Metrics => self.ladder.metrics.loading = false,
            Slot::Confusions => self.confusions.loading = false,
            Slot::Trend => self.ladder.trend.loading = false,
            Slot::Refusals => self.refusals.data.loading = false,
            Slot::Tools => self.tools.data.loading = false,
            Slot::ToolDef => self.tool.def.loading = false,
            Slot::ToolAudit => self.tool.audit.loading = false,
            Slot::Hints => self.hints.loading = false,
            Slot::Runs => self.runs.page.loading = false,
            Slot::Fuzzy => self.runs.fuzzy.loading = false,
            Slot::RunHeader => self.run.header.loading = false,
            Slot::Timeline => self.run.timeline.loading = false,
            Slot::Decisions => self.decisions.page.loading = false,
            Slot::Payload | Slot::PayloadSeek => {
                if let Some(v) = &mut self.run.viewer {
                    v.loading = false;
                }
            }
            Slot::NextFailing | Slot::Detail => {}
        }
    }
}
