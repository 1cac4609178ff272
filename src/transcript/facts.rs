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
/// first that is not a file that comes along with any work (a dotfile, a
/// lock file, the agent's own memory and instruction notes), else the first.
pub fn main_of(changed: &[String]) -> Option<&str> {
    let main = changed.iter().find(|f| !is_incidental(f));
    main.or(changed.first()).map(String::as_str)
}

/// A file changed beside the work rather than as it: `.gitignore`, a lock
/// file, `MEMORY.md`, a daily log, an agent's instruction file.
fn is_incidental(path: &str) -> bool {
    const NAMES: &[&str] = &[
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "cargo.lock",
        "poetry.lock",
        "uv.lock",
        "gemfile.lock",
        "go.sum",
        "composer.lock",
        "memory.md",
        "agents.md",
        "claude.md",
        "gemini.md",
        "heartbeat.md",
        "soul.md",
        "user.md",
        "identity.md",
        "tools.md",
        "bootstrap.md",
        "todo.md",
    ];
    let name = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_lowercase();
    let daily_log = name.len() == 13
        && name.ends_with(".md")
        && name[..10].chars().filter(char::is_ascii_digit).count() == 8;
    // A dot folder holds tooling and agent state (`.learnings/`, `.specify/`),
    // except the CI a repository keeps in `.github/`.
    let dot_folder = path
        .split(['/', '\\'])
        .rev()
        .skip(1)
        .any(|c| c.starts_with('.') && c.len() > 2 && c != ".github");
    name.starts_with('.')
        || dot_folder
        || NAMES.contains(&name.as_str())
        || daily_log
        || path.contains("memory/")
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
