//! The configuration in force, key by key, with where each value came from:
//! the workspace's `memsync.yaml`, the machine config, connect's record, or
//! the built-in default (`memsync config`).
//!
//! Owns: that account. Must not: decide precedence (that is `Settings::load`;
//! this reads the same layers again and names the one that set each key).

use serde::Serialize;
use serde_yaml::Value;

use super::{Config, Settings, read_layer};
use crate::error::Result;

/// One key of the configuration in force.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectiveKey {
    /// Dotted, as in the docs: `git.commit_quiet_ms`.
    pub key: String,
    /// The value as YAML on one line.
    pub value: String,
    /// `workspace <path>`, `machine <path>`, `connect <path>` or `default`.
    pub from: String,
}

/// Every key of `settings`, in the order of the documented config file.
pub fn effective(settings: &Settings) -> Result<Vec<EffectiveKey>> {
    let layer = |p: &Option<std::path::PathBuf>| -> Result<Value> {
        Ok(match p {
            Some(path) => read_layer(path, false)?.unwrap_or(Value::Null),
            None => Value::Null,
        })
    };
    let (workspace, machine) = (
        layer(&settings.sources.workspace)?,
        layer(&settings.sources.machine)?,
    );
    let defaults = serde_yaml::to_value(Config::default()).unwrap_or(Value::Null);
    let mut leaves = Vec::new();
    flatten(
        "",
        &serde_yaml::to_value(&settings.config).unwrap_or(Value::Null),
        &mut leaves,
    );
    let named = |p: &Option<std::path::PathBuf>, what: &str| {
        p.as_ref()
            .map_or(what.to_string(), |p| format!("{what} {}", p.display()))
    };
    let root = EffectiveKey {
        key: "(workspace root)".into(),
        value: settings.root.display().to_string(),
        from: settings.sources.root_from.to_string(),
    };
    Ok(std::iter::once(root)
        .chain(leaves.into_iter().map(|(key, value)| {
            let from = if lookup(&workspace, &key).is_some() {
                named(&settings.sources.workspace, "workspace")
            } else if lookup(&machine, &key).is_some() {
                named(&settings.sources.machine, "machine")
            } else if settings.sources.connect.is_some() && lookup(&defaults, &key) != Some(&value)
            {
                named(&settings.sources.connect, "connect")
            } else {
                "default".to_string()
            };
            EffectiveKey {
                value: one_line(&value),
                key,
                from,
            }
        }))
        .collect())
}

/// The leaves of a mapping as dotted keys; a list is one leaf.
fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Mapping(map) if !map.is_empty() => {
            for (k, v) in map {
                let name = k.as_str().map_or_else(|| one_line(k), String::from);
                let key = match prefix {
                    "" => name,
                    p => format!("{p}.{name}"),
                };
                flatten(&key, v, out);
            }
        }
        _ => out.push((prefix.to_string(), value.clone())),
    }
}

fn lookup<'a>(value: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(value, |v, part| v.get(part))
}

fn one_line(value: &Value) -> String {
    match value {
        // Not `~`, which reads as the home folder beside paths.
        Value::Null => "null".to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Sequence(_) | Value::Mapping(_) => serde_json::to_string(value).unwrap_or_default(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim_end()
            .to_string(),
    }
}
