//! memsync's MCP server entry in a harness config that is JSON with comments
//! allowed (JSON5-ish), below a path of objects; each harness that keeps one
//! declares its [`Json5Mcp`] in its folder's `connect.rs`.
//!
//! The file is edited through a concrete syntax tree, so comments, order and
//! layout stay.
//!
//! Owns: that entry. Must not: write files (the caller does).

use std::path::Path;

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

use crate::error::{ConnectError, Result};

/// An entry's fields, in the order they are written.
type Fields = Vec<(&'static str, Value)>;

/// Where a harness keeps MCP servers, and the shape of memsync's entry.
pub struct Json5Mcp {
    pub harness: crate::harness::Harness,
    /// The objects the entry sits in, outermost first.
    pub parents: &'static [&'static str],
    /// The entry's fields for `exe args`, in the order they are written.
    pub entry: fn(&str, &[String]) -> Fields,
    /// The arguments an entry runs memsync with: an entry whose arguments
    /// are memsync's (another binary, the same workspace) is memsync's own.
    pub args_of: fn(&Value) -> Value,
}

fn parse(path: &Path, text: &str) -> Result<CstRootNode> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    CstRootNode::parse(source, &ParseOptions::default()).map_err(|e| {
        ConnectError::Unreadable {
            path: path.to_path_buf(),
            reason: format!("not valid JSON5: {e}; left untouched"),
        }
        .into()
    })
}

/// A JSON value as the syntax tree takes it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

impl Json5Mcp {
    /// The objects down to the entry's parent, if they are all there.
    fn parent_objects(&self, root: &CstRootNode) -> Option<Vec<CstObject>> {
        let mut objects = vec![root.object_value()?];
        for key in self.parents {
            let next = objects.last()?.object_value(key)?;
            objects.push(next);
        }
        Some(objects)
    }

    /// The `memsync` entry, if any.
    pub fn get(&self, path: &Path, text: &str) -> Result<Option<Value>> {
        let root = parse(path, text)?;
        Ok(self
            .parent_objects(&root)
            .and_then(|o| o.last()?.get("memsync"))
            .and_then(|p| p.to_serde_value()))
    }

    /// Sets the `memsync` entry to run `exe args`; an entry of that name
    /// with other arguments is the user's unless `replace`.
    pub fn set(
        &self,
        path: &Path,
        text: &str,
        (exe, args): (&str, &[String]),
        replace: bool,
    ) -> Result<String> {
        let fields = (self.entry)(exe, args);
        let wanted: Value = fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<serde_json::Map<_, _>>()
            .into();
        match self.get(path, text)? {
            Some(e) if e == wanted => return Ok(text.to_string()),
            Some(e) if !replace && (self.args_of)(&e) != serde_json::json!(args) => {
                return Err(ConnectError::Conflict {
                    path: path.to_path_buf(),
                    reason: format!(
                        "already has an MCP server named `memsync` that memsync did not write; left as it is (remove it, or run `memsync connect {} --force` to replace it)",
                        self.harness
                    ),
                }
                .into());
            }
            _ => {}
        }
        let root = parse(path, text)?;
        let mut parent = root.object_value_or_set();
        for key in self.parents {
            parent = parent.object_value_or_set(key);
        }
        let value = CstInputValue::Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), input(v)))
                .collect(),
        );
        match parent.get("memsync") {
            Some(prop) => prop.set_value(value),
            None => {
                parent.append("memsync", value);
            }
        }
        Ok(root.to_string())
    }

    /// Takes the `memsync` entry out when it runs `args`, then the parent
    /// objects that this left empty.
    pub fn remove(&self, path: &Path, text: &str, args: &[String]) -> Result<String> {
        if self
            .get(path, text)?
            .is_some_and(|e| (self.args_of)(&e) != serde_json::json!(args))
        {
            return Ok(text.to_string());
        }
        let root = parse(path, text)?;
        let Some(objects) = self.parent_objects(&root) else {
            return Ok(text.to_string());
        };
        let Some(prop) = objects.last().and_then(|o| o.get("memsync")) else {
            return Ok(text.to_string());
        };
        prop.remove();
        // Innermost first; the root object itself stays.
        for object in objects.iter().skip(1).rev() {
            super::edit::remove_if_empty(object);
        }
        Ok(root.to_string())
    }
}
