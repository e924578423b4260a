//! Error outcomes that name their stage (`expectations.md` §7): an `error`
//! fails at EXECUTION unless the importer recorded another stage (a typed
//! error of the source) or the configuration's `[error_stages]` pattern
//! (first match in file order, on `outcome.message`, else on the result
//! text) names one; it then fails there with reason `error:<stage>`.

use std::borrow::Cow;

use regex::Regex;
use serde_json::Value;

use crate::model::{Stage, Status};

/// The configuration's `[error_stages]`: compiled patterns in file order.
#[derive(Debug, Clone, Default)]
pub struct ErrorStages {
    patterns: Vec<(Regex, Stage)>,
}

impl PartialEq for ErrorStages {
    fn eq(&self, other: &Self) -> bool {
        self.patterns.len() == other.patterns.len()
            && self
                .patterns
                .iter()
                .zip(&other.patterns)
                .all(|((a, s), (b, t))| a.as_str() == b.as_str() && s == t)
    }
}

impl ErrorStages {
    /// From patterns already compiled (the configuration checks them).
    pub fn new(patterns: Vec<(Regex, Stage)>) -> ErrorStages {
        ErrorStages { patterns }
    }

    /// Compiles `(pattern, stage)` pairs; the error names the pattern that
    /// does not compile and why.
    pub fn compile<'a>(
        entries: impl IntoIterator<Item = (&'a str, Stage)>,
    ) -> Result<ErrorStages, (String, regex::Error)> {
        let patterns = entries
            .into_iter()
            .map(|(p, s)| {
                Regex::new(p)
                    .map(|re| (re, s))
                    .map_err(|e| (p.to_string(), e))
            })
            .collect::<Result<_, _>>()?;
        Ok(ErrorStages { patterns })
    }

    /// The stage of the first pattern that matches `text`, with the pattern.
    pub fn stage_for(&self, text: &str) -> Option<(Stage, &str)> {
        self.patterns
            .iter()
            .find(|(re, _)| re.is_match(text))
            .map(|(re, s)| (*s, re.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// Who named the stage of a typed error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorStageSource {
    /// The importer recorded it on the outcome (a typed error of the source).
    Recorded,
    /// This `[error_stages]` pattern matched.
    Pattern(String),
}

/// An `error` outcome that fails at a named stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedError {
    pub stage: Stage,
    pub source: ErrorStageSource,
    /// The source error: the outcome's message, else the result text, else
    /// the recorded reason (whole: whoever shows or stores it masks and
    /// cuts it).
    pub detail: Option<String>,
}

impl TypedError {
    /// The reason the ladder gives the decision: `error:<stage>`.
    pub fn reason(&self) -> String {
        format!("error:{}", self.stage)
    }
}

/// The text of a result as error patterns see it: a string as it is,
/// anything else as compact JSON.
pub fn result_text(result: &Value) -> Cow<'_, str> {
    match result {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.to_string()),
    }
}

/// The typed error of an outcome, if it is one: only `error` outcomes; a
/// stage the importer recorded (other than `execution`) wins over the
/// configuration's patterns. A pattern naming `execution` still types the
/// error (reason `error:execution`), which lets an early entry shield an
/// error from later ones.
pub fn typed_error(
    status: Option<Status>,
    recorded_stage: Option<Stage>,
    reason: Option<&str>,
    message: Option<&str>,
    result: Option<&Value>,
    table: &ErrorStages,
) -> Option<TypedError> {
    if status != Some(Status::Error) {
        return None;
    }
    let text: Option<Cow<'_, str>> = message
        .map(Cow::Borrowed)
        .or_else(|| result.map(result_text));
    if let Some(stage) = recorded_stage.filter(|s| *s != Stage::Execution) {
        return Some(TypedError {
            stage,
            source: ErrorStageSource::Recorded,
            detail: text
                .map(Cow::into_owned)
                .or_else(|| reason.map(str::to_string)),
        });
    }
    let text = text?;
    let (stage, pattern) = table.stage_for(&text)?;
    Some(TypedError {
        stage,
        source: ErrorStageSource::Pattern(pattern.to_string()),
        detail: Some(text.into_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table() -> ErrorStages {
        ErrorStages::compile([
            ("^Error: (?:unknown|invalid) tool", Stage::Representation),
            ("(?i)not found", Stage::Semantics),
            ("Error:", Stage::Precondition),
        ])
        .unwrap()
    }

    #[test]
    fn first_pattern_in_file_order_on_message_else_result() {
        let t = table();
        let err = |message: Option<&str>, result: Option<serde_json::Value>| {
            typed_error(
                Some(Status::Error),
                None,
                None,
                message,
                result.as_ref(),
                &t,
            )
        };
        // The message is matched, and the first pattern that matches wins.
        assert_eq!(
            err(Some("Error: reservation NQNU5R not found"), None),
            Some(TypedError {
                stage: Stage::Semantics,
                source: ErrorStageSource::Pattern("(?i)not found".into()),
                detail: Some("Error: reservation NQNU5R not found".into()),
            })
        );
        assert_eq!(
            err(Some("Error: unknown tool get_weather"), None).map(|e| e.stage),
            Some(Stage::Representation)
        );
        // No message: the result text, a string as it is.
        let e = err(None, Some(json!("Error: cabin cannot be changed"))).unwrap();
        assert_eq!(
            (e.stage, e.reason(), e.detail.as_deref()),
            (
                Stage::Precondition,
                "error:precondition".to_string(),
                Some("Error: cabin cannot be changed")
            )
        );
        // A structured result is matched as compact JSON.
        assert_eq!(
            err(None, Some(json!({"error": "User Not Found"}))).map(|e| e.stage),
            Some(Stage::Semantics)
        );
        // A message that matches nothing: not typed (EXECUTION), even when
        // the result would match.
        assert_eq!(err(Some("timeout"), Some(json!("Error: x"))), None);
        assert_eq!(err(None, None), None);
    }

    #[test]
    fn only_error_outcomes_are_typed_and_a_recorded_stage_wins() {
        let t = table();
        for status in [
            None,
            Some(Status::Ok),
            Some(Status::Refused),
            Some(Status::Unknown),
            Some(Status::NotRun),
        ] {
            assert_eq!(
                typed_error(
                    status,
                    Some(Stage::Schema),
                    None,
                    Some("Error: x"),
                    None,
                    &t
                ),
                None
            );
        }
        // The importer's stage wins over the patterns.
        assert_eq!(
            typed_error(
                Some(Status::Error),
                Some(Stage::Authorization),
                Some("approval"),
                Some("Error: not found"),
                None,
                &t
            ),
            Some(TypedError {
                stage: Stage::Authorization,
                source: ErrorStageSource::Recorded,
                detail: Some("Error: not found".into()),
            })
        );
        // Without a message or result the recorded reason is the detail.
        assert_eq!(
            typed_error(
                Some(Status::Error),
                Some(Stage::Representation),
                Some("parsing"),
                None,
                None,
                &t
            )
            .and_then(|e| e.detail),
            Some("parsing".to_string())
        );
        // A recorded `execution` is no typed stage: the patterns still apply.
        assert_eq!(
            typed_error(
                Some(Status::Error),
                Some(Stage::Execution),
                None,
                Some("Error: x"),
                None,
                &t
            )
            .map(|e| e.stage),
            Some(Stage::Precondition)
        );
        assert_eq!(
            typed_error(
                Some(Status::Error),
                Some(Stage::Execution),
                None,
                Some("boom"),
                None,
                &t
            ),
            None
        );
    }

    #[test]
    fn a_bad_pattern_is_named() {
        let e = ErrorStages::compile([("ok", Stage::Schema), ("(unclosed", Stage::Schema)])
            .unwrap_err();
        assert_eq!(e.0, "(unclosed");
    }
}
