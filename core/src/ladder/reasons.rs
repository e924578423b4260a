//! The reason → stage table: the defaults of `trace-format.md`, extendable
//! from the configuration file.

use std::collections::HashMap;

use crate::model::Stage;

const DEFAULTS: &[(Stage, &[&str])] = &[
    (
        Stage::Representation,
        &[
            "unparseable",
            "unknown_tool",
            "call_in_text",
            "malformed_call",
        ],
    ),
    (
        Stage::Schema,
        &[
            "invalid_argument",
            "schema_violation",
            "missing_argument",
            "unexpected_argument",
        ],
    ),
    (
        Stage::Semantics,
        &[
            "not_found",
            "invoice_not_found",
            "subscription_not_found",
            "customer_not_found",
            "case_not_found",
            "target_not_from_lookup",
            "scope_drift",
            "not_current_period",
            "already_refunded",
            "version_conflict",
            "case_version_conflict",
        ],
    ),
    (
        Stage::Authorization,
        &[
            "not_permitted",
            "outside_intent",
            "insufficient_scope",
            "awaiting_approval",
            "approval_rejected",
        ],
    ),
    (
        Stage::Precondition,
        &[
            "precondition",
            "existing_ticket",
            "subscription_still_active",
            "confirmation_invalid",
            "no_change",
        ],
    ),
    (
        Stage::Execution,
        &[
            "timeout",
            "outcome_unknown",
            "provider_error",
            "rate_limited",
            "internal_error",
        ],
    ),
];

/// Maps an outcome's `reason` to the stage it fails at.
#[derive(Debug, Clone, PartialEq)]
pub struct ReasonTable {
    map: HashMap<String, Stage>,
}

impl Default for ReasonTable {
    fn default() -> Self {
        let mut map = HashMap::new();
        for (stage, reasons) in DEFAULTS {
            for r in *reasons {
                map.insert((*r).to_string(), *stage);
            }
        }
        ReasonTable { map }
    }
}

impl ReasonTable {
    /// The defaults plus `extra` entries; an extra entry overrides a default.
    pub fn with_extra<'a>(extra: impl IntoIterator<Item = (&'a str, Stage)>) -> ReasonTable {
        let mut t = ReasonTable::default();
        for (reason, stage) in extra {
            t.map.insert(reason.to_string(), stage);
        }
        t
    }

    pub fn stage(&self, reason: &str) -> Option<Stage> {
        self.map.get(reason).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_extension() {
        let t = ReasonTable::default();
        assert_eq!(t.stage("outside_intent"), Some(Stage::Authorization));
        assert_eq!(t.stage("unknown_tool"), Some(Stage::Representation));
        assert_eq!(t.stage("already_refunded"), Some(Stage::Semantics));
        assert_eq!(t.stage("existing_ticket"), Some(Stage::Precondition));
        assert_eq!(t.stage("rate_limited"), Some(Stage::Execution));
        assert_eq!(t.stage("budget_exceeded"), None);
        let t = ReasonTable::with_extra([
            ("budget_exceeded", Stage::Authorization),
            ("timeout", Stage::Precondition),
        ]);
        assert_eq!(t.stage("budget_exceeded"), Some(Stage::Authorization));
        assert_eq!(t.stage("timeout"), Some(Stage::Precondition));
    }
}
