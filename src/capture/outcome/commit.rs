//! The commit a session ended with: one the agent made in its last turn
//! (`git commit -m …`, Aider's own commit), else one its last report
//! proposes ("Here's the commit message:" and the message).
//!
//! Owns: reading a commit subject out of a turn. Must not: word or clip it
//! (the sentence and the summary do).

use crate::sentence::word_count;
use crate::transcript::{AIDER_COMMIT, Message, Role};

/// A commit that seals a session's work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commit {
    /// The agent (or the harness) committed with this subject.
    Made(String),
    /// The last report proposes this subject without committing.
    Proposed(String),
}

impl Commit {
    /// The commit's subject line.
    pub fn subject(&self) -> &str {
        match self {
            Commit::Made(s) | Commit::Proposed(s) => s,
        }
    }
}

/// The commit of a session's last turn, or the one its report proposes.
pub(super) fn sealing_commit(messages: &[Message], report: &str) -> Option<Commit> {
    made(messages)
        .map(Commit::Made)
        .or_else(|| proposed(report).map(Commit::Proposed))
}

/// The subject of the last commit the agent ran in its final turn (after the
/// person's last request): the concrete outcome of a session that ends so.
fn made(messages: &[Message]) -> Option<String> {
    let last = messages.last().filter(|m| m.role == Role::Assistant)?;
    // A commit the harness made itself names its message.
    if let Some(made) = last.tools.iter().rev().find(|c| c.name == AIDER_COMMIT) {
        let subject = made.target.lines().next().unwrap_or_default().trim();
        return (word_count(subject) >= 3).then(|| subject.to_string());
    }
    let cmd = last
        .tools
        .iter()
        .rev()
        .find(|c| c.target.contains("git commit") && c.target.contains("-m"))?;
    let after = cmd.target.split_once("-m")?.1.trim_start();
    let after = after
        .strip_prefix("\"$(cat <<'EOF'")
        .or_else(|| after.strip_prefix("\"$(cat <<EOF"))
        .unwrap_or(after);
    let msg = after.trim_start_matches(['"', '\'', ' ']);
    let end = msg.find(['"', '\'', '\n']).unwrap_or(msg.len());
    let subject = msg[..end].trim();
    (word_count(subject) >= 3).then(|| subject.to_string())
}

/// The commit message a report ends by proposing ("Here's the commit
/// message:" and a fenced or quoted line).
fn proposed(report: &str) -> Option<String> {
    let mut lines = report.lines().map(str::trim).filter(|l| !l.is_empty());
    lines.find(|l| l.to_lowercase().contains("commit message") && l.ends_with([':', '：']))?;
    let subject = lines.find(|l| !l.starts_with("```"))?;
    let subject = subject.trim_matches(['"', '\'', '`']).trim();
    (word_count(subject) >= 3).then(|| subject.to_string())
}
