//! Which label a decision has (`ladder.md`): its inline `expected`, else
//! the most specific matching case; and which case sets a run's
//! expectations (`expectations.md` §2).

use super::DecisionFinding;
use crate::model::{Expectations, FindingKind, Label};

/// How a case matched: with or without `step` and `catalogue`.
#[derive(Debug, Clone, Copy)]
pub struct CaseRef<'a> {
    pub step: Option<i64>,
    pub catalogue: Option<&'a str>,
    /// None for a case that only carries expectations: it labels nothing.
    pub label: Option<&'a Label>,
    /// The run-level expectations of a step-less case (None when it sets
    /// none).
    pub expectations: Option<&'a Expectations>,
}

/// Where a decision's label came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelSource {
    Inline,
    Case,
    /// From the run's matching walk against its expected calls.
    Derived,
}

impl LabelSource {
    pub fn as_str(self) -> &'static str {
        match self {
            LabelSource::Inline => "inline",
            LabelSource::Case => "case",
            LabelSource::Derived => "derived",
        }
    }

    pub fn parse(s: &str) -> Option<LabelSource> {
        match s {
            "inline" => Some(LabelSource::Inline),
            "case" => Some(LabelSource::Case),
            "derived" => Some(LabelSource::Derived),
            _ => None,
        }
    }
}

/// The most specific case matching a decision, per `ladder.md`. The case
/// is chosen as a whole: when it carries no label (only expectations), the
/// decision has no case label, even if a less specific case has one.
pub fn matching_case<'a>(
    cases: &[CaseRef<'a>],
    step: i64,
    catalogue: Option<&str>,
    is_first: bool,
) -> Option<CaseRef<'a>> {
    let find = |s: Option<i64>, c: Option<&str>| {
        cases
            .iter()
            .find(|k| k.step == s && k.catalogue == c)
            .copied()
    };
    catalogue
        .and_then(|cat| find(Some(step), Some(cat)))
        .or_else(|| find(Some(step), None))
        .or_else(|| {
            if is_first {
                catalogue
                    .and_then(|cat| find(None, Some(cat)))
                    .or_else(|| find(None, None))
            } else {
                None
            }
        })
}

/// The label in force and, when an inline label overrides a different
/// matching case, the `label_conflict` finding.
pub fn resolve_label<'a>(
    inline: Option<&'a Label>,
    cases: &[CaseRef<'a>],
    step: i64,
    catalogue: Option<&str>,
    is_first: bool,
) -> (Option<(&'a Label, LabelSource)>, Option<DecisionFinding>) {
    let case = matching_case(cases, step, catalogue, is_first);
    let case_label = case.and_then(|c| c.label.map(|l| (c, l)));
    match (inline, case_label) {
        (Some(inline), Some((case, label))) => {
            let conflict = (inline != label).then(|| DecisionFinding {
                kind: FindingKind::LabelConflict,
                tool: None,
                detail: format!(
                    "inline expected {} differs from the case{} {}; the inline label wins",
                    label_text(inline),
                    case_scope(&case),
                    label_text(label)
                ),
            });
            (Some((inline, LabelSource::Inline)), conflict)
        }
        (Some(inline), None) => (Some((inline, LabelSource::Inline)), None),
        (None, Some((_, label))) => (Some((label, LabelSource::Case)), None),
        (None, None) => (None, None),
    }
}

/// The case whose expectations a run has: the step-less case with the
/// run's catalogue, else the step-less one with none (`expectations.md`
/// §2); `None` when that case sets no expectations.
pub fn run_expectations<'a>(
    cases: &[CaseRef<'a>],
    catalogue: Option<&str>,
) -> Option<&'a Expectations> {
    let find = |c: Option<&str>| cases.iter().find(|k| k.step.is_none() && k.catalogue == c);
    catalogue
        .and_then(|cat| find(Some(cat)))
        .or_else(|| find(None))
        .and_then(|k| k.expectations)
        .filter(|e| e.is_set())
}

fn case_scope(case: &CaseRef<'_>) -> String {
    match (case.step, case.catalogue) {
        (Some(s), Some(c)) => format!(" (step {s}, catalogue {c})"),
        (Some(s), None) => format!(" (step {s})"),
        (None, Some(c)) => format!(" (first decision, catalogue {c})"),
        (None, None) => " (first decision)".to_string(),
    }
}

pub fn label_text(label: &Label) -> String {
    if label.forbidden.is_empty() {
        format!("acceptable [{}]", label.acceptable.join(", "))
    } else {
        format!(
            "acceptable [{}], forbidden [{}]",
            label.acceptable.join(", "),
            label.forbidden.join(", ")
        )
    }
}
