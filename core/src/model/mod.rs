//! The domain of rung: catalogues, runs, decisions, cases and the enums of the
//! trace format, with the spellings of `trace-format.md` as their only names.

pub mod canonical;
mod expect;
mod json;

pub use expect::{ABSENT, Expectations, ExpectedCall, ExpectedValue, ONE_OF};

use std::fmt;

use serde_json::Value;

/// Declares a closed enum with one canonical spelling per variant.
macro_rules! spelled_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }

            /// The accepted spellings, for error messages.
            pub fn spellings() -> String {
                [$($text),+].join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

spelled_enum!(
    /// What a tool can do to the world, ordered from harmless to irreversible.
    Effect {
        None => "none",
        ReadOnly => "read_only",
        Mutating => "mutating",
        Destructive => "destructive",
    }
);

spelled_enum!(
    /// What the action boundary and execution did with a proposal.
    Status {
        Ok => "ok",
        Refused => "refused",
        Error => "error",
        Unknown => "unknown",
        NotRun => "not_run",
    }
);

spelled_enum!(
    /// A stage a trace may record on an outcome.
    Stage {
        Representation => "representation",
        Schema => "schema",
        Semantics => "semantics",
        Authorization => "authorization",
        Precondition => "precondition",
        Execution => "execution",
    }
);

spelled_enum!(
    Progress {
        Advanced => "advanced",
        None => "none",
        Regressed => "regressed",
    }
);

spelled_enum!(
    Intent {
        Inform => "inform",
        Prepare => "prepare",
        Act => "act",
    }
);

spelled_enum!(
    Terminated {
        Answered => "answered",
        AskedUser => "asked_user",
        StepLimit => "step_limit",
        Timeout => "timeout",
        NeedsConfirmation => "needs_confirmation",
        HarnessStopped => "harness_stopped",
        Error => "error",
    }
);

spelled_enum!(
    /// How a case compares expected and actual strings (`strings`).
    #[derive(Default)]
    Strings {
        #[default]
        Exact => "exact",
        Loose => "loose",
    }
);

spelled_enum!(
    /// What a case does with call arguments its expected call does not
    /// list (`extra_arguments`).
    #[derive(Default)]
    ExtraArguments {
        #[default]
        Ignore => "ignore",
        Reject => "reject",
    }
);

spelled_enum!(
    /// Whose rules judge a run's calls against its expected calls
    /// (`checker`): rung's own (`expectations.md` §4, §8), or BFCL's
    /// (`docs/bfcl.md`): every call judged, the count of calls first, the
    /// arguments checked against the schema by BFCL's type rules, loose
    /// strings only where BFCL's checker loosens them.
    #[derive(Default)]
    Checker {
        #[default]
        Rung => "rung",
        Bfcl => "bfcl",
    }
);

spelled_enum!(
    /// The rungs of the ladder, in walking order, then the two verdicts of
    /// a decision that failed nowhere: `unlabelled` (nothing said what it
    /// should have done) and `passed` (judged, and right).
    Rung {
        Coverage => "coverage",
        Exposure => "exposure",
        Discovery => "discovery",
        Selection => "selection",
        Representation => "representation",
        Schema => "schema",
        Semantics => "semantics",
        Authorization => "authorization",
        Precondition => "precondition",
        Unclassified => "unclassified",
        Execution => "execution",
        Progress => "progress",
        Unlabelled => "unlabelled",
        Passed => "passed",
    }
);

spelled_enum!(
    /// The routing part of a decision's walk (`routing` in explain and the store).
    Routing {
        Coverage => "coverage",
        Exposure => "exposure",
        Discovery => "discovery",
        Selection => "selection",
        Unlabelled => "unlabelled",
    }
);

spelled_enum!(
    /// The action-boundary part of a decision's walk: a recorded stage or
    /// `unclassified` when neither a stage nor a mapped reason says which.
    Boundary {
        Representation => "representation",
        Schema => "schema",
        Semantics => "semantics",
        Authorization => "authorization",
        Precondition => "precondition",
        Unclassified => "unclassified",
        Execution => "execution",
    }
);

spelled_enum!(
    /// The arguments part of a decision's walk (format v1.1): its call
    /// differs from the expected call of its tool.
    Arguments {
        Mismatch => "mismatch",
    }
);

spelled_enum!(
    /// Why a catalogue tool was visible or hidden at a decision.
    Rule {
        TrustedControl => "trusted_control",
        Family => "family",
        Effect => "effect",
        OpenWorld => "open_world",
        Retrieved => "retrieved",
        NotRetrieved => "not_retrieved",
        Eligible => "eligible",
        Flat => "flat",
        Recorded => "recorded",
        NotRecorded => "not_recorded",
    }
);

spelled_enum!(
    FindingKind {
        ExposureMismatch => "exposure_mismatch",
        HiddenProposal => "hidden_proposal",
        DescriptionDrift => "description_drift",
        CatalogueConflict => "catalogue_conflict",
        ControlImpostor => "control_impostor",
        InvalidControl => "invalid_control",
        UnclassifiedReason => "unclassified_reason",
        LabelConflict => "label_conflict",
        MissingCall => "missing_call",
        ArgumentMismatch => "argument_mismatch",
        UnexpectedCall => "unexpected_call",
        MissingOutput => "missing_output",
        SchemaViolation => "schema_violation",
        UnsourcedId => "unsourced_id",
        IdFromDescription => "id_from_description",
        AnnouncedNoCall => "announced_no_call",
        WriteUnderInform => "write_under_inform",
        MenuChanged => "menu_changed",
        RepeatedCall => "repeated_call",
    }
);

impl Stage {
    pub fn boundary(self) -> Boundary {
        match self {
            Stage::Representation => Boundary::Representation,
            Stage::Schema => Boundary::Schema,
            Stage::Semantics => Boundary::Semantics,
            Stage::Authorization => Boundary::Authorization,
            Stage::Precondition => Boundary::Precondition,
            Stage::Execution => Boundary::Execution,
        }
    }
}

impl Boundary {
    pub fn rung(self) -> Rung {
        match self {
            Boundary::Representation => Rung::Representation,
            Boundary::Schema => Rung::Schema,
            Boundary::Semantics => Rung::Semantics,
            Boundary::Authorization => Rung::Authorization,
            Boundary::Precondition => Rung::Precondition,
            Boundary::Unclassified => Rung::Unclassified,
            Boundary::Execution => Rung::Execution,
        }
    }
}

impl Routing {
    /// The rung a failed routing walk names (`None` for `unlabelled`).
    pub fn rung(self) -> Option<Rung> {
        match self {
            Routing::Coverage => Some(Rung::Coverage),
            Routing::Exposure => Some(Rung::Exposure),
            Routing::Discovery => Some(Rung::Discovery),
            Routing::Selection => Some(Rung::Selection),
            Routing::Unlabelled => None,
        }
    }
}

/// A rung serialises as its spelling (`selection`, `passed`).
impl serde::Serialize for Rung {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Rung {
    /// How many rungs there are (the length of [`Rung::ALL`]).
    pub const COUNT: usize = Rung::Passed as usize + 1;

    /// Where a run with no failed rung (none recorded, `passed` or
    /// `unlabelled`) sorts by its first failed rung: after every rung.
    pub const NOT_FAILED_ORDER: i64 = 99;

    /// Whether a decision at this rung failed somewhere: every rung but
    /// `unlabelled` and `passed`. A run's `first_failed_rung` skips the
    /// others.
    pub fn is_failure(self) -> bool {
        !matches!(self, Rung::Unlabelled | Rung::Passed)
    }

    /// The sort position of a run's first failed rung: the walking order
    /// of [`Rung::ALL`] (coverage 0 … progress 11), no failed rung last.
    /// The store's SQL and the TUI's sorting both derive from this.
    pub fn failed_order(rung: Option<Rung>) -> i64 {
        match rung {
            Some(r) if r.is_failure() => r as i64,
            _ => Rung::NOT_FAILED_ORDER,
        }
    }
}

/// The reserved label name meaning "no tool call at all".
pub const NO_CALL: &str = "@no_call";
/// The abstain control when neither the catalogue nor the configuration names one.
pub const DEFAULT_ABSTAIN: &str = "no_applicable_tool";

/// One tool of a catalogue version, as the trace recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub family: String,
    pub effect: Effect,
    pub description: String,
    pub open_world: bool,
    pub idempotent: bool,
    pub input_schema: Option<Value>,
    /// The whole tool object as recorded (governance fields, schemas, extras).
    pub record: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Catalogue {
    pub version: String,
    pub created_at: Option<Timestamp>,
    pub abstain: Option<String>,
    pub tools: Vec<Tool>,
    pub extra: Value,
}

/// The exposure policy in force at a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub allowed_families: Option<Vec<String>>,
    pub max_effect: Option<Effect>,
    pub allow_open_world: bool,
    /// Unknown fields of the recorded policy object.
    pub extra: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub score: Option<f64>,
    pub extra: Value,
}

/// The discovery stage: what a retriever ranked and how many it kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    pub k: u32,
    pub selector: Option<String>,
    pub query: Option<String>,
    pub candidates: Vec<Candidate>,
    pub extra: Value,
}

/// The menu fields a run can pin and a decision can override.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MenuFields {
    pub catalogue: Option<String>,
    pub policy: Option<Policy>,
    pub trusted_controls: Option<Vec<String>>,
    pub retrieval: Option<Retrieval>,
    pub visible: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Status,
    pub stage: Option<Stage>,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub retryable: Option<bool>,
    pub extra: Value,
}

/// What should have happened: acceptable and forbidden names.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Label {
    /// Sorted and deduplicated.
    pub acceptable: Vec<String>,
    /// Sorted and deduplicated.
    pub forbidden: Vec<String>,
}

impl Label {
    pub fn new(mut acceptable: Vec<String>, mut forbidden: Vec<String>) -> Label {
        acceptable.sort();
        acceptable.dedup();
        forbidden.sort();
        forbidden.dedup();
        Label {
            acceptable,
            forbidden,
        }
    }

    pub fn accepts(&self, name: &str) -> bool {
        self.acceptable
            .binary_search_by(|a| a.as_str().cmp(name))
            .is_ok()
    }

    pub fn forbids(&self, name: &str) -> bool {
        self.forbidden
            .binary_search_by(|a| a.as_str().cmp(name))
            .is_ok()
    }
}

/// A parsed, validated RFC 3339 instant, kept as UTC microseconds plus the
/// normalised text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn parse(s: &str) -> Option<Timestamp> {
        chrono::DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| Timestamp(t.timestamp_micros()))
    }

    pub fn micros(self) -> i64 {
        self.0
    }

    pub fn to_datetime(self) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::from_timestamp_micros(self.0).unwrap_or_default()
    }

    /// RFC 3339 in UTC with `Z`, fractional seconds only when present.
    pub fn to_rfc3339(self) -> String {
        self.to_datetime()
            .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub run_id: String,
    pub task_id: Option<String>,
    pub trial: Option<i64>,
    pub goal: Option<String>,
    pub intent: Option<Intent>,
    pub model: Option<String>,
    pub selector: Option<String>,
    pub menu: MenuFields,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    pub terminated: Option<Terminated>,
    pub success: Option<bool>,
    pub harm: Option<bool>,
    pub scope: Option<String>,
    pub tags: Vec<(String, String)>,
    pub extra: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub run_id: String,
    pub step: i64,
    pub turn: Option<i64>,
    pub at: Option<Timestamp>,
    pub phase: Option<String>,
    pub menu: MenuFields,
    pub exposed: Option<Vec<String>>,
    pub selected: Option<String>,
    pub call_id: Option<String>,
    pub arguments: Option<Value>,
    pub raw: Option<Value>,
    pub outcome: Option<Outcome>,
    pub latency_ms: Option<f64>,
    pub result: Option<Value>,
    pub progress: Option<Progress>,
    pub expected: Option<Label>,
    /// The answer an importer keeps for a decision without a call (format
    /// v1.1): what `expected_outputs` are looked for in, beside `raw`. The
    /// native reader leaves it in `extra` too, where importers and the
    /// store have always kept it.
    pub text: Option<String>,
    pub extra: Value,
}

/// A label and/or the expectations of a run (`trace-format.md`, and
/// `expectations.md` for format v1.1).
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub task_id: String,
    pub step: Option<i64>,
    pub catalogue: Option<String>,
    /// `acceptable`/`forbidden`; none on a case that only carries
    /// expectations (it labels no decision directly).
    pub label: Option<Label>,
    /// `expected_calls`, `expected_outputs`, `strings`, `extra_arguments`,
    /// `checker`; only on a step-less case. The native reader leaves the fields
    /// in `extra` too, so a store without columns for them keeps them.
    pub expectations: Expectations,
    pub note: Option<String>,
    pub extra: Value,
}

/// One record of a trace file.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Catalogue(Catalogue),
    Run(Box<Run>),
    Decision(Box<Decision>),
    Case(Box<Case>),
}

impl Record {
    /// How an error message names this record: `decision r-9 step 3`.
    pub fn describe(&self) -> String {
        match self {
            Record::Catalogue(c) => format!("catalogue {}", c.version),
            Record::Run(r) => format!("run {}", r.run_id),
            Record::Decision(d) => format!("decision {} step {}", d.run_id, d.step),
            Record::Case(c) => match c.step {
                Some(s) => format!("case {} step {}", c.task_id, s),
                None => format!("case {}", c.task_id),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_sort_by_their_first_failed_rung_in_walking_order() {
        let order: Vec<(&str, i64)> = Rung::ALL
            .iter()
            .map(|r| (r.as_str(), Rung::failed_order(Some(*r))))
            .collect();
        assert_eq!(
            order,
            vec![
                ("coverage", 0),
                ("exposure", 1),
                ("discovery", 2),
                ("selection", 3),
                ("representation", 4),
                ("schema", 5),
                ("semantics", 6),
                ("authorization", 7),
                ("precondition", 8),
                ("unclassified", 9),
                ("execution", 10),
                ("progress", 11),
                ("unlabelled", 99),
                ("passed", 99),
            ]
        );
        assert_eq!(Rung::failed_order(None), 99);
    }
}
