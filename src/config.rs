//! The configuration file (`--config PATH`, TOML): extra reason → stage
//! entries, the default abstain name, extra redaction patterns. It is read at
//! import and kept in the database so every later report classifies alike.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ladder::ReasonTable;
use crate::model::{DEFAULT_ABSTAIN, Stage};

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
        config
            .validate()
            .map_err(|m| Error::usage(format!("{}: {m}", path.display())))?;
        Ok(config)
    }

    /// Checks every entry: stages are stages, redaction patterns compile.
    /// The one place a configuration is judged, before it is stored and
    /// whenever it is read back.
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
        crate::redact::Redactor::new(&self.redact.patterns, false)?;
        Ok(())
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

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("config serialises")
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
