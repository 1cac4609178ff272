//! Claude Code: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Claude Code's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod reader;
mod user;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Program;
use super::hooks::{self, HookEvent};
use super::listing::{jsonl, markdown, subdirs};
use super::{MemoryPlace, OwnMemory};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// The instruction file memsync's block naming MEMORY.md goes into.
const INSTRUCTIONS: &str = crate::harness::Harness::ClaudeCode.instructions_name();

/// Claude Code: `$CLAUDE_CONFIG_DIR` or `~/.claude`, its sessions in
/// `projects/<slug>/<id>.jsonl` (sub-agent files live one level deeper and
/// are not listed).
pub struct ClaudeCode;

impl Program for ClaudeCode {
    fn foreign_export(&self, first: &str, head: &[&str]) -> Option<crate::transcript::Foreign> {
        reader::is_export(first, head).then_some(reader::EXPORT)
    }

    fn log_format(&self) -> Option<super::SessionLog> {
        Some(super::SessionLog {
            is_log: reader::is_log,
            read: |lines, keep| reader::read(lines, keep),
        })
    }

    /// `claude -p` with only the call folder's own settings (none of the
    /// person's hooks), no MCP servers, no session kept, no tools.
    fn print_mode(&self) -> Option<super::PrintMode> {
        Some(super::PrintMode {
            program: "claude",
            arguments: |_| {
                [
                    "-p",
                    "--output-format",
                    "text",
                    "--setting-sources",
                    "project,local",
                    "--strict-mcp-config",
                    "--no-session-persistence",
                    "--disable-slash-commands",
                    "--tools",
                    "",
                ]
                .map(String::from)
                .to_vec()
            },
            answer_in_file: false,
        })
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn hook_events(&self) -> &'static [&'static str] {
        &connect::EVENTS
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::ClaudeCode),
            env.harness_homes.get(&crate::harness::Harness::ClaudeCode),
            env,
            ".claude",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("projects"))
            .iter()
            .flat_map(|dir| jsonl(dir, ""))
            .collect()
    }

    /// `projects/<slug>/memory/**/*.md`: a `MEMORY.md` index and topic
    /// files per project.
    fn memory_files(&self, home: &Path, _workspace: Option<&Path>) -> Vec<OwnMemory> {
        let mut out = Vec::new();
        for dir in subdirs(&home.join("projects")) {
            for (path, file) in markdown(&dir.join("memory"), 3) {
                out.push(OwnMemory {
                    path,
                    file,
                    project_dir: Some(dir.clone()),
                });
            }
        }
        out
    }

    /// The first `cwd` of the newest session file in the project's folder.
    fn memory_project(&self, project_dir: &Path) -> Option<String> {
        let mut sessions: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(project_dir)
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        sessions.sort();
        sessions.iter().rev().find_map(|(_, p)| first_cwd(p))
    }

    fn memory_place(&self, home: &Path, file: &str, project: Option<&Path>) -> MemoryPlace {
        match project {
            Some(dir) => MemoryPlace::At(
                home.join("projects")
                    .join(slug(dir))
                    .join("memory")
                    .join(file),
            ),
            None => MemoryPlace::PerProject,
        }
    }

    /// The `projects` of `.claude.json`, in the home folder or its own.
    fn known_projects(&self, home: &Path, user_home: Option<&Path>) -> Vec<PathBuf> {
        let files = [
            user_home.map(|h| h.join(".claude.json")),
            Some(home.join(".claude.json")),
        ];
        let mut out = Vec::new();
        for path in files.iter().flatten() {
            let Ok(text) = crate::files::read_text_at(path) else {
                continue;
            };
            let Ok(v) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if let Some(projects) = v.get("projects").and_then(|p| p.as_object()) {
                out.extend(projects.keys().map(PathBuf::from).filter(|p| p.is_dir()));
            }
        }
        out
    }

    fn hook_role(&self, event: &str, _payload: &Value) -> Option<HookEvent> {
        hooks::common_event(event).or(match event {
            "PostCompact" => Some(HookEvent::Compacted),
            "UserPromptSubmit" => Some(HookEvent::Prompt),
            _ => None,
        })
    }
}

/// Its folder name for a project path: every character but ASCII letters
/// and digits made `-`.
fn slug(project: &Path) -> String {
    project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
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
            let v: Value = serde_json::from_str(&line).ok()?;
            v.get("cwd")?.as_str().map(str::to_string)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_path_becomes_claude_codes_folder_name() {
        assert_eq!(slug(Path::new("/home/dev/proj1")), "-home-dev-proj1");
        assert_eq!(slug(Path::new("/a/my_app.v2")), "-a-my-app-v2");
    }
}
