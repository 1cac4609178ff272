//! Hook handlers in a harness's JSON settings: Claude Code's, Gemini CLI's
//! and qwen-code's in matcher groups, Copilot CLI's listed flat.
//!
//! Owns: finding, adding and taking out memsync's handlers. Must not: touch
//! any other handler, or write a file (the caller does).

use std::path::Path;

use jsonc_parser::cst::CstInputValue;

use super::{parse_json, remove_if_empty};
use crate::error::Result;

/// A Claude Code hook handler's command runs memsync's capture hook.
pub fn is_memsync_hook(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let runs_memsync = words.iter().any(|w| {
        w.trim_matches(['\'', '"'])
            .rsplit('/')
            .next()
            .is_some_and(|name| name == "memsync")
    });
    runs_memsync && command.contains("capture --hook ")
}

/// A hook handler's command: Claude Code's `command`, Copilot CLI's `bash`.
fn handler_command(handler: &serde_json::Value) -> Option<&str> {
    handler["command"]
        .as_str()
        .or_else(|| handler["bash"].as_str())
}

/// The commands of every handler under `event` in settings.json's `hooks`:
/// in matcher groups (Claude Code, Gemini CLI, qwen-code) or listed flat
/// (Copilot CLI).
pub fn hook_commands(path: &Path, text: &str, event: &str) -> Result<Vec<String>> {
    let root = parse_json(path, text)?;
    let Some(hooks) = root.object_value().and_then(|o| o.object_value("hooks")) else {
        return Ok(Vec::new());
    };
    let value = hooks.get(event).and_then(|p| p.to_serde_value());
    let mut commands = Vec::new();
    for group in value
        .iter()
        .flat_map(|v| v.as_array().into_iter().flatten())
    {
        let handlers = match group["hooks"].as_array() {
            Some(handlers) => handlers.iter().collect(),
            None => vec![group],
        };
        commands.extend(
            handlers
                .into_iter()
                .filter_map(handler_command)
                .map(String::from),
        );
    }
    Ok(commands)
}

/// The events of `events` that have no memsync hook yet.
fn unhooked<'e>(path: &Path, text: &str, events: &[&'e str]) -> Result<Vec<&'e str>> {
    let mut missing = Vec::new();
    for event in events {
        if !hook_commands(path, text, event)?
            .iter()
            .any(|c| is_memsync_hook(c))
        {
            missing.push(*event);
        }
    }
    Ok(missing)
}

/// Copilot CLI's layout: a handler running `command` with bash, listed
/// straight under each event that has no memsync hook yet.
pub fn add_flat_hooks(
    path: &Path,
    text: &str,
    events: &[&str],
    (command, timeout_sec): (&str, u64),
) -> Result<String> {
    append_to_unhooked(path, text, events, || {
        CstInputValue::Object(vec![
            ("type".into(), "command".into()),
            ("bash".into(), command.into()),
            ("timeoutSec".into(), timeout_sec.into()),
        ])
    })
}

/// Adds a handler running `command` under each event that has no memsync
/// hook yet, in a matcher group of its own; other hooks stay as they are.
/// `timeout` is in the harness's unit (Claude Code, qwen-code: seconds; Gemini CLI: ms).
pub fn add_hooks(
    path: &Path,
    text: &str,
    events: &[&str],
    (command, timeout): (&str, u64),
) -> Result<String> {
    append_to_unhooked(path, text, events, || {
        let handler = CstInputValue::Object(vec![
            ("type".into(), "command".into()),
            ("command".into(), command.into()),
            ("timeout".into(), timeout.into()),
        ]);
        CstInputValue::Object(vec![("hooks".into(), CstInputValue::Array(vec![handler]))])
    })
}

/// Appends `entry()` to the list of each event in `events` that has no
/// memsync hook yet; a text with nothing to add comes back as it was.
fn append_to_unhooked(
    path: &Path,
    text: &str,
    events: &[&str],
    entry: impl Fn() -> CstInputValue,
) -> Result<String> {
    let missing = unhooked(path, text, events)?;
    if missing.is_empty() {
        return Ok(text.to_string());
    }
    let root = parse_json(path, text)?;
    let hooks = root.object_value_or_set().object_value_or_set("hooks");
    for event in missing {
        let list = hooks.array_value_or_set(event);
        if !list.elements().is_empty() {
            // One entry per line, rather than a long line with a block after
            // it (only layout: the undo patch puts it back).
            list.ensure_multiline();
        }
        list.append(entry());
    }
    Ok(root.to_string())
}

/// Takes out the handlers whose command is one of `ours`, then the groups,
/// event lists and `hooks` object that this left empty.
pub fn remove_hooks(path: &Path, text: &str, ours: &[String]) -> Result<String> {
    let root = parse_json(path, text)?;
    let Some(hooks) = root.object_value().and_then(|o| o.object_value("hooks")) else {
        return Ok(text.to_string());
    };
    for event in hooks.properties() {
        let Some(groups) = event.array_value() else {
            continue;
        };
        for group in groups.elements() {
            let Some(handlers) = group.as_object().and_then(|g| g.array_value("hooks")) else {
                // Copilot CLI's handlers stand in the list itself.
                let flat = group.to_serde_value();
                if flat
                    .as_ref()
                    .and_then(handler_command)
                    .is_some_and(|c| ours.iter().any(|o| o == c))
                {
                    group.remove();
                }
                continue;
            };
            for handler in handlers.elements() {
                let command = handler.to_serde_value();
                let command = command.as_ref().and_then(handler_command);
                if command.is_some_and(|c| ours.iter().any(|o| o == c)) {
                    handler.remove();
                }
            }
            if handlers.elements().is_empty() {
                group.remove();
            }
        }
        if groups.elements().is_empty() {
            event.remove();
        }
    }
    remove_if_empty(&hooks);
    Ok(root.to_string())
}
