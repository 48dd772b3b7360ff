//! The classification config: allow-listed libraries, effects, transparent decorators,
//! generatable types and limits, from `classify.toml` (built in) or a user's file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The config built into the binary (`stages/classify/classify.toml`).
pub const DEFAULT_CONFIG: &str = include_str!("../classify.toml");

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub limits: Limits,
    pub libraries: Libraries,
    /// Reason -> dotted prefixes of resolved targets.
    pub effects: BTreeMap<String, Vec<String>>,
    pub decorators: Decorators,
    pub types: Types,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub min_lines: i32,
    pub max_lines: i32,
    pub max_complexity: i32,
    pub max_params: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Libraries {
    pub allowed: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Decorators {
    pub transparent: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Types {
    pub generatable: Vec<String>,
}

/// A config file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read the classification config: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a valid classification config: {message} (see stages/classify/classify.toml for the keys)")]
    Parse { path: String, message: String },
}

impl Config {
    /// The built-in config.
    pub fn builtin() -> Self {
        Self::parse(DEFAULT_CONFIG, "<built-in classify.toml>")
            .expect("the built-in classify.toml is valid")
    }

    /// A user's config: its tables replace the defaults' tables of the same name.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        let parse_err = |message: String| ConfigError::Parse {
            path: shown.clone(),
            message,
        };
        let mut base: toml::Table =
            toml::from_str(DEFAULT_CONFIG).expect("the built-in classify.toml is valid");
        let user: toml::Table = toml::from_str(&text).map_err(|e| parse_err(e.to_string()))?;
        for (key, value) in user {
            match (base.get_mut(&key), value) {
                (Some(toml::Value::Table(b)), toml::Value::Table(u)) => b.extend(u),
                (Some(_) | None, _) => {
                    return Err(parse_err(format!("unknown or misplaced key `{key}`")))
                }
            }
        }
        Self::parse(&toml::to_string(&base).expect("a table serializes"), &shown)
    }

    fn parse(text: &str, shown: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: shown.to_string(),
            message: e.to_string(),
        })
    }

    /// A short hash of the config in force, recorded in every row.
    pub fn hash(&self) -> String {
        let canonical = toml::to_string(self).expect("config serializes");
        schemas::id::content_id(&[canonical.as_bytes()])[..16].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_config_overrides_one_table() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        std::fs::write(&p, "[limits]\nmax_lines = 10\n").unwrap();
        let c = Config::load(&p).unwrap();
        assert_eq!(c.limits.max_lines, 10);
        assert_eq!(c.limits.min_lines, Config::builtin().limits.min_lines);
        assert_ne!(c.hash(), Config::builtin().hash());
    }

    #[test]
    fn unknown_key_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        std::fs::write(&p, "[limitz]\nmax_lines = 10\n").unwrap();
        let err = Config::load(&p).unwrap_err().to_string();
        assert!(err.contains("limitz"), "{err}");
    }
}
