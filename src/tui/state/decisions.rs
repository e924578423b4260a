//! The Decisions screen's state: the decisions behind a rung, a refusal
//! reason or a confusion cell, read a page at a time.

use crate::store::browse::{DecisionRow, DecisionSet};
use crate::tui::paged::Paged;

#[derive(Debug, Default)]
pub struct DecisionsState {
    pub set: Option<DecisionSet>,
    pub title: String,
    pub page: Paged<DecisionRow>,
}
