//! The four metrics over runs with expectations (`expectations.md` §6):
//! expected-call recall, argument accuracy, runs as expected and the
//! agreement of that verdict with the run's recorded `success`.

use serde::Serialize;

use super::{Rate, Tally};

/// What the metrics need of one run with expectations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExpectationFacts {
    /// Required expected calls, and how many of them a call matched.
    pub required_calls: u64,
    pub matched_required: u64,
    /// Calls the walk matched or found mismatched, and the matched ones.
    pub judged_calls: u64,
    pub matched_calls: u64,
    /// No missing call, mismatch, unexpected call or missing output.
    pub as_expected: bool,
    /// The run's recorded `success`.
    pub success: Option<bool>,
}

/// The four rates (`rung report metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ExpectationMetrics {
    pub expected_call_recall: Rate,
    pub argument_accuracy: Rate,
    pub runs_as_expected: Rate,
    pub agreement_with_success: Rate,
}

/// Accumulates [`ExpectationMetrics`] one run with expectations at a time
/// (runs without expectations are not added).
#[derive(Debug, Default)]
pub struct ExpectAcc {
    recall: Tally,
    arguments: Tally,
    as_expected: Tally,
    agreement: Tally,
}

impl ExpectAcc {
    pub fn add(&mut self, f: &ExpectationFacts) {
        self.recall.den += f.required_calls;
        self.recall.num += f.matched_required;
        self.arguments.den += f.judged_calls;
        self.arguments.num += f.matched_calls;
        self.as_expected.count(true, f.as_expected);
        if let Some(success) = f.success {
            self.agreement.count(true, f.as_expected == success);
        }
    }

    pub fn finish(self) -> ExpectationMetrics {
        ExpectationMetrics {
            expected_call_recall: self.recall.rate(),
            argument_accuracy: self.arguments.rate(),
            runs_as_expected: self.as_expected.rate(),
            agreement_with_success: self.agreement.rate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_rates_over_runs_with_expectations() {
        let mut acc = ExpectAcc::default();
        // Run 1: 3 required calls, 2 matched; 4 judged calls, 3 matched
        // (a read-only lookup matched too); not as expected, failed: agree.
        acc.add(&ExpectationFacts {
            required_calls: 3,
            matched_required: 2,
            judged_calls: 4,
            matched_calls: 3,
            as_expected: false,
            success: Some(false),
        });
        // Run 2: everything matched, as expected, but recorded a failure.
        acc.add(&ExpectationFacts {
            required_calls: 1,
            matched_required: 1,
            judged_calls: 1,
            matched_calls: 1,
            as_expected: true,
            success: Some(false),
        });
        // Run 3: no expected calls (outputs only), as expected, no success
        // recorded: counts for runs_as_expected, not for agreement.
        acc.add(&ExpectationFacts {
            as_expected: true,
            ..ExpectationFacts::default()
        });
        let m = acc.finish();
        assert_eq!(m.expected_call_recall, Rate::new(3, 4));
        assert_eq!(m.argument_accuracy, Rate::new(4, 5));
        assert_eq!(m.runs_as_expected, Rate::new(2, 3));
        assert_eq!(m.agreement_with_success, Rate::new(1, 2));
    }

    #[test]
    fn no_runs_with_expectations_means_null_rates() {
        let m = ExpectAcc::default().finish();
        assert_eq!(
            serde_json::to_value(m).unwrap(),
            serde_json::json!({
                "expected_call_recall": {"value": null, "numerator": 0, "denominator": 0},
                "argument_accuracy": {"value": null, "numerator": 0, "denominator": 0},
                "runs_as_expected": {"value": null, "numerator": 0, "denominator": 0},
                "agreement_with_success": {"value": null, "numerator": 0, "denominator": 0}
            })
        );
    }
}
