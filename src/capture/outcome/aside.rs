//! A trailing aside: after the work was reported, a short question off that
//! work ("what's the date today?", "你是什么模型？"), answered without
//! changing a file. Its answer is not what came of the session; the report
//! before it is, and the summary tells the aside after it, as it tells an
//! errand. A question about the work ("does the retry handle 429s?") shares
//! a word with it and stays the outcome.
//!
//! Owns: recognising an aside from the person's words and the session's.
//! Must not: choose the report (the outcome module does).

use crate::sentence::is_cjk;
use crate::transcript::{Message, Role, ToolKind};

/// The longest question taken for an aside: a longer one is a request.
const ASIDE_WORDS: usize = 12;

/// Whether the person's last message, at `ask`, is an aside from the work
/// the messages before it did.
pub(super) fn is_aside(messages: &[Message], ask: usize) -> bool {
    let text = messages[ask].text.trim();
    let question = text.ends_with(['?', '？']) && !text.contains('\n');
    let short = crate::sentence::word_count(text) <= ASIDE_WORDS;
    let changes = |m: &Message| m.tools.iter().any(|t| t.kind == ToolKind::Change);
    let worked = messages[..ask].iter().any(changes);
    let answered_without_change = !messages[ask + 1..].iter().any(changes);
    let asked = words(text);
    // A bare "?" or "huh?" names no subject: it prods the agent on.
    let subject = !asked.is_empty();
    question
        && short
        && subject
        && worked
        && answered_without_change
        && !about_the_work(&messages[..ask], &asked)
}

/// Whether the person's last message, at `ask`, set a small task off the
/// work before it ("also fix the typo in the README" after a GitHub login
/// that changed four files): a short ask sharing no word with that work,
/// whose reply changed one file it had not. What came of the session is
/// the work's report; a fix to the work ("the callback 404s") shares its
/// words, or its files, and stays the outcome.
pub(super) fn is_small_task(messages: &[Message], ask: usize) -> bool {
    let text = messages[ask].text.trim();
    let changed = |part: &[Message]| -> Vec<String> {
        let mut files: Vec<String> = (part.iter())
            .flat_map(|m| m.tools.iter())
            .filter(|t| t.kind == ToolKind::Change)
            .map(|t| t.target.clone())
            .collect();
        files.sort();
        files.dedup();
        files
    };
    let (before, after) = (changed(&messages[..ask]), changed(&messages[ask + 1..]));
    let asked = words(text);
    !text.contains('\n')
        && crate::sentence::word_count(text) <= ASIDE_WORDS
        && before.len() >= WORK_FILES
        && after.len() == 1
        && !before.contains(&after[0])
        && !asked.is_empty()
        && !about_the_work(&messages[..ask], &asked)
}

/// Files the work before a small task changed for it to be the session's.
const WORK_FILES: usize = 3;

/// Whether the words of a question meet the work before it: the person's
/// requests, the agent's words and the files it touched.
fn about_the_work(before: &[Message], asked: &[String]) -> bool {
    before.iter().any(|m| {
        let targets = m.tools.iter().map(|t| t.target.as_str());
        let said = if m.role == Role::User {
            m.text.as_str()
        } else {
            m.report()
        };
        std::iter::once(said)
            .chain(targets)
            .flat_map(words)
            .any(|w| asked.contains(&w))
    })
}

/// A text's content words, folded: words of three letters or more by
/// their first five letters (`handles` and `handled` meet), and every pair
/// of adjacent characters in a run of CJK (which has no spaces).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    // A trailing separator closes the last run.
    for c in text.chars().chain(std::iter::once(' ')) {
        let same_kind = run.last().is_none_or(|&l| is_cjk(l) == is_cjk(c));
        if c.is_alphanumeric() && same_kind {
            run.push(c);
            continue;
        }
        fold(&run, &mut out);
        run.clear();
        if c.is_alphanumeric() {
            run.push(c);
        }
    }
    out
}

/// One run of letters as [`words`] folds it.
fn fold(run: &[char], out: &mut Vec<String>) {
    if run.first().is_some_and(|&c| is_cjk(c)) {
        out.extend(run.windows(2).map(|p| p.iter().collect::<String>()));
        return;
    }
    let word: String = run.iter().collect::<String>().to_lowercase();
    if word.chars().count() >= 3 && !STOP.contains(&word.as_str()) {
        out.push(word.chars().take(5).collect());
    }
}

/// Question words that say nothing of a subject.
const STOP: &[&str] = &[
    "the", "and", "you", "are", "how", "can", "why", "did", "was", "for", "not", "any", "but",
    "its", "has", "had", "who", "now", "get", "got", "one", "all", "out", "too", "our", "may",
    "let", "btw", "huh", "hmm", "what", "when", "where", "which", "does", "have", "this", "that",
    "with", "there", "about", "your", "they", "them", "then", "than", "will", "would", "could",
    "should", "also", "just",
];
