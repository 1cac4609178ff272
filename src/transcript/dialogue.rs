//! A plain-text transcript written as a dialogue: `user: …` / `assistant: …`
//! lines (also `**User:**`, `Human:`, `AI:`, `## User` headings, a colon of
//! any width), each starting a turn that runs to the next such line.
//!
//! Owns: telling a dialogue from prose and splitting it into turns. A text is
//! a dialogue only when it opens with a speaker line and both sides speak;
//! anything else stays plain text, whole.

use std::sync::LazyLock;

use regex::Regex;

use super::{Format, Role, Transcript, clean};

/// `speaker: words`, the speaker maybe bold or a heading.
static SPEAKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:#{1,6}\s+)?(?:\*\*|__)?(user|human|you|me|person|assistant|ai|model|bot|agent|claude|codex|gpt|chatgpt|gemini|system)(?:\*\*|__)?\s*(?:[:：]\s*(?:\*\*|__)?|$)(.*)$",
    )
    .expect("a valid pattern")
});

/// The turns of `text` when it is a dialogue; `None` when it is not.
pub(crate) fn read(text: &str, keep: usize) -> Option<Transcript> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    speaker(first)?;
    let mut turns: Vec<(Option<Role>, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        match speaker(line) {
            Some((role, rest)) => turns.push((role, vec![rest])),
            None => {
                if let Some((_, lines)) = turns.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    let spoke = |r: Role| turns.iter().any(|(role, _)| *role == Some(r));
    if !spoke(Role::User) || !spoke(Role::Assistant) {
        return None;
    }
    let mut t = Transcript::bounded(Format::Messages, keep);
    for (role, lines) in turns {
        let text = lines.join("\n");
        match role {
            Some(Role::User) => match clean::agent_cli_user(&text) {
                Some(text) => t.push(Role::User, text, Vec::new(), None),
                None => t.dropped_turns += 1,
            },
            Some(Role::Assistant) => {
                if let Some(text) = clean::assistant(&text) {
                    t.push(Role::Assistant, text, Vec::new(), None);
                }
            }
            // A system line is the harness's, not a turn.
            None => t.dropped_turns += 1,
        }
    }
    Some(t)
}

/// The speaker a line opens with (`None` for the system) and the rest of it.
fn speaker(line: &str) -> Option<(Option<Role>, &str)> {
    let caps = SPEAKER.captures(line)?;
    let name = caps.get(1)?.as_str().to_ascii_lowercase();
    let rest = caps.get(2).map_or("", |m| m.as_str());
    // `User` alone on a line is a speaker only as a heading or with a colon.
    let marked = line.trim_start().starts_with('#') || line.contains(':') || line.contains('：');
    if !marked {
        return None;
    }
    let role = match name.as_str() {
        "user" | "human" | "you" | "me" | "person" => Some(Role::User),
        "system" => None,
        _ => Some(Role::Assistant),
    };
    Some((role, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_assistant_lines_become_turns() {
        let text = "user: add a retry to the payment client\nit times out\n\nassistant: Added backoff in src/pay.rs.\nuser: thanks\n**Assistant:** You're welcome.\n";
        let t = read(text, super::super::UNBOUNDED).expect("a dialogue");
        let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [Role::User, Role::Assistant, Role::User, Role::Assistant]
        );
        assert_eq!(
            t.messages[0].text,
            "add a retry to the payment client\nit times out"
        );
        assert_eq!(t.messages[3].text, "You're welcome.");
    }

    #[test]
    fn prose_and_one_sided_notes_stay_plain_text() {
        let unbounded = super::super::UNBOUNDED;
        assert!(
            read(
                "Notes from Tuesday.\nuser: alice\nassistant: bob\n",
                unbounded
            )
            .is_none()
        );
        assert!(read("user: a question\nuser: another\n", unbounded).is_none());
        assert!(read("User\nwhat a user wants\n", unbounded).is_none());
    }
}
