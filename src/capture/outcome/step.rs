//! A step the person carries out from the agent's instructions: they type
//! back a command the last answer gave (`notepad token.txt`, `git pull`),
//! and the agent explains that one step. The instructions are what came of
//! the session; the remark on one step of them is not.
//!
//! Owns: recognising such an echo. Must not: choose the report (the outcome
//! module does).

use crate::transcript::{Message, Role};

/// Where the person's last message starts, when it only repeats a command
/// of the agent's answer before it and the agent answered it.
pub(super) fn echoed_step(messages: &[Message]) -> Option<usize> {
    let ask = messages.iter().rposition(|m| m.role == Role::User)?;
    let typed = messages[ask].text.trim();
    let answered = messages[ask + 1..]
        .iter()
        .any(|m| m.role == Role::Assistant && !m.text.trim().is_empty());
    let instructions = messages[..ask]
        .iter()
        .rev()
        .take_while(|m| m.role == Role::Assistant)
        .find(|m| !m.text.trim().is_empty())?;
    (answered && is_command_line(typed) && gives(&instructions.text, typed)).then_some(ask)
}

/// One short line that reads as a command, not a sentence or a question.
fn is_command_line(text: &str) -> bool {
    let length = text.chars().count();
    (2..=160).contains(&length)
        && !text.contains('\n')
        && !text.ends_with(['?', '？', '.', '。', '!', '！'])
}

/// Whether `answer` gives `command` as code: a line of a fenced block, or an
/// inline span.
fn gives(answer: &str, command: &str) -> bool {
    let mut fenced = false;
    for line in answer.lines().map(str::trim) {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if fenced && line.trim_start_matches(['$', '>', ' ']) == command {
            return true;
        }
    }
    answer.contains(&format!("`{command}`"))
}
