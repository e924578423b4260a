//! A tool's effect when judging calls against expectations
//! (`expectations.md` §3): the catalogue's entry, else the configuration's
//! `[effects]` (exact names and `*` globs, first match in file order), else
//! the MCP annotations of the run's recorded tool definitions, else unknown.

use std::collections::BTreeMap;

use serde_json::Value;

use super::CatalogueView;
use crate::model::Effect;

/// Where an effect came from, for explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectSource {
    Catalogue,
    Config,
    Annotations,
}

impl EffectSource {
    pub fn as_str(self) -> &'static str {
        match self {
            EffectSource::Catalogue => "catalogue",
            EffectSource::Config => "config",
            EffectSource::Annotations => "annotations",
        }
    }
}

/// A tool name or a glob where `*` stands for any run of characters
/// (none included). No other character is special.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePattern {
    text: String,
    /// The literal piece before the first star (the whole text: no star).
    first: String,
    /// The literal pieces after each star.
    rest: Vec<String>,
}

impl NamePattern {
    pub fn new(text: &str) -> NamePattern {
        let (first, rest) = match text.split_once('*') {
            None => (text, Vec::new()),
            Some((first, after)) => (first, after.split('*').map(str::to_string).collect()),
        };
        NamePattern {
            text: text.to_string(),
            first: first.to_string(),
            rest,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, name: &str) -> bool {
        let first = &self.first;
        let Some((last, middle)) = self.rest.split_last() else {
            return name == first;
        };
        let Some(mut tail) = name.strip_prefix(first.as_str()) else {
            return false;
        };
        for piece in middle {
            match tail.find(piece.as_str()) {
                Some(at) => tail = &tail[at + piece.len()..],
                None => return false,
            }
        }
        tail.ends_with(last.as_str())
    }
}

/// The configuration's `[effects]` table, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EffectRules {
    rules: Vec<(NamePattern, Effect)>,
}

impl EffectRules {
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a str, Effect)>) -> EffectRules {
        EffectRules {
            rules: entries
                .into_iter()
                .map(|(p, e)| (NamePattern::new(p), e))
                .collect(),
        }
    }

    /// The effect of the first entry that matches `name`, with the entry.
    pub fn effect(&self, name: &str) -> Option<(Effect, &str)> {
        self.rules
            .iter()
            .find(|(p, _)| p.matches(name))
            .map(|(p, e)| (*e, p.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// The effects MCP annotations give the tools of a run's recorded
/// definitions: `readOnlyHint` true → read_only, else `destructiveHint`
/// true → destructive, else mutating. A definition without an
/// `annotations` object says nothing; the first definition of a name wins.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordedEffects {
    by_name: BTreeMap<String, Effect>,
}

impl RecordedEffects {
    /// From a run's `tool_definitions` (a list of definitions in the MCP,
    /// OpenAI `{"type":"function","function":{...}}` or Anthropic shape);
    /// anything else gives nothing.
    pub fn from_definitions(defs: &Value) -> RecordedEffects {
        let mut by_name = BTreeMap::new();
        for def in defs.as_array().into_iter().flatten() {
            let inner = def.get("function").filter(|f| f.is_object());
            let name = def
                .get("name")
                .or_else(|| inner.and_then(|f| f.get("name")))
                .and_then(Value::as_str);
            let annotations = def
                .get("annotations")
                .or_else(|| inner.and_then(|f| f.get("annotations")))
                .filter(|a| a.is_object());
            let (Some(name), Some(a)) = (name, annotations) else {
                continue;
            };
            let hint = |k: &str| a.get(k).and_then(Value::as_bool) == Some(true);
            let effect = if hint("readOnlyHint") {
                Effect::ReadOnly
            } else if hint("destructiveHint") {
                Effect::Destructive
            } else {
                Effect::Mutating
            };
            by_name.entry(name.to_string()).or_insert(effect);
        }
        RecordedEffects { by_name }
    }

    pub fn effect(&self, name: &str) -> Option<Effect> {
        self.by_name.get(name).copied()
    }
}

/// The effect sources after the catalogue, for one run.
#[derive(Debug, Clone, Copy)]
pub struct Effects<'a> {
    pub rules: &'a EffectRules,
    pub recorded: &'a RecordedEffects,
}

impl Effects<'_> {
    /// The effect of `tool` with `catalogue` in force; `None` is unknown.
    pub fn of(
        &self,
        tool: &str,
        catalogue: Option<&CatalogueView>,
    ) -> Option<(Effect, EffectSource)> {
        if let Some(t) = catalogue.and_then(|c| c.tools.get(tool)) {
            return Some((t.effect, EffectSource::Catalogue));
        }
        if let Some((e, _)) = self.rules.effect(tool) {
            return Some((e, EffectSource::Config));
        }
        self.recorded
            .effect(tool)
            .map(|e| (e, EffectSource::Annotations))
    }
}

#[cfg(test)]
mod tests {
    use super::super::ToolInfo;
    use super::*;
    use serde_json::json;

    #[test]
    fn globs_match_any_run_of_characters() {
        let cases = [
            ("get_*", "get_user_details", true),
            ("get_*", "get_", true),
            ("get_*", "forget_user", false),
            ("*_details", "get_user_details", true),
            ("get_*_details", "get_user_details", true),
            ("get_*_details", "get_details", false),
            ("*", "anything", true),
            ("a*b*c", "abc", true),
            ("a*b*c", "aXbYcZ", false),
            ("a*a", "a", false),
            ("think", "think", true),
            ("think", "thinking", false),
            ("get.?", "get.?", true),
            ("get.?", "getxy", false),
        ];
        for (pattern, name, want) in cases {
            assert_eq!(
                NamePattern::new(pattern).matches(name),
                want,
                "{pattern} vs {name}"
            );
        }
    }

    #[test]
    fn first_rule_in_file_order_wins() {
        let rules = EffectRules::new([
            ("get_reservation_details", Effect::Mutating),
            ("get_*", Effect::ReadOnly),
            ("*", Effect::Destructive),
        ]);
        assert_eq!(
            rules.effect("get_reservation_details"),
            Some((Effect::Mutating, "get_reservation_details"))
        );
        assert_eq!(
            rules.effect("get_user_details"),
            Some((Effect::ReadOnly, "get_*"))
        );
        assert_eq!(
            rules.effect("cancel_reservation"),
            Some((Effect::Destructive, "*"))
        );
        assert_eq!(EffectRules::default().effect("x"), None);
    }

    #[test]
    fn annotations_give_effects_in_every_definition_shape() {
        let defs = json!([
            {"name": "read_doc", "annotations": {"readOnlyHint": true, "destructiveHint": true}},
            {"name": "drop_table", "annotations": {"destructiveHint": true}},
            {"name": "write_doc", "annotations": {"title": "Write", "readOnlyHint": false}},
            {"name": "plain", "description": "no annotations"},
            {"type": "function", "function": {"name": "lookup", "annotations": {"readOnlyHint": true}}},
            {"name": "read_doc", "annotations": {"destructiveHint": true}},
            {"name": "odd", "annotations": "read only"},
            "not a definition"
        ]);
        let r = RecordedEffects::from_definitions(&defs);
        assert_eq!(r.effect("read_doc"), Some(Effect::ReadOnly));
        assert_eq!(r.effect("drop_table"), Some(Effect::Destructive));
        assert_eq!(r.effect("write_doc"), Some(Effect::Mutating));
        assert_eq!(r.effect("lookup"), Some(Effect::ReadOnly));
        assert_eq!(r.effect("plain"), None);
        assert_eq!(r.effect("odd"), None);
        assert_eq!(
            RecordedEffects::from_definitions(&json!({"name": "x"})),
            RecordedEffects::default()
        );
    }

    #[test]
    fn catalogue_then_config_then_annotations_then_unknown() {
        let mut cat = CatalogueView::default();
        cat.tools.insert(
            "cancel".into(),
            ToolInfo {
                family: "f".into(),
                effect: Effect::Destructive,
                open_world: false,
                idempotent: false,
                tokens: 0,
            },
        );
        let rules = EffectRules::new([("cancel", Effect::ReadOnly), ("get_*", Effect::ReadOnly)]);
        let recorded = RecordedEffects::from_definitions(&json!([
            {"name": "get_user", "annotations": {}},
            {"name": "book", "annotations": {"destructiveHint": false}}
        ]));
        let effects = Effects {
            rules: &rules,
            recorded: &recorded,
        };
        assert_eq!(
            effects.of("cancel", Some(&cat)),
            Some((Effect::Destructive, EffectSource::Catalogue))
        );
        assert_eq!(
            effects.of("cancel", None),
            Some((Effect::ReadOnly, EffectSource::Config))
        );
        assert_eq!(
            effects.of("get_user", Some(&cat)),
            Some((Effect::ReadOnly, EffectSource::Config))
        );
        assert_eq!(
            effects.of("book", Some(&cat)),
            Some((Effect::Mutating, EffectSource::Annotations))
        );
        assert_eq!(effects.of("transfer", Some(&cat)), None);
    }
}
