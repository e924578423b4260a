//! The Decisions screen's state: the decisions behind a rung, a refusal
//! reason or a confusion cell, read a page at a time.

use crate::store::browse::{DecisionRow, Drill, ListView};
use crate::tui::paged::Paged;

#[derive(Debug, Default)]
pub struct DecisionsState {
    pub set: Option<Drill>,
    /// What the decisions are (the title says it after the count), with
    /// `{s}` where the plural takes an `s`.
    pub title: String,
    /// The number that was drilled into, as the screen showed it.
    pub count: Option<u64>,
    pub page: Paged<DecisionRow>,
    /// The sort (`s`/`S`) and the search (`/`) in force.
    pub view: ListView,
    /// `/` is being typed.
    pub typing: bool,
}

impl DecisionsState {
    /// The title: the count drilled into, then what the decisions are.
    pub fn heading(&self) -> String {
        match self.count {
            Some(n) => format!(
                "{} {}",
                crate::tui::views::n(n),
                self.title.replace("{s}", if n == 1 { "" } else { "s" })
            ),
            None => self.title.replace("{s}", "s"),
        }
    }
}
