//! Where each harness keeps the memory it writes itself, and the project a
//! memory folder is about.
//!
//! - Claude Code: `<claude home>/projects/<slug>/memory/**/*.md` (a
//!   `MEMORY.md` index and topic files), the slug being the project's path
//!   with every character but ASCII letters and digits made `-`; the project
//!   is the `cwd` its sessions in `projects/<slug>/` record.
//! - Codex: `<codex home>/memories/*.md` (its consolidated memory; the
//!   per-rollout summaries below it are sessions memsync captures itself).
//! - OpenClaw: the curated text of its workspace's `MEMORY.md`, outside
//!   memsync's block.
//!
//! Owns: those layouts. Must not: write anything.

use std::path::{Path, PathBuf};

use crate::harness::Harness;

/// One file of a harness's own memory.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFile {
    pub harness: Harness,
    pub path: PathBuf,
    /// Its path inside the harness's memory folder (`/`-separated).
    pub file: String,
    /// Claude Code: `projects/<slug>`, whose sessions name the project.
    pub project_dir: Option<PathBuf>,
}

/// Every memory file of `harness` under its folder `home`; for OpenClaw,
/// the `MEMORY.md` of its workspace `openclaw_workspace`.
pub fn list(harness: Harness, home: &Path, openclaw_workspace: Option<&Path>) -> Vec<MemoryFile> {
    let mut out = Vec::new();
    match harness {
        Harness::ClaudeCode => {
            for dir in crate::harnesses::listing::subdirs(&home.join("projects")) {
                let memory = dir.join("memory");
                for (path, file) in markdown(&memory, 3) {
                    out.push(MemoryFile {
                        harness,
                        path,
                        file,
                        project_dir: Some(dir.clone()),
                    });
                }
            }
        }
        Harness::Codex => {
            for (path, file) in markdown(&home.join("memories"), 1) {
                out.push(MemoryFile {
                    harness,
                    path,
                    file,
                    project_dir: None,
                });
            }
        }
        Harness::OpenClaw => {
            if let Some(ws) = openclaw_workspace {
                let path = ws.join("MEMORY.md");
                if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                    out.push(MemoryFile {
                        harness,
                        path,
                        file: "MEMORY.md".into(),
                        project_dir: None,
                    });
                }
            }
        }
        // No memory folder of their own is imported yet (Gemini CLI's and
        // qwen-code's saved memories live in their GEMINI.md / QWEN.md).
        Harness::Pi
        | Harness::GeminiCli
        | Harness::QwenCode
        | Harness::CopilotCli
        | Harness::Opencode
        | Harness::Cline => {}
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The regular `*.md` files below `dir` (hidden ones left out), at most
/// `depth` folders deep, with their `/`-separated paths inside it.
fn markdown(dir: &Path, depth: usize) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_file() && name.ends_with(".md") {
            out.push((e.path(), name));
        } else if kind.is_dir() && depth > 1 {
            for (p, inner) in markdown(&e.path(), depth - 1) {
                out.push((p, format!("{name}/{inner}")));
            }
        }
    }
    out
}

/// Claude Code's folder name for a project path.
pub fn claude_slug(project: &Path) -> String {
    project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The project Claude Code's sessions in `project_dir` ran in: the first
/// `cwd` of its newest session file.
pub fn claude_project(project_dir: &Path) -> Option<String> {
    let mut sessions: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(project_dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    sessions.sort();
    sessions.iter().rev().find_map(|(_, p)| first_cwd(p))
}

fn first_cwd(path: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    let file = std::fs::File::open(path).ok()?;
    let reader = std::io::BufReader::new(file.take(256 * 1024));
    reader
        .lines()
        .take(200)
        .map_while(Result::ok)
        .find_map(|line| {
            let v: serde_json::Value = serde_json::from_str(&line).ok()?;
            v.get("cwd")?.as_str().map(str::to_string)
        })
}

/// A folder's git remote (`origin`), as `host/path` without credentials,
/// scheme or `.git`, so the ssh and https forms of one remote are equal.
pub fn remote_of(dir: &Path) -> Option<String> {
    if !dir.is_dir() {
        return None;
    }
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["config", "--get", "remote.origin.url"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let url = String::from_utf8(out.stdout).ok()?;
    normal_remote(url.trim())
}

/// `https://user:token@github.com/a/b.git` and `git@github.com:a/b` as
/// `github.com/a/b`.
pub fn normal_remote(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let rest = match rest.split_once(':') {
        // scp-like `host:path`, not `host:port/path`.
        Some((host, path)) if !url.contains("://") => format!("{host}/{path}"),
        _ => rest.to_string(),
    };
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    (!rest.is_empty()).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_path_becomes_claude_codes_folder_name() {
        assert_eq!(claude_slug(Path::new("/home/dev/proj1")), "-home-dev-proj1");
        assert_eq!(claude_slug(Path::new("/a/my_app.v2")), "-a-my-app-v2");
    }

    #[test]
    fn remotes_lose_credentials_scheme_and_suffix() {
        let same = "github.com/a/b";
        assert_eq!(
            normal_remote("git@github.com:a/b.git").as_deref(),
            Some(same)
        );
        assert_eq!(
            normal_remote("https://user:ghp_secret@github.com/a/b.git").as_deref(),
            Some(same)
        );
        assert_eq!(
            normal_remote("ssh://git@github.com/a/b/").as_deref(),
            Some(same)
        );
        assert_eq!(normal_remote(""), None);
    }
}
