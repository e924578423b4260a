//! The configuration file (`--config PATH`, TOML): extra reason → stage
//! entries, the default abstain name, extra redaction patterns, tool
//! effects and error stages. It is read at import and kept in the database
//! so every later report classifies alike.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, InputError, Result};
use crate::ladder::{EffectRules, ErrorStages, ReasonTable};
use crate::model::{DEFAULT_ABSTAIN, Effect, Stage};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The abstain control for catalogues that do not name one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstain: Option<String>,
    /// Extra `reason = "stage"` entries; they override the defaults.
    #[serde(default)]
    pub reasons: BTreeMap<String, String>,
    #[serde(default)]
    pub redact: Redact,
    /// `[effects]`: tool name or `*` glob → effect, first match in file
    /// order (format v1.1).
    #[serde(default, skip_serializing_if = "OrderedTable::is_empty")]
    pub effects: OrderedTable,
    /// `[error_stages]`: regular expression → stage, first match in file
    /// order (format v1.1).
    #[serde(default, skip_serializing_if = "OrderedTable::is_empty")]
    pub error_stages: OrderedTable,
    /// `[findings]`: the phrases of `announced_no_call`.
    #[serde(default, skip_serializing_if = "FindingsConfig::is_default")]
    pub findings: FindingsConfig,
    /// `[keys]`: the TUI's actions rebound, `action = "key"` (see the
    /// README); the TUI's keymap judges it (`tui::keys`), when the command
    /// line reads the file and when the TUI starts.
    #[serde(default, skip_serializing_if = "OrderedTable::is_empty")]
    pub keys: OrderedTable,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redact {
    /// Regular expressions whose matches are masked like built-in secrets.
    #[serde(default)]
    pub patterns: Vec<String>,
}

impl Config {
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::usage(format!(
                "{}: cannot read the config file: {e}",
                path.display()
            ))
        })?;
        let config: Config = toml::from_str(&text)
            .map_err(|e| Error::usage(format!("{}: {}", path.display(), e.message())))?;
        // What the file holds is wrong: an error naming the file.
        let invalid =
            |m: String| Error::Input(InputError::at(&path.display().to_string(), None, None, m));
        config.validate().map_err(invalid)?;
        Ok(config)
    }

    /// Checks every entry: stages are stages, redaction patterns compile,
    /// and the `[effects]` and `[error_stages]` tables hold effects, stages
    /// and regular expressions. The one place a configuration is judged,
    /// before it is stored and whenever it is read back.
    pub fn validate(&self) -> std::result::Result<(), String> {
        for (reason, stage) in &self.reasons {
            if Stage::parse(stage).is_none() {
                return Err(format!(
                    "[reasons] {reason} = {stage:?}: the stage must be one of {}",
                    Stage::spellings()
                ));
            }
        }
        // Compiled now, so a bad pattern stops the import before anything
        // is stored (and never reaches a report or the TUI).
        crate::redact::Redactor::new(&self.redact.patterns, false).map_err(|e| e.to_string())?;
        self.validate_expectation_tables()?;
        self.findings.validate()
    }

    /// The same configuration for classifying: only `[keys]` (the TUI's)
    /// may differ.
    pub fn classifies_like(&self, other: &Config) -> bool {
        let strip = |c: &Config| Config {
            keys: OrderedTable::default(),
            ..c.clone()
        };
        strip(self) == strip(other)
    }

    pub fn reason_table(&self) -> ReasonTable {
        ReasonTable::with_extra(
            self.reasons
                .iter()
                .filter_map(|(r, s)| Stage::parse(s).map(|s| (r.as_str(), s))),
        )
    }

    /// The abstain name for a catalogue that does not name one.
    pub fn abstain(&self) -> &str {
        self.abstain.as_deref().unwrap_or(DEFAULT_ABSTAIN)
    }

    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }

    /// A configuration as stored; the error says what does not decode or
    /// is not valid.
    pub fn from_json(s: &str) -> std::result::Result<Config, String> {
        let config: Config = serde_json::from_str(s)
            .map_err(|e| format!("the stored configuration does not decode ({e})"))?;
        config
            .validate()
            .map_err(|m| format!("the stored configuration is not valid ({m})"))?;
        Ok(config)
    }
}

/// A TOML table whose entries keep their file order (first match wins in
/// `[effects]` and `[error_stages]`). Values are kept as written and
/// checked by [`Config::load`], so an error can name the key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderedTable(pub Vec<(String, serde_json::Value)>);

impl OrderedTable {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for OrderedTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for OrderedTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = OrderedTable;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<OrderedTable, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    entries.push((k, v));
                }
                Ok(OrderedTable(entries))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// `[effects]` and `[error_stages]` (format v1.1).
impl Config {
    /// Every `[effects]` value names an effect; every `[error_stages]` key
    /// is a regular expression and its value names a stage. The error
    /// names the table and the key.
    fn validate_expectation_tables(&self) -> std::result::Result<(), String> {
        for (name, effect) in &self.effects.0 {
            if effect.as_str().and_then(Effect::parse).is_none() {
                return Err(format!(
                    "[effects] {name:?} = {effect}: the effect must be one of {}",
                    Effect::spellings()
                ));
            }
        }
        for (pattern, stage) in &self.error_stages.0 {
            if stage.as_str().and_then(Stage::parse).is_none() {
                return Err(format!(
                    "[error_stages] {pattern:?} = {stage}: the stage must be one of {}",
                    Stage::spellings()
                ));
            }
            if let Err(e) = regex::Regex::new(pattern) {
                return Err(format!(
                    "[error_stages] {pattern:?}: not a regular expression: {}",
                    e.to_string().replace('\n', " ")
                ));
            }
        }
        Ok(())
    }

    /// The `[effects]` table as the ladder reads it (entries that do not
    /// name an effect, which [`Config::load`] rejects, are left out).
    pub fn effect_rules(&self) -> EffectRules {
        EffectRules::new(
            self.effects
                .0
                .iter()
                .filter_map(|(n, e)| e.as_str().and_then(Effect::parse).map(|e| (n.as_str(), e))),
        )
    }

    /// The `[error_stages]` table compiled; an entry that does not compile
    /// or name a stage (possible only in a stored configuration) is an
    /// error naming it.
    pub fn error_stages(&self) -> std::result::Result<ErrorStages, String> {
        let mut entries = Vec::with_capacity(self.error_stages.0.len());
        for (pattern, stage) in &self.error_stages.0 {
            let stage = stage
                .as_str()
                .and_then(Stage::parse)
                .ok_or_else(|| format!("[error_stages] {pattern:?} = {stage}: not a stage"))?;
            entries.push((pattern.as_str(), stage));
        }
        ErrorStages::compile(entries)
            .map_err(|(p, e)| format!("[error_stages] {p:?}: not a regular expression: {e}"))
    }
}

/// `[findings]`: what the audit findings read from the configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindingsConfig {
    /// Phrases that announce an action (`announced_no_call`); the defaults
    /// ("let me", "I'll check", "I will search", "I need to check",
    /// "first, I'll") when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub announce: Option<Vec<String>>,
    /// Phrases that start like an announcement and are not one; default
    /// "let me know".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_announce: Option<Vec<String>>,
}

/// Most phrases a list may hold, and the longest phrase, in characters.
const MAX_PHRASES: usize = 200;
const MAX_PHRASE_CHARS: usize = 200;

impl FindingsConfig {
    fn is_default(&self) -> bool {
        *self == FindingsConfig::default()
    }

    /// Every phrase is words: not empty, not longer than 200 characters,
    /// no control characters; at most 200 per list. The error names the
    /// key and the phrase's position.
    fn validate(&self) -> std::result::Result<(), String> {
        for (key, list) in [
            ("announce", &self.announce),
            ("not_announce", &self.not_announce),
        ] {
            let Some(list) = list else { continue };
            if list.len() > MAX_PHRASES {
                return Err(format!(
                    "[findings] {key}: {} phrases, at most {MAX_PHRASES} are allowed",
                    list.len()
                ));
            }
            for (i, p) in list.iter().enumerate() {
                let why = if p.trim().is_empty() {
                    Some("is empty".to_string())
                } else if p.chars().count() > MAX_PHRASE_CHARS {
                    Some(format!("is longer than {MAX_PHRASE_CHARS} characters"))
                } else if p.chars().any(char::is_control) {
                    Some("holds a control character".to_string())
                } else {
                    None
                };
                if let Some(why) = why {
                    return Err(format!("[findings] {key}: phrase {} {why}", i + 1));
                }
            }
        }
        Ok(())
    }
}

impl Config {
    /// The phrases `announced_no_call` looks for, configured or default.
    pub fn announce(&self) -> crate::ladder::audit::Announce {
        use crate::ladder::audit::announce::{DEFAULT_IGNORE, DEFAULT_PHRASES};
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let phrases = self
            .findings
            .announce
            .clone()
            .unwrap_or_else(|| own(DEFAULT_PHRASES));
        let ignore = self
            .findings
            .not_announce
            .clone()
            .unwrap_or_else(|| own(DEFAULT_IGNORE));
        crate::ladder::audit::Announce::new(&phrases, &ignore)
    }
}

#[cfg(test)]
mod findings_table {
    use super::*;

    #[test]
    fn announce_phrases_are_read_checked_and_stored() {
        let c: Config = toml::from_str("[findings]\nannounce = [\"on it\", \"let me\"]\n").unwrap();
        c.validate().unwrap();
        assert_eq!(
            c.findings.announce.as_deref(),
            Some(&["on it".to_string(), "let me".to_string()][..])
        );
        assert_eq!(Config::from_json(&c.to_json().unwrap()).unwrap(), c);
        assert_eq!(
            c.to_json().unwrap(),
            r#"{"reasons":{},"redact":{"patterns":[]},"findings":{"announce":["on it","let me"]}}"#
        );
        assert_eq!(
            c.announce(),
            crate::ladder::audit::Announce::new(&["on it", "let me"], &["let me know"])
        );
        assert_eq!(
            Config::default().announce(),
            crate::ladder::audit::Announce::default()
        );
        let err = |text: &str| {
            toml::from_str::<Config>(text)
                .unwrap()
                .validate()
                .unwrap_err()
        };
        assert_eq!(
            err("[findings]\nannounce = [\"let me\", \"  \"]\n"),
            "[findings] announce: phrase 2 is empty"
        );
        assert_eq!(
            err("[findings]\nnot_announce = [\"a\\tb\"]\n"),
            "[findings] not_announce: phrase 1 holds a control character"
        );
        assert_eq!(
            err(&format!(
                "[findings]\nannounce = [\"{}\"]\n",
                "x".repeat(201)
            )),
            "[findings] announce: phrase 1 is longer than 200 characters"
        );
        // An unknown key is refused by name.
        let e = toml::from_str::<Config>("[findings]\nannounces = []\n").unwrap_err();
        assert!(
            e.message().contains("unknown field `announces`"),
            "{}",
            e.message()
        );
    }
}

#[cfg(test)]
mod expectation_tables {
    use super::*;

    #[test]
    fn effects_and_error_stages_keep_file_order() {
        let text = r#"
[effects]
"get_reservation_details" = "mutating"
"get_*" = "read_only"
"think" = "none"
"*" = "mutating"

[error_stages]
"^Error: .*not found" = "semantics"
"^Error:" = "precondition"
"#;
        let c: Config = toml::from_str(text).unwrap();
        c.validate_expectation_tables().unwrap();
        let rules = c.effect_rules();
        assert_eq!(
            rules.effect("get_reservation_details"),
            Some((Effect::Mutating, "get_reservation_details"))
        );
        assert_eq!(
            rules.effect("get_user_details"),
            Some((Effect::ReadOnly, "get_*"))
        );
        assert_eq!(rules.effect("think"), Some((Effect::None, "think")));
        assert_eq!(
            rules.effect("book_reservation"),
            Some((Effect::Mutating, "*"))
        );
        let stages = c.error_stages().unwrap();
        assert_eq!(
            stages.stage_for("Error: user not found").map(|(s, _)| s),
            Some(Stage::Semantics)
        );
        assert_eq!(
            stages
                .stage_for("Error: cabin cannot be changed")
                .map(|(s, _)| s),
            Some(Stage::Precondition)
        );
        // Stored as JSON in the database and read back in the same order.
        let back = Config::from_json(&c.to_json().unwrap()).unwrap();
        assert_eq!(back, c);
        assert_eq!(
            back.error_stages
                .0
                .iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            vec!["^Error: .*not found", "^Error:"]
        );
        // A configuration without the tables serialises as before.
        assert_eq!(
            Config::default().to_json().unwrap(),
            r#"{"reasons":{},"redact":{"patterns":[]}}"#
        );
    }

    #[test]
    fn a_bad_effect_stage_or_pattern_names_table_and_key() {
        let err = |text: &str| {
            let c: Config = toml::from_str(text).unwrap();
            c.validate_expectation_tables().unwrap_err()
        };
        assert_eq!(
            err("[effects]\n\"get_*\" = \"readonly\"\n"),
            "[effects] \"get_*\" = \"readonly\": the effect must be one of none, read_only, mutating, destructive"
        );
        assert_eq!(
            err("[effects]\nthink = 3\n"),
            "[effects] \"think\" = 3: the effect must be one of none, read_only, mutating, destructive"
        );
        assert_eq!(
            err("[error_stages]\n\"Error:\" = \"parsing\"\n"),
            "[error_stages] \"Error:\" = \"parsing\": the stage must be one of representation, schema, semantics, authorization, precondition, execution"
        );
        let e = err("[error_stages]\n\"(unclosed\" = \"schema\"\n");
        assert!(
            e.starts_with(
                "[error_stages] \"(unclosed\": not a regular expression: regex parse error:"
            ),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }
}
