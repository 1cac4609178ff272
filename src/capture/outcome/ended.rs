//! A run whose transcript ends in its tool calls (the person closed the
//! program, the run was killed, the context ran out): whether it reported
//! anything, and what to say of it when it did not.
//!
//! Owns: telling such a run and the words for it. Must not: choose between
//! the session's answers otherwise (`decide` does).

use super::{
    answer_in, asks_back, cause, is_narration, last_report, lead, narration, without_thinking,
};
use crate::transcript::{Message, Role};

/// What came of a run whose transcript ends in its tool calls, the agent
/// never having said what it did.
pub(super) const ENDED: &str = "the run ended in its tool calls before the agent reported a result";

/// Whether the transcript ends in the agent's tool calls after its last
/// words, and it reported nothing in the whole session: those words were
/// an announcement ("I'll start by splitting payment.py…") or a remark on
/// the way ("Interesting, the fixtures are older than I thought."), not
/// what came of the work. One announcement before a single call, any
/// words before two calls or more, or words its harness marked as said
/// while working, is such a run.
pub(super) fn ended_unreported(messages: &[Message]) -> bool {
    let spoke = |m: &Message| m.role == Role::Assistant && !m.text.trim().is_empty();
    // Tool calls and not a word: cut off before the agent said anything.
    let Some(last) = messages.iter().rposition(spoke) else {
        return messages.iter().any(|m| !m.tools.is_empty());
    };
    if messages.iter().any(|m| spoke(m) && m.reported()) {
        return false;
    }
    let after = &messages[last + 1..];
    if after
        .iter()
        .any(|m| m.role == Role::User && !m.text.trim().is_empty())
    {
        return false;
    }
    let calls = messages[last].tools.len()
        + after
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .map(|m| m.tools.len())
            .sum::<usize>();
    // Words the harness marked as said while working (Codex's commentary)
    // are no report, whatever their wording or calls.
    calls >= 2
        || (calls == 1 && is_narration(&messages[last].text))
        || messages[last].ends_working()
}

/// Whether the thread of the person's last request ends on the agent
/// announcing its next step ("Now let me create the command.") with no
/// call after it, in a thread it was working in: cut off mid-run. An offer ("Let me know if …") or a question
/// to the person closes a turn, and "I'll use tabs from now on" in a chat
/// without calls promises.
pub(super) fn ends_announcing(thread: &[Message]) -> bool {
    let worked = thread.iter().any(|m| !m.tools.is_empty());
    worked
        && thread.last().is_some_and(|m| {
            // Only an announcement: "I'll answer the two questions
            // separately." before the answers is a lead-in, and "Checking
            // the setup. setup.sh resolves …" says what it found.
            let said = answer_in(m.report());
            let one_sentence = said[narration::first_sentence_end(&said)..]
                .trim()
                .is_empty();
            m.role == Role::Assistant
                && one_sentence
                && (m.tools.is_empty() || m.reported())
                && is_narration(&said)
                && !lead::is_offer(&said)
                && !asks_back(&said)
        })
}

/// What the agent found in a thread before its last words: said in the
/// last turn before its calls, or reported by an earlier turn.
pub(super) fn found_before_last_words(thread: &[Message]) -> Option<String> {
    let (last, before) = thread.split_last()?;
    last.said_before_report()
        .map(answer_in)
        .filter(|a| !a.is_empty() && !is_narration(a))
        .or_else(|| last_report(before))
}

/// What the agent told it changed on the way in a thread that then ended
/// in its calls ("Migrated the form to react-hook-form." before "Now let
/// me run the tests:" and the run), newest first, with how the run ended:
/// a change said is what came of it so far, and an announcement or a
/// remark on the way is not one.
pub(super) fn changed_on_the_way(thread: &[Message]) -> Option<String> {
    // Thinking is never what the agent told.
    let told: Vec<String> = (thread.iter().rev())
        .filter(|m| m.role == Role::Assistant)
        .map(|m| without_thinking(&m.text))
        .collect();
    let said = (told.iter().flat_map(|text| text.rsplit("\n\n")))
        .map(str::trim)
        .find(|p| cause::tells_a_change(p) && !is_narration(p))?;
    Some(format!("{said}\n\n{ENDED_AFTER}"))
}

/// How a run that said what it changed, then ended in its calls, ended.
const ENDED_AFTER: &str =
    "Then the run ended in its tool calls, before the agent reported a result.";
