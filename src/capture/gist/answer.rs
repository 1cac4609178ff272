//! The outcome's part of the sentence: the sentence of the agent's last
//! answer that says something, past its introduction, acknowledgements and
//! offers, and with the command or definition a lead-in line announces.
//!
//! Owns: reading one answer's text. Must not: choose which answer is the
//! outcome (`outcome::decide` does) or clip it (the sentence does).

use super::{after, first_sentence, gist, lead, prose_lines, short_paths, unmarked};
use crate::sentence::word_count;

/// The first sentence of an answer that says something: "Done!", "Good
/// catch!" and "Let me check." give way to the sentence after them.
pub(super) fn outcome_gist(answer: &str) -> String {
    let (said, mut rest) = past_introduction(answer.trim());
    let items = short_list(rest);
    if let Some(head) = said {
        return lead::joined(head, &items.unwrap_or_else(|| gist(rest)));
    }
    if let Some(items) = items {
        return items;
    }
    let mut first = None;
    for _ in 0..4 {
        let one = gist(rest);
        if one.is_empty() {
            break;
        }
        // "네, 알겠습니다." and "承知しました。" before the result are not it.
        // "I see the problem now.", "You asked me to add tax." and "Would
        // you like me to add jitter?" stand around the result without being it.
        let narration = super::super::outcome::is_narration(&one)
            || super::super::outcome::is_acknowledgement(&one)
            || super::super::outcome::is_agreement(&one)
            || lead::is_realisation(&one)
            || lead::is_restatement(&one)
            || lead::is_offer(&one);
        // "✅" after "Done!" says less than it: a sentence has a word.
        if !narration && one.chars().any(char::is_alphanumeric) {
            first.get_or_insert_with(|| one.clone());
        }
        let one = with_command(rest, one);
        if word_count(&one) >= 4 && !narration {
            let said = super::super::outcome::past_acknowledging_clause(&one);
            return lead::past_lead_in(said).to_string();
        }
        let Some(pos) = rest.find(one.trim_end_matches('…')).map(|p| p + one.len()) else {
            break;
        };
        rest = rest
            .get(pos..)
            .unwrap_or_default()
            .trim_start_matches(['.', '!', '?', ' ', '\n']);
    }
    first.unwrap_or_else(|| {
        Some(gist(answer.trim()))
            .filter(|g| g.chars().any(char::is_alphanumeric))
            .unwrap_or_else(|| first_sentence(answer.trim()))
    })
}

/// "Restart it with:" before a fenced command goes on into the command's
/// line, and "Here's the function:" into the definition it shows: cut
/// before it, the sentence says nothing.
fn with_command(text: &str, line: String) -> String {
    if !line.ends_with([':', '：']) {
        return line;
    }
    match after(text, &line).and_then(|t| fenced_command(t).or_else(|| lead::fenced_definition(t)))
    {
        Some(command) => format!("{line} {command}"),
        None => line,
    }
}

/// The command a text opens with in a shell's fence (or a bare one): a
/// command, not a document.
fn fenced_command(text: &str) -> Option<&str> {
    let (fence, first) = lead::fenced_opening(text)?;
    [
        "",
        "bash",
        "sh",
        "shell",
        "zsh",
        "fish",
        "console",
        "powershell",
        "ps1",
        "cmd",
    ]
    .contains(&fence)
    .then_some(first)
}

/// An answer whose first line only introduces what follows ("Here is what
/// I found:", "以下是我的調查結果：", "Nghe này Master...") says it in the
/// lines after: a short line ending in a colon or an ellipsis, in any language.
/// A line that says something before its colon ("The backup repo is clean
/// now:") is set aside to go before what follows it.
fn past_introduction(answer: &str) -> (Option<&str>, &str) {
    let Some((first, after)) = answer.split_once('\n') else {
        return (None, answer);
    };
    let head = first.trim().trim_end_matches(['*', ' ']);
    // "That opens Notepad. In that window:" says something before its colon.
    let one_sentence = first_sentence(head).len() == head.len();
    let colon = head.ends_with([':', '：']);
    let introduces = (colon && word_count(head) <= 16 && one_sentence)
        || (head.ends_with(['…']) || head.ends_with("...")) && word_count(head) <= 5;
    // "Verify it with:" before a command goes on into the command, and
    // "All 4 tasks complete:" before a table is the sentence itself.
    let prose_after = prose_lines(after)
        .next()
        .is_some_and(|l| !l.trim_start().starts_with('|'));
    if introduces && prose_after && fenced_command(after).is_none() {
        let said = colon && lead::says_something(head);
        (said.then_some(head), after.trim_start())
    } else {
        (None, answer)
    }
}

/// "- dark mode\n- CSV export\n- faster search" after an introduction: a
/// list of short items is said as one, "dark mode, CSV export, faster
/// search"; its first item alone would name a third of it.
fn short_list(text: &str) -> Option<String> {
    const ITEM_WORDS: usize = 6;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    let items: Vec<&str> = lines.iter().map(|l| unmarked(l)).collect();
    let all_items = lines.len() >= 2 && lines.iter().zip(&items).all(|(l, i)| l != i);
    let short = items
        .iter()
        .all(|i| word_count(i) <= ITEM_WORDS && !i.is_empty() && !i.ends_with([':', '：']));
    // Items that are sentences ("1. It fails because …") are kept apart.
    let sentences = items.iter().any(|i| i.ends_with(['.', '。', '!', '！']));
    (all_items && short).then(|| {
        items
            .iter()
            // Marked up as the gist's own sentences are: no bold, no code ticks.
            .map(|i| short_paths(i.trim_end_matches(['.', '。', ';', ','])).replace(['*', '`'], ""))
            .collect::<Vec<_>>()
            .join(if sentences { "; " } else { ", " })
    })
}
