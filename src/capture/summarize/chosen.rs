//! Which of the person's requests the session's work followed: what the
//! agent did for each ([`Reply`]), the rules that pass over remarks,
//! set-ups, looks that only prepared the work, answers to the agent's
//! questions and a small first ask when the work went into a later one,
//! and whether the asks were a series none of which leads.
//!
//! Owns: choosing the lead request from the requests and their replies.
//! Must not: read the transcript (the summary collects the requests) or
//! word anything.

use super::{says_nothing_of_work, substantive, typed_words};
use crate::capture::{outcome, remarks, ties};

/// What the agent did for one request: its tool calls, those that changed
/// or ran something, and the words of its last answer.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Reply {
    pub(super) tools: usize,
    pub(super) acting: usize,
    /// Calls that changed a file.
    pub(super) changes: usize,
    pub(super) answer_words: usize,
    /// Its last answer asked the person something ("a fixed 50 per page, or
    /// a `limit` parameter?"): what they said next answers it.
    pub(super) asked: bool,
    /// Its last words only announced what it would do ("Let me first check
    /// …"): it had not answered yet.
    pub(super) announced: bool,
    /// Its last words, short, opened by only acknowledging ("Understood. I
    /// will follow these rules."): what it was told set the session up.
    pub(super) acknowledged: bool,
    /// The person stopped the agent's run while it answered.
    pub(super) stopped: bool,
}

impl Reply {
    pub(super) fn take(&mut self, m: &crate::transcript::Message) {
        use crate::transcript::ToolKind;
        self.tools += m.tools.len();
        self.acting += (m.tools.iter())
            .filter(|t| matches!(t.kind, ToolKind::Change | ToolKind::Command))
            .count();
        self.changes += (m.tools.iter())
            .filter(|t| t.kind == ToolKind::Change)
            .count();
        if !m.text.trim().is_empty() {
            self.answer_words = crate::sentence::word_count(&m.text);
            let text = m.text.trim_end();
            self.asked = text.ends_with(['?', '？']) || text.contains("? ") || text.contains('？');
            self.announced = outcome::is_narration(text);
            let opening = &text[..crate::sentence::first_sentence_end(text)];
            self.acknowledged =
                self.answer_words <= ACKNOWLEDGED_WORDS && outcome::is_acknowledgement(opening);
        }
    }

    /// Whether `request` and this reply were an exchange of remarks: no tool
    /// at all, or, for a question ("Anna tu es la ?"), only looking (an
    /// agent that reads its notes at every turn) before an answer of a few
    /// words ("Oui, Nacer."). A command (`/shop:fix 412`, "check the logs")
    /// the agent looked into is work, however short its answer.
    fn is_remarks(self, request: &str) -> bool {
        let question = request.trim_end().ends_with(['?', '？']) && !request.starts_with('/');
        self.tools == 0 || (question && self.acting == 0 && self.answer_words <= REMARK_WORDS)
    }
}

impl Reply {
    /// Whether `request` only had the agent look around and answer briefly:
    /// no change, no command, a short answer that neither asked back nor
    /// only announced more (a run stopped there was corrected, not
    /// finished), and no question the answer was the point of (a diagnosis
    /// or a review is long, and stays).
    fn prepared(self, request: &str) -> bool {
        let question = request.trim_end().ends_with(['?', '？']);
        self.tools > 0
            && self.acting == 0
            && self.answer_words <= PREPARED_WORDS
            && !question
            && !self.asked
            && !self.announced
            && !request.starts_with('/')
    }
}

/// Words an answer to a look-around request stays under when it only
/// prepared the work ("It uses basicConfig at INFO.").
const PREPARED_WORDS: usize = 40;

/// Words under which a request nothing was done for reads as a remark
/// ("what can you do?", "are you there?") rather than the session's point.
const REMARK_WORDS: usize = 6;

/// The request the session's work followed: the first that says something
/// on its own (a one-word answer or a greeting is no request), unless it is
/// a short remark that set nothing to work and a later request did.
pub(super) fn lead(requests: &[String], replies: &[Reply]) -> Option<usize> {
    let first = opening(requests, replies)?;
    // "sudo dmidecode -t system | grep …" typed as it is: a command for the
    // agent to run, not what the person wanted; a later request in words
    // says that.
    if remarks::is_typed_command(&requests[first]) {
        let worded = (first + 1..requests.len())
            .find(|&i| substantive(&requests[i]) && !remarks::is_typed_command(&requests[i]));
        return Some(worded.unwrap_or(first));
    }
    let later = |worked: fn(&Reply) -> bool| {
        (first + 1..requests.len()).find(|&i| worked(&replies[i]) && substantive(&requests[i]))
    };
    // The words typed, not a pasted block ("have you seen this code?" over
    // forty lines of it asks nothing of the work yet).
    let remark = replies[first].is_remarks(&requests[first])
        && crate::sentence::word_count(&typed_words(&requests[first])) <= REMARK_WORDS;
    // A question to the agent about itself ("which model are you?") that
    // it answered without changing or running anything is small talk too.
    let about_the_agent =
        replies[first].acting == 0 && remarks::asks_about_the_agent(&typed_words(&requests[first]));
    // "Rules for this session: …" answered "Understood." set the session
    // up; the later request the agent worked on is its point.
    let set_up = replies[first].tools == 0 && replies[first].acknowledged;
    if remark || about_the_agent || set_up {
        return Some(later(|r| r.tools > 0).unwrap_or(first));
    }
    // "Look at the logging setup" (read, "It uses basicConfig.") then
    // "switch it to JSON logging" (edits): the look prepared the work.
    if replies[first].prepared(&requests[first]) {
        return Some(later(|r| r.acting > 0).unwrap_or(first));
    }
    Some(first)
}

/// A short question the person opened with ("what does this repo do?"),
/// answered without a change to any file, and the later ask whose work
/// changed files ("add a Dockerfile for it"): their indexes. A question
/// that set the agent changing files is the lead itself, and so is a long
/// one (a problem told at length is the session's point); a go-ahead, a
/// remark or another question is no ask.
pub(super) fn asked_before(requests: &[String], replies: &[Reply]) -> Option<(usize, usize)> {
    let first = opening(requests, replies)?;
    let typed = typed_words(&requests[first]);
    let short_question = typed.trim_end().ends_with(['?', '？'])
        && !typed.starts_with('/')
        && crate::sentence::word_count(&typed) <= ORIENTING_QUESTION_WORDS;
    if !short_question || replies[first].changes > 0 || lead(requests, replies) != Some(first) {
        return None;
    }
    let asks = |text: &str| {
        let typed = typed_words(text);
        substantive(text)
            && !says_nothing_of_work(text)
            && !typed.trim_end().ends_with(['?', '？'])
            && crate::sentence::word_count(&typed) >= 4
    };
    let later = (first + 1..requests.len()).find(|&i| replies[i].changes > 0)?;
    asks(&requests[later]).then_some((first, later))
}

/// A later ask the session's work went into ("fix the typo in the README",
/// one change, then "now implement OAuth login with GitHub", four): the
/// ask whose reply changed the most files, when that is more than the
/// lead's twice over and at least `WORK_CHANGES`.
pub(super) fn work_went_later(
    requests: &[String],
    replies: &[Reply],
    lead: usize,
) -> Option<usize> {
    let asks = |text: &str| {
        let typed = typed_words(text);
        substantive(text)
            && !says_nothing_of_work(text)
            && !remarks::is_typed_command(text)
            && crate::sentence::word_count(&typed) >= 4
    };
    let most = (0..requests.len())
        .filter(|&i| i != lead)
        .max_by_key(|&i| (replies[i].changes, std::cmp::Reverse(i)))?;
    let changes = replies[most].changes;
    let all: usize = replies.iter().map(|r| r.changes).sum();
    (most > lead
        && replies[lead].changes > 0
        && changes >= WORK_CHANGES
        && changes > 2 * replies[lead].changes
        && 2 * changes > all
        && asks(&requests[most]))
    .then_some(most)
}

/// The ask that replaced the lead before any work on it: the person stopped
/// the run, or opened the next ask by taking the lead back ("actually, just
/// fix the button colour", "never mind, …", "算了，…"), and nothing was
/// changed for the lead while the next ask changed files.
pub(super) fn replaced(requests: &[String], replies: &[Reply], lead: usize) -> Option<usize> {
    let next = (lead + 1..requests.len())
        .find(|&i| substantive(&requests[i]) && !says_nothing_of_work(&requests[i]))?;
    let withdrawn = replies[lead].stopped || ties::takes_back(&typed_words(&requests[next]));
    (withdrawn && replies[lead].changes == 0 && replies[next].changes > 0).then_some(next)
}

/// Changes a later ask's reply made to count as where the work went.
const WORK_CHANGES: usize = 3;

/// Words of an opening question asked as one (longer, it tells a problem).
const ORIENTING_QUESTION_WORDS: usize = 16;

/// The first request that says something on its own. "continue our app",
/// the agent's "Which app?", then "our vps project": a few words that only
/// answer the agent's question name what to work on, not what to do, when
/// a later request says it ("backend - our supabase replacement …").
fn opening(requests: &[String], replies: &[Reply]) -> Option<usize> {
    let said = |i: usize| substantive(&requests[i]);
    let answers_a_question = |i: usize| {
        i > 0
            && replies[i - 1].asked
            && crate::sentence::word_count(&typed_words(&requests[i])) <= ANSWER_WORDS
    };
    let first = (0..requests.len()).find(|&i| said(i))?;
    if !answers_a_question(first) {
        return Some(first);
    }
    Some(
        (first + 1..requests.len())
            .find(|&i| said(i) && !answers_a_question(i))
            .unwrap_or(first),
    )
}

/// Words of a reply that only acknowledges what it was told.
const ACKNOWLEDGED_WORDS: usize = 14;

/// Words under which a reply to the agent's question only answers it.
const ANSWER_WORDS: usize = 4;

/// Whether the session was a series of separate asks ("add a /health
/// endpoint", then "add request logging", then "add rate limiting"), each
/// short, typed on its own and done with its own changes, none a question,
/// a complaint or a word back at the one before ("it still fails"), and
/// nothing else asked that changed anything: no one of them is the lead.
pub(super) fn in_series(requests: &[String], replies: &[Reply]) -> bool {
    // "it still fails", "also the docker compose file": words back at
    // the ask before, not one of their own.
    const BACK: &[&str] = &[
        "it", "it's", "its", "that", "this", "still", "again", "but", "no", "not", "same", "why",
        "the", "a", "an",
    ];
    const TIES: &[&str] = &["also", "and", "then", "now", "ok", "okay", "so"];
    let asks: Vec<usize> = (0..requests.len())
        .filter(|&i| substantive(&requests[i]) && !says_nothing_of_work(&requests[i]))
        .collect();
    let separate = |text: &str| {
        let word = |w: &str| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        };
        let first = (text.split_whitespace().map(word))
            .find(|w| !TIES.contains(&w.as_str()))
            .unwrap_or_default();
        !text.contains('\n')
            && crate::sentence::word_count(text) <= SERIES_WORDS
            && !text.trim_end().ends_with(['?', '？'])
            && !text.starts_with('/')
            && !remarks::complains(text)
            && !remarks::is_typed_command(text)
            && !BACK.contains(&first.as_str())
    };
    (2..=SERIES_ASKS).contains(&asks.len())
        && asks
            .iter()
            .all(|&i| replies[i].changes > 0 && separate(&requests[i]))
        && (0..requests.len()).all(|i| asks.contains(&i) || replies[i].changes == 0)
}

/// Asks a series holds at most, and words each of them.
const SERIES_ASKS: usize = 5;
const SERIES_WORDS: usize = 12;

#[cfg(test)]
mod tests {
    use crate::transcript::Transcript;

    /// A Claude Code session of `turns`: `("u", text)` the person's,
    /// `("a", text)` the agent's, `("e", file)` an edit of `file`, `("x",
    /// _)` the person stopping the run.
    fn session(turns: &[(&str, &str)]) -> Transcript {
        let lines: Vec<String> = (turns.iter().enumerate())
            .flat_map(|(i, &(kind, text))| {
                let line = |role: &str, n: usize, content: serde_json::Value| {
                    serde_json::json!({"type": role, "uuid": format!("m{i}-{n}"),
                        "sessionId": "s", "cwd": "/w/shop",
                        "message": {"role": role, "content": content}})
                    .to_string()
                };
                let id = format!("t{i}");
                match kind {
                    "u" => vec![line("user", 0, serde_json::json!(text))],
                    "x" => vec![line(
                        "user",
                        0,
                        serde_json::json!("[Request interrupted by user for tool use]"),
                    )],
                    "e" => vec![
                        line(
                            "assistant",
                            0,
                            serde_json::json!([{"type": "tool_use", "id": id, "name": "Edit",
                                "input": {"file_path": text, "old_string": "a", "new_string": "b"}}]),
                        ),
                        line(
                            "user",
                            1,
                            serde_json::json!([{"type": "tool_result", "tool_use_id": id,
                                "content": "The file has been updated."}]),
                        ),
                    ],
                    _ => vec![line(
                        "assistant",
                        0,
                        serde_json::json!([{"type": "text", "text": text}]),
                    )],
                }
            })
            .collect();
        crate::harnesses::read(&lines.join("\n"))
    }

    fn sentence(turns: &[(&str, &str)]) -> String {
        crate::capture::gist::compose(&session(turns), None).unwrap_or_default()
    }

    /// The class: an ask the person stopped before anything changed, or
    /// took back in words ("actually", "never mind", "算了", "забудь это",
    /// "en fait"), in any language, then an ask whose work changed files:
    /// the sentence names the one taken back, then the one the work
    /// followed. An ask that had changed files, or a take-back whose ask
    /// changed nothing, leaves the lead alone.
    #[test]
    fn an_ask_stopped_or_taken_back_before_any_change_is_named_before_the_one_the_work_followed() {
        let firsts = [
            "rewrite the whole checkout flow as React components",
            "把整个结账流程改写成 React 组件，保留现有的样式",
            "перепиши весь процесс оформления заказа на React компоненты",
        ];
        let done = "The checkout button is now the brand blue (#1e6bff) instead of grey.";
        let plan = "I'll start by reading the checkout code.";
        for first in firsts {
            let lead = &first[..first.char_indices().nth(10).map_or(first.len(), |(i, _)| i)];
            for (then, says) in [
                (
                    "make the checkout button blue",
                    "make the checkout button blue",
                ),
                (
                    "actually, just fix the checkout button colour",
                    "fix the checkout button colour",
                ),
                (
                    "never mind, make the checkout button blue",
                    "make the checkout button blue",
                ),
                (
                    "算了，只把结账按钮的颜色改成蓝色",
                    "只把结账按钮的颜色改成蓝色",
                ),
                (
                    "забудь это, просто поменяй цвет кнопки",
                    "просто поменяй цвет кнопки",
                ),
                (
                    "en fait, change juste la couleur du bouton",
                    "change juste la couleur du bouton",
                ),
            ] {
                let stopped = sentence(&[
                    ("u", first),
                    ("a", plan),
                    ("x", ""),
                    ("u", then),
                    ("e", "/w/shop/src/checkout.tsx"),
                    ("a", done),
                ]);
                let both = |s: &str| s.contains(lead) && s.contains(" → ") && s.contains(says);
                assert!(both(&stopped), "{first} / {then}: {stopped}");
                if then.starts_with("make") {
                    continue;
                }
                let taken_back = sentence(&[
                    ("u", first),
                    (
                        "a",
                        "Should the cart keep its Redux store, or move to React context?",
                    ),
                    ("u", then),
                    ("e", "/w/shop/src/checkout.tsx"),
                    ("a", done),
                ]);
                assert!(both(&taken_back), "{first} / {then}: {taken_back}");
            }
            // The lead's own work had begun: what follows adds to it.
            let added = sentence(&[
                ("u", first),
                ("e", "/w/shop/src/checkout.tsx"),
                ("a", "Checkout is now a React component."),
                ("u", "actually, also add a loading spinner to it"),
                ("e", "/w/shop/src/checkout.tsx"),
                ("a", "Added a spinner."),
            ]);
            assert!(!added.contains(" → ") && added.contains(lead), "{added}");
            // Taken back, but the next ask changed nothing: it asked.
            let asked = sentence(&[
                ("u", first),
                (
                    "a",
                    "Should the cart keep its Redux store, or move to React context?",
                ),
                ("u", "never mind, how are refunds handled today?"),
                ("a", "Refunds go through /api/refund, which calls Stripe."),
            ]);
            assert!(!asked.contains(" → ") && asked.contains(lead), "{asked}");
        }
    }
}
