//! A confusion cell's counterfactual menus: how each candidate differs from
//! the base around the pair, and the repair their results point to.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::metrics::diff::{CatalogueDiff, Field, ToolChange};

/// How a candidate differs from the base around one confusion pair, as
/// `rung diff` and the recorded menus show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellChange {
    /// Only the pair's descriptions (or use/avoid hints) changed (menu B).
    Descriptions,
    /// The pair's tools are unchanged, but one of them is absent from every
    /// recorded menu of the cell's attempts (menu C: the router hid it).
    Hidden,
    /// The pair is gone, replaced by one new tool (menu D).
    Merged,
    /// Some other change.
    Other,
}

impl CellChange {
    pub fn as_str(self) -> &'static str {
        match self {
            CellChange::Descriptions => "descriptions",
            CellChange::Hidden => "hidden",
            CellChange::Merged => "merged",
            CellChange::Other => "other",
        }
    }

    /// What the change is, for a reader.
    pub fn describe(self) -> &'static str {
        match self {
            CellChange::Descriptions => "sharper descriptions",
            CellChange::Hidden => "one of the pair hidden",
            CellChange::Merged => "the pair merged",
            CellChange::Other => "another change",
        }
    }
}

/// How a candidate differs from the base around the pair `pair` (the
/// cell's acceptable tools and the one selected instead): by the catalogue
/// diff and the menus the candidate's paired attempts recorded.
///
/// - merged: every tool of the pair was removed and their labels point at
///   one new tool;
/// - descriptions: nothing was added or removed, and only tools of the pair
///   changed, in their descriptions or use/avoid hints only;
/// - hidden: no tool of the pair changed or went, and every recorded menu
///   of the paired attempts lacks at least one of them;
/// - other: anything else.
pub fn cell_change(diff: &CatalogueDiff, pair: &[String], menus: &[Vec<String>]) -> CellChange {
    let removed = |n: &String| diff.removed.contains(n);
    if !pair.is_empty() && pair.iter().all(removed) {
        let intos: BTreeSet<Option<&str>> = pair
            .iter()
            .map(|n| diff.successor(n).map(|r| r.into.as_str()))
            .collect();
        if intos.len() == 1 && !intos.contains(&None) {
            return CellChange::Merged;
        }
        return CellChange::Other;
    }
    let only_words = |c: &ToolChange| {
        c.fields
            .iter()
            .all(|f| matches!(f, Field::Description | Field::Hints))
    };
    if diff.added.is_empty()
        && diff.removed.is_empty()
        && !diff.changed.is_empty()
        && diff
            .changed
            .iter()
            .all(|c| pair.contains(&c.name) && only_words(c))
    {
        return CellChange::Descriptions;
    }
    let touched = pair
        .iter()
        .any(|n| removed(n) || diff.change_of(n).is_some());
    if !touched && !menus.is_empty() && menus.iter().all(|m| pair.iter().any(|n| !m.contains(n))) {
        return CellChange::Hidden;
    }
    CellChange::Other
}

/// One candidate on a confusion cell's attempts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellResult {
    pub catalogue: String,
    /// The cell's attempts the candidate ran too.
    pub paired: u64,
    /// Of those, how many it got right.
    pub right: u64,
}

impl CellResult {
    /// Every paired attempt right: the candidate removes the error.
    pub fn fixes(&self) -> bool {
        self.paired > 0 && self.right == self.paired
    }
}

/// The repair a cell's counterfactual menus point to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Repair {
    /// Sharper descriptions remove the error: they were ambiguous.
    Descriptions,
    /// Descriptions do not, hiding one does: the router knows what the
    /// model is not told.
    Router,
    /// Only merging removes it: the distinction does not belong in the
    /// model's decision.
    Merge,
    /// No candidate of a recognised kind removes the error.
    None,
}

impl Repair {
    pub fn as_str(self) -> &'static str {
        match self {
            Repair::Descriptions => "descriptions",
            Repair::Router => "router",
            Repair::Merge => "merge",
            Repair::None => "none",
        }
    }
}

/// The verdict on a cell: the repair, and why in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub repair: Repair,
    pub text: String,
}

/// Reads the pattern of the chapter's counterfactual menus: B (sharper
/// descriptions) removes the error → they were ambiguous; C (one hidden)
/// but not B → the router knows something the model lacks; only D (merged)
/// → the distinction does not belong in the model's decision. "Removes"
/// means every paired attempt of the cell right.
pub fn verdict(attempts: u64, candidates: &[(CellChange, CellResult)]) -> Verdict {
    let of = |k: CellChange| -> Vec<&CellResult> {
        candidates
            .iter()
            .filter(|(c, _)| *c == k)
            .map(|(_, r)| r)
            .collect()
    };
    let show = |rs: &[&CellResult]| -> String {
        rs.iter()
            .map(|r| format!("{} {} of {}", r.catalogue, r.right, r.paired))
            .collect::<Vec<_>>()
            .join(", ")
    };
    fn fixing<'a>(rs: &[&'a CellResult]) -> Vec<&'a CellResult> {
        rs.iter().filter(|r| r.fixes()).copied().collect()
    }
    let (b, c, d) = (
        of(CellChange::Descriptions),
        of(CellChange::Hidden),
        of(CellChange::Merged),
    );
    let untested = |rs: &[&CellResult], what: &str| {
        if rs.is_empty() {
            format!(" No candidate only {what}, so that repair is untested.")
        } else {
            String::new()
        }
    };
    if !fixing(&b).is_empty() {
        return Verdict {
            repair: Repair::Descriptions,
            text: format!(
                "Sharper descriptions alone remove the error ({}, of the cell's {attempts} attempts): \
                 the two descriptions were ambiguous. Rewriting them is the smallest repair.",
                show(&fixing(&b))
            ),
        };
    }
    let b_result = if b.is_empty() {
        "No candidate only sharpened the descriptions.".to_string()
    } else {
        format!("Sharper descriptions leave errors ({}).", show(&b))
    };
    if !fixing(&c).is_empty() {
        return Verdict {
            repair: Repair::Router,
            text: format!(
                "{b_result} Hiding one of the pair removes the error ({}): the router knows \
                 something the model is not told. Let the task profile choose the menu \
                 (static grouping) instead of asking the model.",
                show(&fixing(&c))
            ),
        };
    }
    if !fixing(&d).is_empty() {
        let c_result = if c.is_empty() {
            " No candidate only hid one of the pair.".to_string()
        } else {
            format!(" Hiding one leaves errors ({}).", show(&c))
        };
        return Verdict {
            repair: Repair::Merge,
            text: format!(
                "{b_result}{c_result} Only the merged tool removes the error ({}): the model \
                 cannot use the difference between the two tools reliably, so it does not \
                 belong in its decision. Merge them and move the choice into an argument or \
                 behind the tool.",
                show(&fixing(&d))
            ),
        };
    }
    let tried: Vec<&CellResult> = b.iter().chain(&c).chain(&d).copied().collect();
    Verdict {
        repair: Repair::None,
        text: format!(
            "No candidate removes the error{}.{}{}{}",
            if tried.is_empty() {
                String::new()
            } else {
                format!(" ({})", show(&tried))
            },
            untested(&b, "sharpened the descriptions"),
            untested(&c, "hid one of the pair"),
            untested(&d, "merged the pair"),
        ),
    }
}
