//! What came of a session: what the agent reported at the end of its last
//! turn, not what it said it was about to do.
//!
//! Narration is recognised first by position (the text a turn writes before
//! its last tool call is intent; what follows the call is the report, in any
//! language), then, inside the report, by how a sentence opens or ends ("I'll
//! …", "Let me …", "…하겠습니다", "让我…") when a result follows it. Thinking blocks and their
//! placeholders never count. A transcript that stops after a tool call gives
//! way to the newest turn that reported. A session whose last request got no report but
//! a failed call has that call's error as its outcome.
//!
//! Owns: choosing the outcome text. Must not: shorten it for the sentence
//! (the gist does) or do I/O.

mod advice;
mod agreement;
mod aside;
mod cause;
mod choice;
mod commit;
mod conclusion;
mod ended;
mod errand;
pub(super) mod lead;
mod manners;
mod narration;
mod sections;
mod step;

pub(crate) use advice::is_advice;
pub(crate) use agreement::is_agreement;
pub(crate) use cause::{
    change_after_looking, is_cause, reports_a_change, states_a_fault, tells_a_change,
    tells_the_state_now,
};
pub use commit::Commit;
pub(crate) use manners::{
    is_acknowledgement, is_courtesy, is_thanks, only_complies, only_words,
    past_acknowledging_clause,
};
pub use narration::is_narration;

use crate::transcript::{Message, Role, Transcript, clean};
use ended::{ENDED, ended_unreported, ends_announcing, found_before_last_words};

/// What came of a session, decided once: the sentence and the summary both
/// word this, so they cannot disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The commit the session ended with, made or proposed.
    pub commit: Option<Commit>,
    /// The agent's last report on the work, or `failed: <error>` when a
    /// failure ended it.
    pub report: String,
    /// A routine step asked for after that report, and its reply.
    pub errand: Option<Errand>,
    /// What came of the person's first request, when later ones followed
    /// and it differs from the report.
    pub first: Option<String>,
}

/// A trailing routine step ("push it") and what the agent said to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Errand {
    pub ask: String,
    pub reply: String,
}

/// The session's outcome: its last report and the commit that sealed it.
pub fn decide(t: &Transcript) -> Outcome {
    // "Thanks!" and the agent's "You're welcome!" after the work are not what
    // came of it: the session is judged up to that closing courtesy.
    let messages = &t.messages[..closing_courtesy(&t.messages).unwrap_or(t.messages.len())];
    // A command typed back from the agent's instructions, and its remark on
    // that one step: the instructions are what came of the session.
    let messages = &messages[..step::echoed_step(messages).unwrap_or(messages.len())];
    let last = report(t, messages);
    let commit = commit::sealing_commit(messages, &last);
    let (report, errand) = match trailing_errand(t, messages) {
        Some((before, ask)) => (
            before,
            Some(Errand {
                ask,
                reply: last.clone(),
            }),
        ),
        None => (last.clone(), None),
    };
    let first = first_result(messages).filter(|f| *f != report && *f != last);
    Outcome {
        commit,
        report,
        errand,
        first,
    }
}

/// "push it" (an errand) or "what's the date today?" (an aside) after the
/// work was reported: the report before it and the person's words. What came of the errand ("Pushed.", a rate limit) is
/// told after the report.
fn trailing_errand(t: &Transcript, messages: &[Message]) -> Option<(String, String)> {
    let ask = messages.iter().rposition(|m| m.role == Role::User)?;
    if !errand::is_errand(&messages[ask].text)
        && !aside::is_aside(messages, ask)
        && !aside::is_small_task(messages, ask)
    {
        return None;
    }
    let before = report(t, &messages[..ask]);
    is_result(&before).then(|| (before, messages[ask].text.trim().to_string()))
}

/// What the agent answered the person's first request, when later requests
/// followed it: a long session's sentence names that request, and its
/// summary tells what came of it as well as how the session ended.
fn first_result(messages: &[Message]) -> Option<String> {
    let asks: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i].role == Role::User)
        .collect();
    let opened = asks
        .iter()
        .position(|&u| crate::sentence::word_count(&messages[u].text) >= 3)?;
    let start = asks[opened];
    let mut next = opened + 1;
    let mut first = answer(&messages[start..*asks.get(next)?]);
    // "What would you like to change it to?": the person's reply goes on
    // with the same request, and so does the answer to it.
    while asks_back(&first) && next < opened + 4 {
        next += 1;
        first = answer(&messages[start..asks.get(next).copied().unwrap_or(messages.len())]);
    }
    is_result(&first).then_some(first)
}

/// Whether an answer asks the person something: a question mark ends one
/// of its sentences ('？' anywhere; '?' before a space, a line break or the
/// end, so "?page=2" in a URL is no question).
fn asks_back(answer: &str) -> bool {
    answer.contains('？')
        || answer.trim_end().ends_with('?')
        || answer.contains("? ")
        || answer.contains("?\n")
}

/// A report that says what was done: not empty, not a failure, not an
/// announcement.
fn is_result(report: &str) -> bool {
    !report.is_empty()
        && !report.starts_with("failed: ")
        && report != STOPPED
        && report != ENDED
        && !is_narration(report)
}

/// The agent's last report: its final turn's text after its last tool call,
/// without thinking, from the first paragraph that is not narration (with
/// the next one when that paragraph only introduces it).
fn report(t: &Transcript, messages: &[Message]) -> String {
    let answer = answer(messages);
    // Messages after the person's last request: the thread it opened.
    let thread = messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |u| u + 1);
    let failure = t
        .failure
        .as_ref()
        .filter(|f| f.after >= thread && f.after <= messages.len());
    match failure {
        // A usage or rate limit that stopped a slash command run after the
        // work was reported (a review) is not what came of the session; one
        // that stopped a typed request is, unless the agent had said what it
        // did before the call that hit it ("Upgraded tokio." then a push).
        Some(failure) if is_limit(&failure.error) && after_command(messages, thread) => {
            last_report(messages).unwrap_or_else(|| format!("failed: {}", failure.error))
        }
        Some(failure)
            if (is_limit(&failure.error) || is_lookup_miss(&failure.error))
                && let Some(did) = what_it_said_it_did(&messages[thread..]) =>
        {
            did
        }
        // A search that missed ends no work: what the agent last reported
        // stands, or the run ended before it reported anything.
        Some(failure) if is_lookup_miss(&failure.error) => {
            last_report(messages).unwrap_or_else(|| ENDED.to_string())
        }
        Some(failure)
            if answer.is_empty() || is_narration(&answer) || !reported(messages, thread) =>
        {
            format!("failed: {}", failure.error)
        }
        _ if stopped_unreported(t, messages) => STOPPED.to_string(),
        // Cut off in its calls: what it said it changed on the way, if
        // anything, and that the run ended there.
        _ if ended_unreported(messages) => {
            ended::changed_on_the_way(&messages[thread..]).unwrap_or_else(|| ENDED.to_string())
        }
        // Cut off as the agent announced its next step: what it found in
        // the thread before stands, or the run ended before a result.
        _ if ends_announcing(&messages[thread..]) => {
            found_before_last_words(&messages[thread..]).unwrap_or_else(|| ENDED.to_string())
        }
        _ => answer,
    }
}

/// What came of a run the person stopped before the agent said what it did.
const STOPPED: &str = "stopped by the person before the agent reported a result";

/// Whether the person stopped the agent's run in the thread of their last
/// request and no answer came after, while the agent had only announced
/// what it would do (or said nothing): "I'll conduct a comprehensive
/// review…" and an interruption is a cancelled run, not a review.
fn stopped_unreported(t: &Transcript, messages: &[Message]) -> bool {
    let Some(at) = t.stopped_at().filter(|&at| at <= messages.len()) else {
        return false;
    };
    // What the person typed after the stop and the agent never answered
    // ("never mind", a new idea the session ended on) leaves the stopped
    // request the last one handled.
    let answered_after = messages[at..]
        .iter()
        .any(|m| m.role == Role::Assistant && (!m.text.trim().is_empty() || !m.tools.is_empty()));
    let asked = if answered_after {
        messages
    } else {
        &messages[..at]
    };
    let thread = asked
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |u| u + 1);
    let spoke_after = messages[at..]
        .iter()
        .any(|m| m.role == Role::Assistant && !m.text.trim().is_empty());
    at >= thread && !spoke_after && {
        let last = answer(&messages[thread..]);
        last.is_empty() || is_narration(&last) || !reported(messages, thread)
    }
}

/// Where a closing courtesy starts: the person's last message only thanks or
/// praises ("great thanks!"), the agent made no tool call after it, and the
/// agent reported something before it.
fn closing_courtesy(messages: &[Message]) -> Option<usize> {
    let last = messages.iter().rposition(|m| m.role == Role::User)?;
    let after = &messages[last + 1..];
    let worked = after.iter().any(|m| !m.tools.is_empty());
    let reported_before = messages[..last]
        .iter()
        .any(|m| m.role == Role::Assistant && !m.text.trim().is_empty());
    // A bare "ok" may be a go-ahead the agent answers with what it did.
    let text = &messages[last].text;
    let go_ahead = only_words(text, &["ok", "okay"], 2);
    (is_courtesy(text) && !go_ahead && !worked && reported_before).then_some(last)
}

/// What the agent's last words in a thread say it did (not what it was
/// about to do, not a limit notice), even before a tool call: the words it
/// said last, never a report from earlier in the session.
fn what_it_said_it_did(thread: &[Message]) -> Option<String> {
    thread
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.text.trim().is_empty())
        .map(|m| answer_in(m.last_words()))
        .filter(|a| !a.is_empty() && !is_narration(a) && !is_limit(a))
}

/// Whether the request that opened the thread from `thread` on is a slash
/// command (a review, a cleanup run after the work), not a typed request.
fn after_command(messages: &[Message], thread: usize) -> bool {
    thread
        .checked_sub(1)
        .and_then(|i| messages.get(i))
        .is_some_and(|m| m.role == Role::User && m.text.trim_start().starts_with('/'))
}

/// Whether an error is the model provider's quota, not the work's failure.
fn is_limit(error: &str) -> bool {
    const LIMITS: &[&str] = &[
        "hit your limit",
        "out of extra usage",
        "usage limit",
        "rate limit",
        "rate_limit",
        "quota",
        "too many requests",
        "resource exhausted",
        "resource_exhausted",
        "overloaded",
    ];
    let lower = error.to_lowercase();
    // HTTP 429 as providers word it: `"code": 429`, `429 Too Many…`, `status 429`.
    let http_429 = lower.match_indices("429").any(|(at, _)| {
        let before = lower[..at].trim_end_matches([' ', ':', '"', '\\']);
        let after = lower[at + 3..].chars().next();
        !after.is_some_and(|c| c.is_ascii_digit())
            && (before.ends_with("code") || before.ends_with("status") || at == 0)
    });
    http_429 || LIMITS.iter().any(|l| lower.contains(l))
}

/// Whether a failed call only looked for something that is not there (a
/// file, a path): the agent searching, not the work failing.
fn is_lookup_miss(error: &str) -> bool {
    const MISSES: &[&str] = &[
        "enoent",
        "no such file or directory",
        "file not found",
        "file does not exist",
        // The agent's own tool stumbles it recovers from at once: an edit
        // before a read, a read past the tool's size limit, a stale edit.
        "<tool_use_error>",
        "has not been read yet",
        "exceeds maximum allowed tokens",
        "string to replace not found",
        "has been modified since read",
    ];
    let lower = error.to_lowercase();
    MISSES.iter().any(|m| lower.contains(m))
}

/// The newest answer an agent's turn reported (text after its last tool
/// call) that is not itself a limit notice.
fn last_report(messages: &[Message]) -> Option<String> {
    messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant && m.reported() && !is_limit(m.report()))
        .map(answer_of)
        .find(|a| !a.is_empty() && !is_narration(a))
}

/// Whether the agent reported something in messages `thread..` (text after
/// its last tool call, not only before it).
fn reported(messages: &[Message], thread: usize) -> bool {
    messages[thread.min(messages.len())..]
        .iter()
        .any(|m| m.role == Role::Assistant && m.reported())
}

/// The agent's last answer, narration and thinking left out.
fn answer(messages: &[Message]) -> String {
    let spoke = |m: &&Message| m.role == Role::Assistant && !m.text.trim().is_empty();
    // A transcript that stops after a tool call (cut off, killed mid-turn)
    // holds only what the agent was about to do there: its newest report is
    // what came of the session.
    let cut_off = messages
        .iter()
        .rev()
        .find(spoke)
        .is_some_and(|m| !m.reported());
    let reported_any = messages.iter().any(|m| spoke(&m) && m.reported());
    // "OK." to a closing "thanks" is not what was done: the reply before it is.
    // "Filled and validated." after the calls names nothing: what the turn
    // reported before them ("I filled the 12 fields from fixtures/…") does.
    let mut replies = messages
        .iter()
        .rev()
        .filter(spoke)
        .filter(|m| !(cut_off && reported_any) || m.reported())
        .flat_map(|m| {
            let before = m
                .said_before_report()
                .map(answer_in)
                .filter(|a| !is_narration(a));
            std::iter::once(answer_of(m)).chain(before)
        });
    let last = replies.next().unwrap_or_default();
    if !says_nothing_done(&last) {
        return last;
    }
    replies.find(|a| !says_nothing_done(a)).unwrap_or(last)
}

/// A reply that tells nothing of the work: an acknowledgement, or an offer
/// alone after the report ("Let me know if you want any changes!").
fn says_nothing_done(reply: &str) -> bool {
    let reply = reply.trim();
    let one_sentence = crate::sentence::first_sentence_end(reply) >= reply.len();
    is_acknowledgement(reply) || (lead::is_offer(reply) && one_sentence)
}

/// One turn's answer, narration and thinking left out.
fn answer_of(last: &Message) -> String {
    answer_in(last.report())
}

/// The answer in a turn's words, narration and thinking left out; the
/// choice it ends by asking for first.
fn answer_in(said: &str) -> String {
    let whole = without_thinking(said);
    let report = report_in(&whole);
    match choice::asked(&whole) {
        Some(choice) if !report.is_empty() => format!("{choice}\n\n{report}"),
        Some(choice) => choice,
        None => report,
    }
}

/// What a turn's answer reports.
fn report_in(whole: &str) -> String {
    let report = conclusion::conclusion(whole, is_heading)
        .or_else(|| conclusion::closing_words(whole))
        .unwrap_or(whole);
    if let Some(outline) = sections::outline(report) {
        return outline;
    }
    let report = sections::tight_lists(report);
    // Headings (`## Changes`, `**Summary**`) and rules (`---`) are structure,
    // not what was done; they may also open a paragraph that holds more.
    let paras: Vec<&str> = report
        .split("\n\n")
        .map(|p| without_leading_structure(p.trim()))
        .filter(|p| !p.is_empty())
        .collect();
    let Some(start) = paras
        .iter()
        .position(|p| says_what_was_done(p))
        .or(paras.len().checked_sub(1))
    else {
        return String::new();
    };
    said_from(&paras, start)
}

/// "Your user is not in the docker group." then "1. Add yourself: …": a
/// one-line finding and the advice (or first step) under it.
fn advises(first: &str, next: &str) -> bool {
    let line = next.lines().next().unwrap_or_default().trim_start();
    let step = line
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', '-', '*', '•'])
        .trim_start();
    !first.contains('\n') && is_advice(step)
}

/// Whether a paragraph may say what was done: not narration, a block, a
/// table, an offer, a realisation, a bare compliance ("Master, as you
/// wish.") or agreement ("Record matches my view.") before it.
fn says_what_was_done(p: &str) -> bool {
    !is_narration(p)
        && !p.starts_with("```")
        && !is_table(p)
        && !lead::is_offer(p)
        && !lead::is_realisation(p)
        && (!manners::only_complies(p) || lead::is_labelled_answer(p))
        && !agreement::is_agreement(p)
}

/// The report from paragraph `start`, with the paragraphs that go with it.
fn said_from(paras: &[&str], start: usize) -> String {
    let first = paras[start];
    // "```bash\ngit reset --soft HEAD~1\n```" then "Your changes stay
    // staged.": the command is the answer, the short note tells of it.
    let note = start + 1 == paras.len() && crate::sentence::word_count(first) <= 12;
    if let Some(block) = start
        .checked_sub(1)
        .map(|b| paras[b])
        .filter(|b| note && b.starts_with("```"))
    {
        return format!("{block}\n\n{first}");
    }
    // "Here is what changed:", "Listen, Master..." and a bare "✅ Done"
    // introduce what follows.
    let trails_off = first.ends_with('…') || first.ends_with("...");
    let lead_in =
        first.ends_with([':', '：']) || (trails_off && crate::sentence::word_count(first) <= 5);
    // "Done." and "完了しました。" alone say the work is done, not what it was.
    let status = crate::sentence::word_count(first) < 3
        || lead::is_labelled_answer(first)
        || (!first.contains('\n')
            && is_acknowledgement(past_acknowledging_clause(lead::past_status_label(first))));
    let told = tells_a_fault(first);
    // "I made two changes:" over the list of them is the fix as well.
    let introduces = |p: &str| !p.contains('\n') && lead::introduces_changes(p);
    let fixed = |next: &str| told && (cause::reports_a_change(next) || introduces(next));
    if let (true, Some(next), Some(list)) = (told, paras.get(start + 1), paras.get(start + 2))
        && introduces(next)
    {
        return format!("{first}\n\n{next}\n\n{list}");
    }
    // "Replaced the deprecated calls:", a table, then "The payment tests
    // pass.": the line over the table, the table, and the state after it.
    let closing = paras
        .get(start + 2)
        .filter(|after| crate::sentence::word_count(after) <= 12 && !after.contains('\n'));
    match (paras.get(start + 1), closing) {
        (Some(table), Some(after)) if lead_in && is_table(table) => {
            format!("{first}\n\n{table}\n\n{after}")
        }
        (Some(next), _)
            if lead_in
                || (status && !next.starts_with("```"))
                || fixed(next)
                || advises(first, next) =>
        {
            format!("{first}\n\n{next}")
        }
        _ => first.to_string(),
    }
}

/// Whether a paragraph tells what was wrong, for the fix after it:
/// "**Root cause:** …" (then "**Fix:** …"), "⚠️ Heads up: …" (then "I
/// added …"), "`products` was undefined." alone (then "I defaulted it …"),
/// and the last past an acknowledgement or a short exclamation ("Great
/// catch! Safari has no `ApplePaySession`.").
fn tells_a_fault(paragraph: &str) -> bool {
    let end = crate::sentence::first_sentence_end(paragraph);
    let (opening, rest) = (&paragraph[..end], paragraph[end..].trim());
    let one_sentence = rest.is_empty();
    let exclaims = crate::sentence::word_count(opening) <= 3 && opening.ends_with(['!', '！']);
    let acked = (is_acknowledgement(opening) || agreement::is_agreement(opening) || exclaims)
        && !rest.is_empty()
        && crate::sentence::first_sentence_end(rest) == rest.len();
    cause::is_cause(paragraph)
        || lead::is_warning(paragraph)
        || (one_sentence && cause::states_a_fault(paragraph))
        || (acked && cause::states_a_fault(rest))
}

/// A paragraph without the rules and headings on its first lines.
fn without_leading_structure(mut p: &str) -> &str {
    loop {
        let (first, rest) = p.split_once('\n').unwrap_or((p, ""));
        let first = first.trim();
        if !is_rule(first) && !is_heading(first) && !super::brief::is_banner(first) {
            return p;
        }
        p = rest.trim();
    }
}

/// A markdown rule: `---`, `***`, `___`, `===`.
fn is_rule(line: &str) -> bool {
    line.len() >= 3
        && line
            .chars()
            .all(|c| matches!(c, '-' | '*' | '_' | '=' | ' '))
}

/// A heading: `## Changes`, or a line that is only bold (`**Summary**`,
/// `**What changed:**`), the way Codex titles its reports; not a bold
/// sentence or status line.
fn is_heading(line: &str) -> bool {
    if line.starts_with('#') {
        return true;
    }
    let line = line.trim_end_matches([':', '：']);
    let inner = line
        .strip_prefix("**")
        .and_then(|l| l.strip_suffix("**"))
        .or_else(|| line.strip_prefix("__").and_then(|l| l.strip_suffix("__")));
    inner.is_some_and(|i| {
        // "**All 48 tests pass.**" is a sentence, not a title.
        // "**✅ Cleanup done**" reports a result under its status mark.
        let i = i.trim_end_matches([':', '：']);
        !i.is_empty()
            && !i.starts_with(['✅', '✔', '✓', '☑', '❌', '⚠', '🎉'])
            && !i.contains("**")
            && !i.ends_with(['.', '!', '?', '。'])
            && crate::sentence::word_count(i) <= 8
    })
}

/// A markdown table: every line a row (`| a | b |`).
pub(crate) fn is_table(p: &str) -> bool {
    p.lines().all(|l| l.trim_start().starts_with('|'))
}

/// A text without `<thinking>` blocks and the placeholders some harnesses
/// leave where one was (`<thinking-content-7bbeb8e1…>`).
fn without_thinking(text: &str) -> String {
    let stripped = clean::strip_blocks(text, &["thinking", "think"]);
    stripped
        .lines()
        .filter(|l| {
            let l = l.trim();
            !(l.starts_with("<thinking") && l.ends_with('>'))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
