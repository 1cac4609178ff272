//! Where a session worked, as its sentence names it: the files it changed,
//! else a command it ran, else the files it read, else the file the person
//! selected lines of, else the files the agent's answers name.
//!
//! Owns: that part of the sentence. Must not: choose the request or the
//! outcome.

use super::plain::is_path_token;
use crate::transcript::{Role, Transcript};

/// Where the session worked: the files it changed, else a command it ran, else
/// the files it read.
pub(super) fn touched(t: &Transcript) -> Option<String> {
    let changed = t.changed_files();
    if let Some(main) = crate::transcript::main_of(&changed) {
        return Some(format!("changed {}", list(main, changed.len())));
    }
    if let Some(cmd) = t.commands().into_iter().find(|c| c.len() <= 60) {
        return Some(format!("ran `{}`", cmd.replace('`', "'")));
    }
    let read = t.files();
    if let Some(first) = read.first() {
        return Some(format!("read {}", list(first, read.len())));
    }
    // "why is this slow?" over lines selected in the editor is about their file.
    let selected = t.selected_files();
    if let Some(first) = selected.first() {
        return Some(format!("about {}", list(first, selected.len())));
    }
    // A format that keeps no tool calls (an older Gemini CLI chat, an
    // export): the files the agent's answers name in code spans.
    let named = named_files(t);
    named
        .first()
        .map(|first| format!("about {}", list(first, named.len())))
}

/// Files the agent's words name as code (`` `src/pricing.rs` ``), in order,
/// once each; only for a transcript that records no tool call.
fn named_files(t: &Transcript) -> Vec<String> {
    if t.tool_uses().next().is_some() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for m in t.messages.iter().filter(|m| m.role == Role::Assistant) {
        for span in m.text.split('`').skip(1).step_by(2) {
            let span = span.trim();
            if !span.contains(char::is_whitespace)
                && is_path_token(span)
                && span.contains(['/', '.'])
                && !names_no_file(span)
                && !out.iter().any(|o| o == span)
            {
                out.push(span.to_string());
            }
        }
    }
    out
}

/// A name in code that is no file: a web address (`http://localhost:3000`),
/// a package or module (npm's scoped `@hello-pangea/dnd`, Go's
/// `github.com/spf13/cobra`: a host first, no file name last), or a dotted
/// name in a program (`user.name`, `os.path`) whose last part is no file
/// type.
fn names_no_file(span: &str) -> bool {
    let first = span.split('/').next().unwrap_or_default();
    let last = span.rsplit('/').next().unwrap_or_default();
    let web = span.contains("://") || span.starts_with("www.");
    let scoped = first.starts_with('@') && span.matches('/').count() == 1;
    let hosted = first.contains('.') && !first.starts_with('.') && span.contains('/');
    let package = (scoped || hosted) && !last.contains('.');
    let dotted = !span.contains('/')
        && !span.starts_with(['.', '@'])
        && span
            .rsplit_once('.')
            .is_some_and(|(_, ext)| !FILE_TYPES.contains(&ext.to_ascii_lowercase().as_str()));
    // "/api", "/auth/callback": a route a web answer names; a file's
    // absolute path starts at a root of the file system.
    let root = span
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    let route = span.starts_with('/') && !last.contains('.') && !ROOTS.contains(&root);
    web || package || dotted || route
}

/// The first folders of absolute paths on Linux, macOS and WSL.
const ROOTS: &[&str] = &[
    "etc",
    "usr",
    "home",
    "var",
    "tmp",
    "opt",
    "srv",
    "mnt",
    "root",
    "Users",
    "Library",
    "Applications",
    "Volumes",
    "private",
    "proc",
    "sys",
    "dev",
    "bin",
    "sbin",
    "lib",
    "run",
    "media",
    "nix",
    "snap",
    "workspace",
    "workspaces",
    "app",
    "data",
    "code",
];

/// File types a bare file name (`Cargo.toml`, `index.ts`) ends with.
const FILE_TYPES: &[&str] = &[
    "rs",
    "ts",
    "tsx",
    "js",
    "jsx",
    "mjs",
    "cjs",
    "py",
    "pyi",
    "ipynb",
    "go",
    "java",
    "kt",
    "kts",
    "scala",
    "rb",
    "php",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "fs",
    "swift",
    "m",
    "mm",
    "dart",
    "lua",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "zig",
    "nim",
    "jl",
    "r",
    "pl",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "cmd",
    "sql",
    "md",
    "mdx",
    "rst",
    "txt",
    "json",
    "jsonc",
    "jsonl",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "env",
    "lock",
    "xml",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "vue",
    "svelte",
    "astro",
    "csv",
    "tsv",
    "log",
    "proto",
    "graphql",
    "gql",
    "tf",
    "hcl",
    "nix",
    "gradle",
    "properties",
    "plist",
    "svg",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "webp",
    "pdf",
    "zip",
    "gz",
    "tar",
    "db",
    "sqlite",
    "wasm",
    "so",
    "dll",
    "exe",
    "dockerfile",
    "mk",
    "cmake",
    "vim",
    "el",
    "clj",
    "edn",
    "elm",
    "re",
    "sol",
    "vy",
    "cu",
    "ino",
    "sbt",
];

fn list(first: &str, n: usize) -> String {
    match n {
        0 | 1 => first.to_string(),
        2 => format!("{first} and 1 more file"),
        _ => format!("{first} and {} more files", n - 1),
    }
}

#[cfg(test)]
mod tests {
    /// The class: a question over lines the person selected in their editor
    /// (Claude Code's and Codex's IDE extensions; "why is this slow?",
    /// "这里为什么慢？"), answered without a tool: the
    /// sentence says the session was about the selected file, relative to
    /// the project. A file a tool changed or read says more, and wins.
    #[test]
    fn a_question_over_selected_lines_is_about_their_file() {
        let selection = "<ide_selection>The user selected the lines 10 to 20 from /home/dev/shop/src/cart.ts:\nexport function total(items) {}\n\nThis may or may not be related to the current task.</ide_selection>";
        let line = |role: &str, content: serde_json::Value| {
            serde_json::json!({"type": role, "sessionId": "s", "cwd": "/home/dev/shop",
                "message": {"role": role, "content": content}})
            .to_string()
        };
        for ask in ["why is this slow?", "这里为什么慢？"] {
            let answered = [
                line("user", serde_json::json!(format!("{selection}\n{ask}"))),
                line(
                    "assistant",
                    serde_json::json!([{"type": "text", "text": "CartView calls total on every render; memoize it."}]),
                ),
            ];
            let t = crate::harnesses::read(&answered.join("\n"));
            let s = super::super::compose(&t, None).unwrap_or_default();
            assert!(s.contains("about src/cart.ts"), "{s}");
        }
        // The Codex IDE extension: the active file over a selection.
        let rollout = [
            serde_json::json!({"type": "session_meta", "payload": {"id": "019d0000-0000-7000-8000-000000000001", "cwd": "/home/dev/shop", "originator": "codex_vscode", "cli_version": "0.128.0"}}),
            serde_json::json!({"type": "event_msg", "payload": {"type": "user_message", "message": "# Context from my IDE setup:\n\n## Active file: src/cart.ts\n\n## Active selection of the file:\nexport function total() {}\n## Open tabs:\n- cart.ts: src/cart.ts\n\n## My request for Codex:\nwhy is this slow?\n"}}),
            serde_json::json!({"type": "event_msg", "payload": {"type": "agent_message", "message": "CartView calls total on every render; memoize it."}}),
        ];
        let lines: Vec<String> = rollout.iter().map(|l| l.to_string()).collect();
        let t = crate::harnesses::read(&lines.join("\n"));
        let s = super::super::compose(&t, None).unwrap_or_default();
        assert!(s.contains("why is this slow?; about src/cart.ts"), "{s}");
        let edited = [
            line("user", serde_json::json!(format!("{selection}\nfix it"))),
            line(
                "assistant",
                serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Edit",
                "input": {"file_path": "/home/dev/shop/src/CartView.tsx"}}]),
            ),
            line(
                "assistant",
                serde_json::json!([{"type": "text", "text": "Memoized the total in CartView."}]),
            ),
        ];
        let t = crate::harnesses::read(&edited.join("\n"));
        let s = super::super::compose(&t, None).unwrap_or_default();
        assert!(
            s.contains("changed src/CartView.tsx") && !s.contains("about"),
            "{s}"
        );
    }

    /// The class: an answer with no tool call behind it that names, as
    /// code, packages and modules (npm's scoped `@types/node`, Go's
    /// `github.com/spf13/cobra`), web addresses and routes (`/api`), and a
    /// program's dotted names (`user.name`): they are no files the session
    /// was about. A
    /// file it names (`src/pricing.rs`, `Cargo.toml`, `.env`) is.
    #[test]
    fn packages_addresses_and_names_in_code_an_answer_gives_are_no_files_it_was_about() {
        let chat = |answer: &str| {
            let t = super::super::tests::session("how do i fix this peer dependency error", answer);
            super::super::compose(&t, None).unwrap_or_default()
        };
        for package in [
            "@hello-pangea/dnd",
            "@types/node",
            "github.com/spf13/cobra",
            "golang.org/x/sync/errgroup",
            "http://localhost:3000",
            "https://example.com/api/v1/users.json",
            "user.name",
            "os.path",
            "/api",
            "/auth/github/callback",
            "self.cache",
        ] {
            let s = chat(&format!("Switch to `{package}`, which supports React 18."));
            assert!(!s.contains("about"), "{package}: {s}");
        }
        for file in [
            "src/pricing.rs",
            ".github/workflows/ci.yml",
            "@docs/plan.md",
        ] {
            let s = chat(&format!(
                "The version is pinned in `{file}`; raise it there."
            ));
            assert!(s.contains(&format!("about {file}")), "{file}: {s}");
        }
    }
}
