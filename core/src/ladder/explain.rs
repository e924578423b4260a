//! The explained walk of `rung explain`: each rung of the ladder for one
//! decision, passed, failed, not reached or skipped, with the reason.

use std::fmt;

use super::errors::ErrorStageSource;
use super::{Classification, DecisionInput, ToolVisibility};
use crate::model::{Arguments, Progress, Rung};

/// Where a walk stands at one rung.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkState {
    Passed,
    Failed,
    /// A routing rung after the first routing failure.
    NotReached,
    /// A rung the decision cannot be judged on (unlabelled routing).
    Skipped,
}

impl WalkState {
    /// `passed`, `failed`, `not reached`, `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            WalkState::Passed => "passed",
            WalkState::Failed => "failed",
            WalkState::NotReached => "not reached",
            WalkState::Skipped => "skipped",
        }
    }
}

/// The state's word, padded like a `&str` (`{:<12}` lines up the walk).
impl fmt::Display for WalkState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One rung of an explained walk.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkStep {
    pub rung: Rung,
    pub state: WalkState,
    pub note: String,
}

/// The walk `rung explain` shows for one decision: every rung with its
/// state and a note saying why, from the decision's classification and the
/// visibility of its catalogue tools (see [`super::explain_tools`]).
pub fn walk(c: &Classification, d: &DecisionInput<'_>, tools: &[ToolVisibility]) -> Vec<WalkStep> {
    let label = d.label;
    let mut out = Vec::new();
    // Routing rungs after the first routing failure are not reached; the
    // boundary and progress parts are judged on their own.
    let mut routing_failed = false;
    let mut push = |rung: Rung, fail: Option<bool>, note: String| {
        let routing = matches!(
            rung,
            Rung::Coverage | Rung::Exposure | Rung::Discovery | Rung::Selection
        );
        let state = match fail {
            None => WalkState::Skipped,
            Some(_) if routing && routing_failed => WalkState::NotReached,
            Some(true) => {
                routing_failed |= routing;
                WalkState::Failed
            }
            Some(false) => WalkState::Passed,
        };
        let note = if state == WalkState::NotReached {
            String::new()
        } else {
            note
        };
        out.push(WalkStep { rung, state, note });
    };
    let why_of = |names: &[String]| -> String {
        names
            .iter()
            .map(|n| match tools.iter().find(|t| &t.name == n) {
                Some(t) => format!("{n}: {} ({})", t.why, t.rule),
                None => format!("{n}: not in the catalogue"),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match label {
        None => {
            for r in [
                Rung::Coverage,
                Rung::Exposure,
                Rung::Discovery,
                Rung::Selection,
            ] {
                push(
                    r,
                    None,
                    "unlabelled: no inline expected and no matching case".into(),
                );
            }
        }
        Some(l) => {
            let acc = l.acceptable.join(", ");
            let sel = d.selected.unwrap_or("no call (@no_call)");
            push(
                Rung::Coverage,
                Some(c.in_registry == Some(false)),
                if c.in_registry == Some(false) {
                    format!(
                        "no capability in [{acc}] exists in the catalogue, the controls or the recorded menu: build one"
                    )
                } else {
                    format!("[{acc}] exists")
                },
            );
            push(
                Rung::Exposure,
                Some(c.in_exposed == Some(false)),
                if c.in_exposed == Some(false) {
                    format!("none of [{acc}] was exposed: {}", why_of(&l.acceptable))
                } else {
                    format!("[{acc}] was exposed")
                },
            );
            push(
                Rung::Discovery,
                Some(c.in_retrieved == Some(false)),
                if c.in_retrieved == Some(false) {
                    format!(
                        "none of [{acc}] was in the menu the model saw: {}",
                        why_of(&l.acceptable)
                    )
                } else {
                    format!("[{acc}] was in the menu")
                },
            );
            push(
                Rung::Selection,
                Some(c.selected_ok == Some(false)),
                if c.selected_ok == Some(false) {
                    format!("selected {sel}, not one of [{acc}]")
                } else {
                    format!("selected {sel}")
                },
            );
        }
    }
    let reason = d.reason.map(|r| format!(" ({r})")).unwrap_or_default();
    let boundary_note = match (d.status, c.boundary, &c.error) {
        (None, _, _) => "no outcome recorded".to_string(),
        (Some(s), Some(b), Some(e)) => format!(
            "{s}{reason}: fails at {b} with reason {} ({})",
            e.reason(),
            match &e.source {
                ErrorStageSource::Recorded => "the stage the trace recorded".to_string(),
                ErrorStageSource::Pattern(p) => format!("[error_stages] pattern {p:?}"),
            }
        ),
        (Some(s), Some(b), None) => format!("{s}{reason}: fails at {b}"),
        (Some(s), None, _) => format!("{s}{reason}"),
    };
    push(
        c.boundary.map(|b| b.rung()).unwrap_or(Rung::Execution),
        Some(c.boundary.is_some()),
        boundary_note,
    );
    if c.arguments == Some(Arguments::Mismatch) {
        push(
            Rung::Semantics,
            Some(true),
            "the call's arguments differ from its expected call's".to_string(),
        );
    }
    push(
        Rung::Progress,
        Some(matches!(
            d.progress,
            Some(Progress::None | Progress::Regressed)
        )),
        match d.progress {
            Some(p) => format!("progress {p}"),
            None => "no progress recorded".to_string(),
        },
    );
    out
}

#[cfg(test)]
mod tests {
    use crate::ladder::ToolMap;

    use super::super::{CatalogueView, Menu, ReasonTable, ToolInfo, classify, explain_tools};
    use super::*;
    use crate::model::{Effect, Label, Policy, Stage, Status};

    fn tool(family: &str, effect: Effect) -> ToolInfo {
        ToolInfo {
            family: family.into(),
            effect,
            open_world: false,
            idempotent: false,
            tokens: 10,
        }
    }

    fn steps(w: &[WalkStep]) -> Vec<(Rung, &str, &str)> {
        w.iter()
            .map(|s| (s.rung, s.state.as_str(), s.note.as_str()))
            .collect()
    }

    /// read_file (repository, read_only) and deploy (deploy, destructive)
    /// under a read-only ceiling: deploy is hidden.
    fn catalogue() -> CatalogueView {
        let mut tools = ToolMap::new();
        tools.insert("read_file".into(), tool("repository", Effect::ReadOnly));
        tools.insert("deploy".into(), tool("deploy", Effect::Destructive));
        CatalogueView {
            version: "c1".into(),
            abstain: None,
            tools,
        }
    }

    fn policy() -> Policy {
        Policy {
            allowed_families: None,
            max_effect: Some(Effect::ReadOnly),
            allow_open_world: false,
            extra: serde_json::Value::Null,
        }
    }

    #[test]
    fn routing_after_the_first_failure_is_not_reached() {
        let cat = catalogue();
        let policy = policy();
        let label = Label::new(vec!["deploy".into()], vec![]);
        let menu = Menu {
            catalogue: Some(&cat),
            policy: Some(&policy),
            ..Menu::default()
        };
        let d = DecisionInput {
            menu,
            selected: Some("read_file"),
            label: Some(&label),
            status: Some(Status::Refused),
            stage: Some(Stage::Authorization),
            reason: Some("scope"),
            progress: Some(Progress::None),
            abstain: "no_applicable_tool",
        };
        let c = classify(&d, &ReasonTable::default());
        let tools = explain_tools(menu, Some(&label), d.selected);
        assert_eq!(
            steps(&walk(&c, &d, &tools)),
            vec![
                (Rung::Coverage, "passed", "[deploy] exists"),
                (
                    Rung::Exposure,
                    "failed",
                    "none of [deploy] was exposed: deploy: effect destructive is above the ceiling read_only (effect)"
                ),
                (Rung::Discovery, "not reached", ""),
                (Rung::Selection, "not reached", ""),
                (
                    Rung::Authorization,
                    "failed",
                    "refused (scope): fails at authorization"
                ),
                (Rung::Progress, "failed", "progress none"),
            ]
        );
    }

    #[test]
    fn a_mismatched_call_and_a_typed_error_show_on_the_walk() {
        use super::super::errors::{ErrorStageSource, TypedError};
        use super::super::{RunFacts, classify_in_run};
        use crate::model::Arguments;
        let label = Label::new(vec!["book".into()], vec![]);
        let d = DecisionInput {
            menu: Menu::default(),
            selected: Some("book"),
            label: Some(&label),
            status: Some(Status::Ok),
            stage: None,
            reason: None,
            progress: None,
            abstain: "no_applicable_tool",
        };
        let facts = RunFacts {
            error: None,
            arguments: Some(Arguments::Mismatch),
        };
        let c = classify_in_run(&d, &facts, &ReasonTable::default());
        assert_eq!(c.rung, Rung::Semantics);
        assert_eq!(
            steps(&walk(&c, &d, &[]))[4..],
            [
                (Rung::Execution, "passed", "ok"),
                (
                    Rung::Semantics,
                    "failed",
                    "the call's arguments differ from its expected call's"
                ),
                (Rung::Progress, "passed", "no progress recorded"),
            ]
        );
        let d = DecisionInput {
            status: Some(Status::Error),
            reason: Some("http_404"),
            ..d
        };
        let facts = RunFacts {
            error: Some(TypedError {
                stage: Stage::Semantics,
                source: ErrorStageSource::Pattern("not found".into()),
                detail: Some("Error: flight not found".into()),
            }),
            arguments: None,
        };
        let c = classify_in_run(&d, &facts, &ReasonTable::default());
        assert_eq!(
            steps(&walk(&c, &d, &[]))[4],
            (
                Rung::Semantics,
                "failed",
                "error (http_404): fails at semantics with reason error:semantics ([error_stages] pattern \"not found\")"
            )
        );
    }

    #[test]
    fn walk_states_print_their_words_padded() {
        assert_eq!(
            [
                WalkState::Passed,
                WalkState::Failed,
                WalkState::NotReached,
                WalkState::Skipped
            ]
            .map(|s| format!("[{s:<12}]")),
            [
                "[passed      ]",
                "[failed      ]",
                "[not reached ]",
                "[skipped     ]"
            ]
        );
    }

    #[test]
    fn an_unlabelled_decision_skips_routing() {
        let d = DecisionInput {
            menu: Menu::default(),
            selected: None,
            label: None,
            status: None,
            stage: None,
            reason: None,
            progress: None,
            abstain: "no_applicable_tool",
        };
        let c = classify(&d, &ReasonTable::default());
        let unlabelled = "unlabelled: no inline expected and no matching case";
        assert_eq!(
            steps(&walk(&c, &d, &[])),
            vec![
                (Rung::Coverage, "skipped", unlabelled),
                (Rung::Exposure, "skipped", unlabelled),
                (Rung::Discovery, "skipped", unlabelled),
                (Rung::Selection, "skipped", unlabelled),
                (Rung::Execution, "passed", "no outcome recorded"),
                (Rung::Progress, "passed", "no progress recorded"),
            ]
        );
    }
}
