//! What a transcript says about its session beyond the conversation: a
//! title the harness kept, the newest failed call (the outcome of a session
//! that ends without an answer), the file the work was mostly about, and why
//! a file with nothing to capture is refused.
//!
//! Owns: those facts and their wording. Must not: read a format (the
//! readers note the facts).

use super::Transcript;

/// A session title and who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    pub text: String,
    /// Written by a model, not named by the person.
    pub by_model: bool,
}

/// A failed tool call or model request: the line of its output that says
/// what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Messages before it.
    pub after: usize,
    pub error: String,
}

impl Transcript {
    /// Why a transcript a reader understood holds nothing to capture, in the
    /// words a person needs: a sub-agent's file, a session of only harness
    /// bookkeeping or injected turns. `None` when it holds a session, or
    /// when no reader understood it (see [`Transcript::understood`]).
    pub fn nothing_to_capture(&self) -> Option<String> {
        if self.is_model_call() {
            return Some(
                "memsync's own model call (the prompt it sent a model for a memory sentence or \
                 summary): never captured, so capturing it can never call the model again"
                    .into(),
            );
        }
        if self.subagent {
            let parent = match &self.parent_session {
                Some(id) => format!("its parent session {id}"),
                None => "its parent session".to_string(),
            };
            return Some(format!(
                "a sub-agent's session: every turn in it is a sub-agent's, and {parent} holds the work (capture that one)"
            ));
        }
        if self.understood() {
            return None;
        }
        if let Some(parent) = &self.forked_from {
            return Some(format!(
                "a fork of session {parent} with nothing of its own yet: every turn in it is a copy of that session's (capture that one)"
            ));
        }
        let harness = self.format.harness()?;
        Some(if self.dropped_turns > 0 {
            format!(
                "a {harness} session with no conversation: its {} turn(s) were all injected by the harness (slash-command output, hook, plugin or SDK context), with no request from a person and no answer",
                self.dropped_turns
            )
        } else {
            format!(
                "a {harness} session with no conversation: it holds only the harness's bookkeeping lines (settings, queue, cost and title records), no turn of a person or an agent"
            )
        })
    }
}

impl Transcript {
    /// Whether this session is one memsync started itself to write a
    /// sentence or summary: run in its model-call folder, or opened by its
    /// marked prompt (a harness may drop the marker variable, never the text).
    pub fn is_model_call(&self) -> bool {
        if self
            .project
            .as_deref()
            .is_some_and(crate::contract::is_model_call_folder)
        {
            return true;
        }
        if let Some(plain) = &self.plain {
            let head: String = plain.chars().take(4096).collect();
            return crate::contract::is_model_call_prompt(&head);
        }
        self.messages
            .iter()
            .find(|m| m.role == super::Role::User && !m.text.trim().is_empty())
            .is_some_and(|m| crate::contract::is_model_call_prompt(&m.text))
    }
}

impl Transcript {
    /// Marks the newest call of tool `name` as one that failed: a file it
    /// meant to change was not changed (it stays in the transcript).
    pub(crate) fn call_failed(&mut self, name: &str) {
        let call = self
            .messages
            .iter_mut()
            .rev()
            .flat_map(|m| m.tools.iter_mut().rev())
            .find(|t| t.name == name);
        if let Some(call) = call {
            call.kind = super::ToolKind::Other;
        }
    }

    /// Notes that a tool call or the model request failed with `output`.
    pub(crate) fn note_failure(&mut self, output: &str) {
        // Notices a harness writes as a failed result are not the work failing:
        // a transcript repair, a sibling call cancelled for another's error
        // (noted already), the person declining a call.
        const NOT_FAILURES: &[&str] = &[
            "synthetic error result for transcript repair",
            "missing tool result in session history",
            "Cancelled: parallel tool call",
            "The user doesn't want to proceed with this tool use",
            "[Request interrupted by user",
        ];
        if NOT_FAILURES.iter().any(|n| output.contains(n)) {
            return;
        }
        if let Some(error) = error_line(output) {
            self.failure = Some(Failure {
                after: self.messages.len(),
                error,
            });
        }
    }
}

/// Of the files a session changed (in order), the one it was about: the
/// first that is not a file that comes along with any work; else the first
/// of the project's own tooling (a dotfile, a lock file, a dot folder such
/// as `.adr/`); the agent's own memory and instruction notes only when it
/// changed nothing else.
pub fn main_of(changed: &[String]) -> Option<&str> {
    changed
        .iter()
        .min_by_key(|f| incidence(f))
        .map(String::as_str)
}

/// How far a changed file is from the work: 0 the work itself, 1 the
/// project's tooling beside it, 2 the agent's own state (its memory, its
/// instruction and persona files, anything in its home folder).
fn incidence(path: &str) -> u8 {
    const AGENT_NOTES: &[&str] = &[
        "memory.md",
        "heartbeat.md",
        "soul.md",
        "user.md",
        "identity.md",
        "tools.md",
        "bootstrap.md",
        "todo.md",
    ];
    const LOCKS: &[&str] = &[
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "cargo.lock",
        "poetry.lock",
        "uv.lock",
        "gemfile.lock",
        "go.sum",
        "composer.lock",
    ];
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase();
    let daily_log = name.len() == 13
        && name.ends_with(".md")
        && name[..10].chars().filter(char::is_ascii_digit).count() == 8;
    let folders: Vec<&str> = path.split(['/', '\\']).rev().skip(1).collect();
    // A program keeps its state in a dot folder at the top of the home
    // folder (`~/.claude/`, `/home/ana/.codex/`), an agent its notes in `memory/`.
    let agent_home = home_dot_folder(path);
    let instructions = || {
        crate::harness::Harness::ALL
            .into_iter()
            .filter_map(|h| h.instructions_file())
            .any(|f| f.eq_ignore_ascii_case(&name))
    };
    if agent_home
        || AGENT_NOTES.contains(&name.as_str())
        || instructions()
        || daily_log
        || path.contains("memory/")
    {
        return 2;
    }
    // A dot folder holds tooling and project state (`.learnings/`, `.specify/`),
    // except the CI a repository keeps in `.github/`.
    let dot_folder = folders
        .iter()
        .any(|c| c.starts_with('.') && c.len() > 2 && *c != ".github");
    u8::from(name.starts_with('.') || dot_folder || LOCKS.contains(&name.as_str()))
}

/// Whether `path` lies in a dot folder at the top of a home folder
/// (`~/.x/`, `/home/<user>/.x/`, `/Users/<user>/.x/`, `/root/.x/`).
fn home_dot_folder(path: &str) -> bool {
    let parts: Vec<&str> = path.split(['/', '\\']).collect();
    let dot_at = match parts.as_slice() {
        ["~", ..] => 1,
        ["", "root", ..] => 2,
        ["", "home" | "Users", _, ..] => 3,
        _ => return false,
    };
    parts.len() > dot_at + 1 && parts[dot_at].starts_with('.') && parts[dot_at].len() > 1
}

/// The line of a failed call's output that names the error: a traceback's
/// last `SomethingError: …`, an `error:`/`fatal:` line, else the last line.
pub(crate) fn error_line(output: &str) -> Option<String> {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let names_error = |l: &&&str| {
        let head = l.split(':').next().unwrap_or_default();
        let lower = l.to_ascii_lowercase();
        l.contains(':') && (head.ends_with("Error") || head.ends_with("Exception"))
            || ["error", "fatal", "failed", "panicked"]
                .iter()
                .any(|w| lower.starts_with(w))
    };
    let line = lines.iter().rev().find(names_error).or(lines.last())?;
    let line: String = line.chars().take(160).collect();
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::main_of;

    /// The class: a session whose changes mix the work, the project's
    /// tooling and the agent's own state, in any order, under any home.
    #[test]
    fn the_main_file_is_the_work_then_the_projects_tooling_and_the_agents_own_notes_last() {
        let homes = ["/home/ana", "/Users/bo", "/root", "~"];
        for home in homes {
            let agent = [
                format!("{home}/.claude/projects/-p/memory/feedback.md"),
                format!("{home}/.codex/memories/notes.md"),
                format!("{home}/proj/MEMORY.md"),
                format!("{home}/proj/memory/2026-03-02.md"),
            ];
            let tooling = [
                format!("{home}/proj/.adr/ADR-0001-choose-the-router.md"),
                format!("{home}/proj/Cargo.lock"),
                format!("{home}/proj/.gitignore"),
            ];
            let work = format!("{home}/proj/src/router.rs");
            for a in &agent {
                for t in &tooling {
                    let orders = [
                        vec![a.clone(), t.clone(), work.clone()],
                        vec![t.clone(), a.clone(), work.clone()],
                        vec![work.clone(), a.clone(), t.clone()],
                    ];
                    for changed in orders {
                        assert_eq!(main_of(&changed), Some(work.as_str()), "{changed:?}");
                    }
                    for changed in [vec![a.clone(), t.clone()], vec![t.clone(), a.clone()]] {
                        assert_eq!(main_of(&changed), Some(t.as_str()), "{changed:?}");
                    }
                }
                assert_eq!(main_of(std::slice::from_ref(a)), Some(a.as_str()));
            }
        }
        // `.github/` is the repository's CI: work, not tooling.
        let ci = "/home/ana/proj/.github/workflows/ci.yml".to_string();
        let lock = "/home/ana/proj/Cargo.lock".to_string();
        assert_eq!(main_of(&[lock, ci.clone()]), Some(ci.as_str()));
        assert_eq!(main_of(&[]), None);
    }
}
