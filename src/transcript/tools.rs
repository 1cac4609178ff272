//! Tool calls as a transcript shows them: the tool's name and its target (a
//! file, a command as a person would retype it, a URL or a pattern), never
//! its output. Each harness names its tools differently; this maps them.
//!
//! Owns: reading a tool call's arguments and unwrapping shell wrappers.
//! Must not: keep argument bodies (file contents, patches, prompts).

use serde_json::Value;

/// What a tool call did to the session's world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Read a file.
    Read,
    /// Wrote, edited or patched a file.
    Change,
    /// Ran a shell command.
    Command,
    /// Anything else (search, fetch, sub-agent).
    Other,
}

/// One tool call: its name and what it acted on, on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUse {
    pub name: String,
    pub kind: ToolKind,
    pub target: String,
}

impl ToolUse {
    /// The call as a transcript line (``- Edit `src/pay.rs` ``), a target inside `project` shown
    /// relative to it (the project is in the frontmatter; a home folder's
    /// name need not be on every line).
    pub fn line_in(&self, project: Option<&str>) -> String {
        if self.target.is_empty() {
            return format!("- {}", self.name);
        }
        let target = project
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| !p.is_empty())
            .and_then(|p| self.target.strip_prefix(p)?.strip_prefix('/'))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(&self.target);
        format!("- {} `{}`", self.name, target.replace('`', "'"))
    }
}

/// The longest target kept on a transcript line.
const TARGET_CHARS: usize = 200;

/// A tool call from its name and arguments (an object, or a JSON string of one).
pub fn tool_use(name: &str, args: &Value) -> Vec<ToolUse> {
    let parsed;
    let args = match args {
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s).unwrap_or(Value::Null);
            &parsed
        }
        other => other,
    };
    let lower = name.to_ascii_lowercase();
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let path = s("file_path")
        .or_else(|| s("path"))
        .or_else(|| s("notebook_path"))
        .or_else(|| s("filePath"));
    let command = command_of(args);
    // An editor tool's sub-command (`str_replace_editor`, Anthropic's text
    // editor tool, the Copilot CLI before 1.0): `command` is the edit, not a shell.
    let edit = s("command").filter(|c| lower.contains("edit") && path.is_some() && is_edit_verb(c));
    let (kind, target) = match () {
        _ if edit.as_deref() == Some("view") => (ToolKind::Read, path),
        _ if edit.is_some() => (ToolKind::Change, path),
        _ if command.is_some() && !lower.contains("slash") => (ToolKind::Command, command),
        _ if path.is_some()
            && matches!(
                lower.as_str(),
                "write"
                    | "edit"
                    | "multiedit"
                    | "notebookedit"
                    | "str_replace_editor"
                    | "create"
                    | "apply_patch"
                    | "write_file"
                    // Gemini CLI's edit tool.
                    | "replace"
                    | "edit_file"
                    // Cline 3.0's, and its VS Code extension's.
                    | "editor"
                    | "write_to_file"
                    | "replace_in_file"
            ) =>
        {
            (ToolKind::Change, path)
        }
        _ if path.is_some() && lower.contains("read") || lower == "view" || lower == "cat" => {
            (ToolKind::Read, path.clone())
        }
        _ => (
            ToolKind::Other,
            s("pattern")
                .or_else(|| s("url"))
                .or_else(|| s("query"))
                .or_else(|| s("description"))
                .or_else(|| s("command"))
                .or(path),
        ),
    };
    vec![ToolUse {
        name: name.to_string(),
        kind,
        target: one_line(&target.unwrap_or_default()),
    }]
}

/// The sub-commands of an editor tool (`view`, `create`, `str_replace`, …).
fn is_edit_verb(command: &str) -> bool {
    matches!(
        command,
        "view" | "create" | "str_replace" | "insert" | "undo_edit"
    )
}

/// A call of `name` that changed the file at `path`.
pub fn changed(name: &str, path: &str) -> ToolUse {
    ToolUse {
        name: name.to_string(),
        kind: ToolKind::Change,
        target: one_line(path),
    }
}

/// The files an `apply_patch` input names (`*** Update File: path`).
pub fn patch_files(name: &str, input: &str) -> Vec<ToolUse> {
    let mut out = Vec::new();
    for line in input.lines() {
        for prefix in ["*** Update File: ", "*** Add File: ", "*** Delete File: "] {
            if let Some(path) = line.strip_prefix(prefix) {
                out.push(changed(name, path.trim()));
            }
        }
    }
    if out.is_empty() {
        out.push(ToolUse {
            name: name.to_string(),
            kind: ToolKind::Other,
            target: String::new(),
        });
    }
    out
}

/// The command of a shell tool call, unwrapped: a string, or an argv list.
fn command_of(args: &Value) -> Option<String> {
    let raw = match args.get("command").or_else(|| args.get("cmd")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let argv: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            script_of(&argv).unwrap_or_else(|| argv.join(" "))
        }
        _ => return None,
    };
    let cmd = unwrap_shell(&raw);
    (!cmd.is_empty()).then_some(cmd)
}

/// `["bash", "-lc", "script"]`, `["powershell", "-Command", "script"]`: the script.
fn script_of(argv: &[&str]) -> Option<String> {
    let shell = argv
        .first()?
        .rsplit(['/', '\\'])
        .next()?
        .to_ascii_lowercase();
    let is_shell = matches!(
        shell.trim_end_matches(".exe"),
        "bash" | "sh" | "zsh" | "dash" | "fish" | "powershell" | "pwsh" | "cmd"
    );
    if !is_shell {
        return None;
    }
    let flag = argv.iter().position(|a| {
        matches!(
            a.to_ascii_lowercase().as_str(),
            "-c" | "-lc" | "-ic" | "-command" | "/c" | "-noprofile"
        )
    })?;
    argv.get(flag + 1..)
        .map(|rest| rest.iter().filter(|a| !a.starts_with('-')).copied())
        .and_then(|mut rest| rest.next().map(str::to_string))
}

/// Strips what a person would not retype: a leading `cd DIR &&` (the session's
/// cwd), and a wrapping `bash -lc '…'`.
pub fn unwrap_shell(cmd: &str) -> String {
    let mut c = cmd.trim().to_string();
    for _ in 0..4 {
        let before = c.clone();
        for shell in ["bash -lc ", "bash -c ", "sh -c ", "zsh -lc ", "zsh -c "] {
            if let Some(rest) = c.strip_prefix(shell) {
                c = strip_quotes(rest.trim()).to_string();
            }
        }
        if let Some(rest) = c.strip_prefix("cd ")
            && let Some((_, after)) = rest.split_once("&&")
            && !rest
                .split_once("&&")
                .is_some_and(|(dir, _)| dir.contains(';'))
        {
            c = after.trim().to_string();
        }
        if c == before {
            break;
        }
    }
    c
}

fn strip_quotes(s: &str) -> &str {
    for q in ['\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// One line, at most [`TARGET_CHARS`] characters.
fn one_line(s: &str) -> String {
    let line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= TARGET_CHARS {
        return line;
    }
    let cut: String = line.chars().take(TARGET_CHARS).collect();
    format!("{cut}…")
}

/// `path` relative to `project` when it lies under it (either slash style).
pub fn relative_to(path: &str, project: Option<&str>) -> String {
    let Some(project) = project.filter(|p| !p.is_empty()) else {
        return path.to_string();
    };
    let norm = |s: &str| s.replace('\\', "/").to_ascii_lowercase();
    let (p, root) = (norm(path), norm(project.trim_end_matches(['/', '\\'])));
    if p.starts_with(&root) && p[root.len()..].starts_with('/') {
        return path[root.len() + 1..].replace('\\', "/");
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shell_wrappers_are_unwrapped_to_what_a_person_types() {
        let argv =
            json!({"command": ["bash", "-lc", "cd /Users/j/repo && sed -n '1,200p' src/a.ts"]});
        let t = &tool_use("shell", &argv)[0];
        assert_eq!(t.kind, ToolKind::Command);
        assert_eq!(t.target, "sed -n '1,200p' src/a.ts");
        assert_eq!(unwrap_shell("bash -lc 'cargo test'"), "cargo test");
        assert_eq!(unwrap_shell("cd a && cd b && ls"), "ls");
        let ps = json!({"command": ["powershell.exe", "-Command", "Get-ChildItem"]});
        assert_eq!(tool_use("shell", &ps)[0].target, "Get-ChildItem");
    }

    #[test]
    fn files_are_read_or_changed_and_made_project_relative() {
        let edit = &tool_use(
            "Edit",
            &json!({"file_path": "/home/a/erk/src/x.py", "old_string": "a"}),
        )[0];
        assert_eq!(edit.kind, ToolKind::Change);
        assert_eq!(relative_to(&edit.target, Some("/home/a/erk")), "src/x.py");
        let read = &tool_use("read", &json!({"path": "docs/theme.md"}))[0];
        assert_eq!(read.kind, ToolKind::Read);
        let patch = patch_files(
            "apply_patch",
            "*** Begin Patch\n*** Update File: a/b.md\n@@\n-x\n",
        );
        assert_eq!(patch[0].target, "a/b.md");
        assert_eq!(patch[0].kind, ToolKind::Change);
        assert_eq!(
            relative_to("C:\\Users\\l\\V\\!\\x.md", Some("c:\\Users\\l\\V")),
            "!/x.md"
        );
    }

    /// The class: every harness's own tool for writing a file (Gemini CLI's
    /// `replace`, Cline's `replace_in_file`, Copilot CLI's `create`, …) is a
    /// change of that file, so the session says what it changed. A tool of
    /// the same name with no file is not.
    #[test]
    fn each_harness_file_writing_tool_is_a_change() {
        let file = json!({"file_path": "/p/src/a.rs", "old_string": "a", "new_string": "b"});
        let path = json!({"path": "/p/src/a.rs", "content": "x"});
        for (name, args) in [
            ("Edit", &file),
            ("Write", &file),
            ("MultiEdit", &file),
            ("replace", &file),
            ("write_file", &file),
            ("edit", &path),
            ("create", &path),
            ("write", &path),
            ("editor", &path),
            ("write_to_file", &path),
            ("replace_in_file", &path),
        ] {
            let used = &tool_use(name, args)[0];
            assert_eq!(used.kind, ToolKind::Change, "{name}");
            assert_eq!(used.target, "/p/src/a.rs", "{name}");
        }
        for name in ["replace", "write_file", "read_file"] {
            let used = &tool_use(name, &json!({"query": "replace"}))[0];
            assert_ne!(used.kind, ToolKind::Change, "{name} without a file");
        }
        let read = &tool_use("read_file", &json!({"file_path": "/p/src/a.rs"}))[0];
        assert_eq!(read.kind, ToolKind::Read);
    }
}
