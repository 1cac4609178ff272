//! The deterministic memory sentence of a session (`memory_sentence_v1` with
//! no `sentence.command`): what the person asked for, where the session
//! worked, and how it ended, in one line an agent can read at start-up.
//!
//! Shape: `{project}: {request}; changed {files} | ran {command}; outcome:
//! {answer}.` Each part is clipped so the whole stays within the floor's word
//! band (CJK counted as in `sentence::word_count`).
//!
//! Owns: composing the sentence from a transcript. Must not: judge it (the
//! caller checks it against the floor and falls back) or do I/O.

use super::brief::{brief_task, past_preamble, prose_lines, stated_task};
use super::clip::clip_words;
use super::greetings;
use super::outcome::{Commit, Outcome, is_courtesy, is_thanks, lead, only_words};
use super::remarks;
use super::summarize;
use super::ties;
use crate::sentence::{self, word_count};
use crate::transcript::Transcript;

mod advice;
mod answer;
mod closing;
mod listed;
mod place;
mod plain;
mod pointing;
use answer::outcome_gist;
use plain::{
    is_path_token, past_quote, short_paths, unlinked, unmarked, with_list_breaks,
    without_dropped_images,
};
use pointing::{POINTING_WORDS, past_said_label, pointed_at};

/// Word budgets of the parts (the floor allows 48 in all): the outcome gets
/// at least its own, and what a short request left of the whole.
const REQUEST_WORDS: usize = 22;
/// Words of what was asked before the ask the work followed (a question of
/// `summarize`'s orienting length, 16 words, or an ask taken back).
const BEFORE_CLIP_WORDS: usize = 16;
const OUTCOME_WORDS: usize = 12;
const OUTCOME_WORDS_MAX: usize = 20;
const SENTENCE_WORDS: usize = 44;

/// The sentence, or `None` when the session holds nothing a person asked.
pub fn compose(t: &Transcript, project: Option<&str>) -> Option<String> {
    let summarize::Asked {
        before,
        requests,
        series,
    } = summarize::asked_and_requests(t);
    // A session that opens with the summary of the one it continues:
    // the summary says what the person asked.
    let summarised = (requests.is_empty() && t.plain.is_none())
        .then(|| t.compactions.first())
        .flatten()
        .and_then(|c| crate::transcript::compaction::reported_request(&c.text));
    let request = requests
        .first()
        .or(t.plain.as_ref())
        .or(summarised.as_ref())?;
    // When the person only greeted or steered, the session's title says
    // what it was about; marked as the title, not as their words.
    let request = match (&t.title, before) {
        (Some(title), _) if !summarize::substantive(request) => {
            format!("\"{}\" (title)", title.text.trim())
        }
        // The question the work followed, or the ask taken back, then the
        // ask that set the work going.
        (_, Some(before)) => {
            let before = clip_words(&request_gist(&before), BEFORE_CLIP_WORDS);
            let ask = request_gist(request);
            let room = REQUEST_WORDS.saturating_sub(word_count(&before)).max(8);
            format!("{before} → {}", clip_words(&ask, room))
        }
        // "add a /health endpoint", "add request logging", "add rate
        // limiting": each was the session's, in turn.
        _ if series => {
            let asks: Vec<String> = (requests.iter())
                .filter(|r| summarize::substantive(r) && !summarize::says_nothing_of_work(r))
                .map(|r| request_gist(r).trim_end_matches(['.', '。']).to_string())
                .collect();
            listed::as_many_as_fit(&asks, REQUEST_WORDS, "; ")
                .or_else(|| asks.first().map(|ask| clip_words(ask, REQUEST_WORDS)))
                .unwrap_or_default()
        }
        _ => clip_words(&request_gist(request), REQUEST_WORDS),
    };
    if request.is_empty() {
        return None;
    }
    let mut s = String::new();
    if let Some(base) = project.and_then(sentence::project_basename) {
        s.push_str(base);
        s.push_str(": ");
    }
    // A request of only dots or marks ("...", "?") or of no work ("continue",
    // "hi") says nothing: what was done says what the session was.
    let place = place::touched(t);
    let said = request.trim_end_matches(['.', '。', ';', ':', ',']);
    let says = |r: &&str| !(place.is_some() && summarize::says_nothing_of_work(r));
    let said = Some(said).filter(|r| r.chars().any(char::is_alphanumeric) && says(r));
    let parts: Vec<String> = said.map(str::to_string).into_iter().chain(place).collect();
    s.push_str(&parts.join("; "));
    let budget = SENTENCE_WORDS
        .saturating_sub(word_count(&s) + 1)
        .clamp(OUTCOME_WORDS, OUTCOME_WORDS_MAX);
    let outcome = match super::outcome::decide(t) {
        Outcome {
            commit: Some(Commit::Made(msg)),
            ..
        } => {
            format!("committed \"{}\"", clip_words(&msg, budget))
        }
        Outcome {
            commit: Some(Commit::Proposed(msg)),
            ..
        } => {
            format!("commit message \"{}\"", clip_words(&msg, budget))
        }
        Outcome { report, .. } => listed::within(&outcome_gist(&report), budget),
    };
    // "Added GET /healthz:" over a block it does not name says its point
    // before the colon; the note after it must not read as what it shows.
    let outcome = outcome.trim_end_matches([':', '：', ';', '；', ',', '，']);
    if !outcome.is_empty() {
        s.push_str(if parts.is_empty() {
            "outcome: "
        } else {
            "; outcome: "
        });
        s.push_str(outcome);
    } else if parts.is_empty() {
        return None;
    }
    if word_count(&s) < 12 {
        let tools = t.tool_uses().count();
        let asks = requests.len();
        s.push_str(&format!(
            " (session of {asks} request{}, {tools} tool call{})",
            plural(asks),
            plural(tools)
        ));
    }
    Some(sentence::neutralise(&end_sentence(&s)))
}

/// The sentence of a compaction: the project and the first line of the
/// summary that says something (past preambles like "This session is being
/// continued…", `Analysis:` and headings). `None` when nothing does.
pub fn compose_compaction(body: &str, project: Option<&str>) -> Option<String> {
    let line = body
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['#', '-', '*', '>', ' '])
                .trim()
        })
        .map(|l| {
            l.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .trim()
        })
        .map(without_label)
        .find(|l| {
            word_count(l) >= 4
                && !l.ends_with(':')
                && !l.starts_with("This session is being continued")
                && !l.starts_with("Please provide")
                && !l.contains("(None)")
        })?;
    let mut s = String::from("Compacted context");
    if let Some(base) = project.and_then(sentence::project_basename) {
        s.push_str(&format!(" of {base}"));
    }
    s.push_str(": ");
    s.push_str(&clip_words(&gist(line), 30));
    if word_count(&s) < 12 {
        return None;
    }
    Some(sentence::neutralise(&end_sentence(&s)))
}

/// A summary line without its section label: "Primary Request and Intent:
/// The user asked …" says what it summarises after the colon.
fn without_label(line: &str) -> &str {
    let line = line.trim_start_matches('*');
    match line.split_once(':') {
        Some((label, rest))
            if (1..=5).contains(&word_count(label))
                && !label.contains(['`', '/', '('])
                && word_count(rest) >= 4 =>
        {
            rest.trim().trim_start_matches('*').trim()
        }
        _ => line,
    }
}

/// One terminal mark: the text's own `.`/`!`/`?`, else a `.`.
pub(super) fn end_sentence(s: &str) -> String {
    // A clipped outcome ends at the boundary it was cut at, with the floor's
    // full stop, never "….".
    let s = s.trim_end_matches(['…', ';', ',', ':', ' ', '：', '，', '；', '、']);
    if s.ends_with(['.', '!', '?']) {
        return s.to_string();
    }
    // A quote that ends its own sentence ("… in Go and Postgres.\"") ends
    // inside it; the sentence's stop goes after it, once: "… Postgres\"."
    let quoted = s.trim_end_matches(['"', '”', '»', '\'', '’']);
    if quoted.len() < s.len() && quoted.ends_with('.') {
        return format!("{}{}.", quoted.trim_end_matches('.'), &s[quoted.len()..]);
    }
    let s = s.trim_end_matches(['。', '！', '？']);
    format!("{s}.")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Words under which a first sentence followed by more on its line only
/// names the subject of what that line asks ("The login page.").
const LEAD_IN_WORDS: usize = 5;

/// Words from which a first sentence that asks nothing is backstory, too
/// long to name with the ask after it.
const BACKSTORY_WORDS: usize = 12;

/// Where a request's ask starts: past a role-play preamble, in the section
/// that names the task, from the sentence that states it.
fn ask_of(text: &str) -> &str {
    let text = past_quote(past_preamble(text));
    // "Implement the following spec.\n\n# PRD: …": the person's words that
    // point at the brief they paste are the ask, not its Goal section.
    let pointing = prose_lines(text).next().is_some_and(|line| {
        unmarked(line) == line
            && word_count(line) <= POINTING_WORDS
            && lead::points_at_what_follows(line)
    });
    let text = if pointing { text } else { brief_task(text) };
    closing::with_its_telling(
        text,
        stated_task(text, remarks::opens_an_ask, ties::adds_an_ask),
    )
}

/// The gist of a request: "the nginx error log. the site returns 502 since
/// this morning, find out why and fix it" names in a short first sentence
/// what the rest of its line asks about, and goes on into it. (An answer's
/// short first sentence, "Done.", says its point alone or gives way.)
pub(super) fn request_gist(text: &str) -> String {
    let asked = requested(&with_list_breaks(&without_dropped_images(text)));
    greetings::without_closing_thanks(&asked).to_string()
}

/// The request's point, before the thanks it closes with go.
fn requested(text: &str) -> String {
    if let Some(told) = closing::pointing_back(text) {
        return told;
    }
    let out = ties::past_ties(gist(text));
    if let Some(pointed) = pointed_at(text, &out) {
        return pointed;
    }
    if let Some(tasks) = listed::listed_tasks(text, &out) {
        return tasks;
    }
    if let Some(asked) = closing::ask_inside(&out) {
        return asked;
    }
    let mut lines = prose_lines(ask_of(text));
    let first = lines.next().unwrap_or_default();
    let second = lines.next();
    let line = unmarked(first);
    let Some(rest) = after(line, out.as_str()).map(str::trim_start) else {
        return out;
    };
    // "You are a senior Rust engineer. Review the PR …": the role the person
    // gives the agent is not what they ask of it; the next sentence, on the
    // same line or the next, is.
    if super::brief::assigns_a_role(&out) {
        let next = Some(first_sentence(rest))
            .filter(|n| !n.is_empty())
            .or_else(|| second.map(|l| first_sentence(unmarked(l))))
            .filter(|n| !n.is_empty());
        if let Some(next) = next {
            return ties::past_ties(gist(&next));
        }
    }
    // "1) is the cache thread-safe? 2) can we drop the mutex?": questions
    // asked as a list, on one line or on the list's lines, are asked together.
    let listed = |item: &str| unmarked(item) != item;
    let following = match rest.is_empty() {
        true => second.filter(|l| listed(first) && listed(l)),
        false => Some(rest).filter(|r| listed(r)),
    };
    if out.ends_with(['?', '？'])
        && let Some(item) = following.map(|f| first_sentence(unmarked(f)))
        && item.ends_with(['?', '？'])
    {
        return format!("{out} {item}");
    }
    let next = first_sentence(rest);
    // "I've worked on this shop for three months and the team moved to
    // PostgreSQL. I think it's the config. Could you update settings.py
    // …": a long first sentence that asks nothing gives way to the ask a
    // few sentences after it, on its line.
    if word_count(&out) > BACKSTORY_WORDS
        && !out.ends_with(['?', '？'])
        && !remarks::opens_an_ask(&out)
        && let Some(ask) = sentences(rest)
            .take(BACKSTORY_SENTENCES)
            .find(|s| remarks::opens_an_ask(s))
    {
        // "… is still in English. Please change it to Korean.": an ask
        // right after the telling that points back at it keeps it.
        if ask == next
            && let Some(both) = closing::asks_of_it(&out, &ask)
        {
            return both;
        }
        return ties::past_ties(gist(&ask));
    }
    let scene = remarks::sets_the_scene(&out) || remarks::complains(&out);
    let lead_in = scene
        || (!is_courtesy(&out)
            && crate::sentence::word_count(&out) <= LEAD_IN_WORDS
            && !out.ends_with(['?', '？', ':', '：']));
    // A scene alone on its line ("We are migrating from Jest to Vitest.")
    // goes on into the next line of prose, as on its own line; so does a
    // question into a follow-up, and an ask into one added on.
    let goes_on = |line: &str| {
        scene
            || ties::adds_an_ask(line)
            || closing::asks_of_it(&out, line).is_some()
            || (out.ends_with(['?', '？']) && ties::follows_up_a_question(line))
    };
    let next = match (next.is_empty(), second.map(first_sentence)) {
        (true, Some(line)) if unmarked(&line) == line && goes_on(&line) => line,
        _ => next,
    };
    if lead_in && !next.is_empty() {
        return format!("{out} {next}");
    }
    if let Some(both) = closing::asks_of_it(&out, &next) {
        return both;
    }
    // "Fix the typo in the README title. Also switch the install to pnpm.":
    // an ask added on is the session's work too, when both fit; so is "If
    // not, fix it." after "Is the retry thread-safe?".
    let follows_up = out.ends_with(['?', '？']) && ties::follows_up_a_question(&next);
    if (follows_up || ties::adds_an_ask(&next))
        && word_count(&out) + word_count(&next) <= REQUEST_WORDS
    {
        return format!("{out} {next}");
    }
    out
}

/// Sentences after a long backstory the ask is looked for in.
const BACKSTORY_SENTENCES: usize = 3;

/// The sentences of one line, in order.
fn sentences(line: &str) -> impl Iterator<Item = String> + '_ {
    let mut rest = line.trim_start();
    std::iter::from_fn(move || {
        let next = first_sentence(rest);
        if next.is_empty() {
            return None;
        }
        rest = after(rest, &next).map_or("", str::trim_start);
        Some(next)
    })
}

/// The first sentence or line of a text, without markdown decoration, leading
/// politeness or `@` file mentions.
fn gist(text: &str) -> String {
    let text = ask_of(text);
    let line = prose_lines(text).next().unwrap_or_default();
    let line_said = greetings::past_greeting(unmarked(line));
    let mut out = first_sentence(line_said);
    // A wish said as its own sentence gives way below; one that runs on
    // into the ask ("hope ur good 🙂 so basically …") gives way here.
    if !greetings::is_pleasantry(&out) {
        out = first_sentence(greetings::past_wish(line_said));
    }
    // "src/fetch.rs src/retry.rs" then the words: the paths alone say nothing.
    if !out.is_empty()
        && out.split_whitespace().all(is_path_token)
        && let Some(next) = prose_lines(after(text, &out).unwrap_or_default()).next()
    {
        // A path over the items that tell it ("1. **`Guidance.tsx`**\n   -
        // animated skeleton …") is their title: "Guidance.tsx: animated …".
        let gap = if unmarked(next) != next { ": " } else { " " };
        out = format!("{out}{gap}{}", first_sentence(unmarked(next)));
    }
    // "Update the function above in src/rate.rs\nhide SEASON rows when …":
    // a line that ends unfinished goes on in the next line of its paragraph.
    // "can you\ncheck my calendar": an ask's opening words sent on their
    // own go on into the rest of it.
    let opening = word_count(&out) <= 4 && remarks::asks_first(&format!("{} ", out.to_lowercase()));
    if out == unmarked(line)
        && !out.ends_with(['.', '!', '?', '。', '！', '？', ':', '：'])
        // "**Status:** ✅ Complete" is finished as it is.
        && (opening || !super::outcome::is_acknowledgement(lead::past_status_label(&out)))
        && let Some(next) = text
            .split_once(line)
            .and_then(|(_, rest)| rest.strip_prefix('\n'))
            .and_then(|rest| rest.lines().next())
            .map(str::trim)
            .filter(|n| !n.is_empty() && unmarked(n) == *n && !n.starts_with("```"))
    {
        let gap = if opening { " " } else { " — " };
        out = format!("{out}{gap}{}", first_sentence(next));
    }
    // "Fantastic, well reported. I could use help with …" and "How could I
    // solve this issue.\nGitHub CLI authentication expired …" say their
    // point in the next sentence: thanks give way to it, a question that
    // names nothing takes it along.
    let next_of = |out: &str| {
        after(text, out)
            .map(|rest| rest.trim_start_matches(|c: char| c.is_whitespace() || c == '-'))
            // One line: a sentence never runs on into a code block below it.
            .map(|rest| first_sentence(rest.lines().next().unwrap_or_default()))
            .filter(|n| !n.is_empty() && !n.starts_with("```"))
    };
    if let Some(next) = next_of(&out) {
        let greets = is_thanks(&out) || greetings::is_greeting(&out);
        if is_courtesy(&out) || (greets && word_count(&next) >= 3) {
            out = greetings::past_greeting(&next).to_string();
        } else if names_nothing(&out) {
            out = format!("{out} {next}");
        }
    }
    // "what's wrong here" over a pasted function names it by its definition.
    if names_nothing(&out)
        && let Some(definition) = after(text, &out).and_then(lead::fenced_definition)
    {
        out = format!(
            "{}: {definition}",
            out.trim_end_matches(['?', '？', ':', '：'])
        );
    }
    // "Hey Claude! Hope you're doing well. Could you …": the wish after the
    // greeting gives way too.
    if greetings::is_pleasantry(&out)
        && let Some(next) = next_of(&out).filter(|n| word_count(n) >= 3)
    {
        out = next;
    }
    // "How could I solve this issue:" says its point after the colon, and
    // "… think it through, P0 -" after the dash.
    if out.ends_with([':', '：', '-', '–', '—'])
        && let Some(next) = after(text, &out).and_then(|rest| {
            // A code block or a table after the colon is not words to add.
            rest.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .filter(|l| !l.starts_with("```") && !l.starts_with('|'))
        })
    {
        let next = first_sentence(unmarked(next));
        out = format!("{out} {}", past_said_label(&out, &next));
    }
    let mut out = short_paths(&unlinked(&out))
        .replace("**", "")
        .replace('`', "");
    out = out.replace(" @", " ");
    for polite in [
        "please ",
        "Please ",
        "can you ",
        "Can you ",
        "could you ",
        "Could you ",
    ]
    .iter()
    // "Could you please …": the words in either order.
    .cycle()
    .take(12)
    {
        if let Some(rest) = out.strip_prefix(polite) {
            out = rest.to_string();
        }
    }
    // Left in its own case: "async f(" is code, "iOS" a name, and a
    // sentence start after "please" the person's own.
    out
}

/// A question or ask that names nothing ("How could I solve this issue?").
fn names_nothing(sentence: &str) -> bool {
    const WORDS: &[&str] = &[
        "how",
        "could",
        "can",
        "do",
        "does",
        "i",
        "we",
        "you",
        "solve",
        "fix",
        "resolve",
        "this",
        "that",
        "the",
        "issue",
        "problem",
        "error",
        "it",
        "help",
        "me",
        "with",
        "what",
        "should",
        "is",
        "wrong",
        "please",
        "why",
        "happening",
        "going",
        "on",
        "what's",
        "whats",
        "here",
        "there",
        "look",
        "at",
        "see",
        "any",
        "idea",
        "ideas",
        "thoughts",
        "doesn't",
        "work",
    ];
    // "这段代码有什么问题？", "このコードの何が問題？": short, and about "this".
    const CJK: &[&str] = &[
        "有什么问题",
        "有什麼問題",
        "怎么回事",
        "哪里错了",
        "帮我看看",
        "何が問題",
        "どこがおかしい",
        "뭐가 문제",
    ];
    only_words(sentence, WORDS, 8)
        || (sentence.chars().count() <= 14 && CJK.iter().any(|c| sentence.contains(c)))
}

/// The text after the first occurrence of `part`.
fn after<'a>(text: &'a str, part: &str) -> Option<&'a str> {
    text.find(part).map(|i| &text[i + part.len()..])
}

/// Text up to the first sentence end (`. ` / `? ` / `! ` / `。`), if any.
fn first_sentence(line: &str) -> String {
    line[..crate::sentence::first_sentence_end(line)]
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SentenceConfig;

    /// Questions asked as a list are asked together, on one line or on the
    /// list's lines, in any language (a list of tasks: `listed`).
    #[test]
    fn questions_asked_as_a_list_are_kept_together() {
        let (one, two) = (
            "is the cache thread-safe?",
            "can we drop the mutex in store.rs?",
        );
        for text in [
            format!("1) {one} 2) {two}"),
            format!("1. {one} 2. {two}"),
            format!("1. {one}\n2. {two}"),
            format!("- {one}\n- {two}"),
        ] {
            assert_eq!(request_gist(&text), format!("{one} {two}"), "{text:?}");
        }
        assert_eq!(
            request_gist("1. 缓存是线程安全的吗？\n2. 能去掉 store.rs 里的锁吗？"),
            "缓存是线程安全的吗？ 能去掉 store.rs 里的锁吗？"
        );
        for text in [
            format!("1. {one}\n2. Update the docs."),
            format!("{one}\n{two}"),
        ] {
            let got = request_gist(&text);
            assert!(
                !got.contains("docs") && !got.contains("mutex"),
                "{text:?} -> {got:?}"
            );
        }
    }

    /// A short first sentence naming a subject goes on into what its line
    /// asks, in any language and with any subject; a first sentence that
    /// asks or says enough alone, or a courtesy, does not take the next.
    #[test]
    fn a_short_subject_first_goes_on_into_the_ask_on_its_line() {
        for (subject, ask) in [
            (
                "the nginx error log.",
                "the site returns 502 since this morning, find out why and fix it",
            ),
            (
                "Login page.",
                "Users are logged out after five minutes, make the session last a day.",
            ),
            (
                "Le cache Redis.",
                "Il se vide à chaque déploiement, garde-le entre deux versions.",
            ),
            (
                "Die Exportfunktion.",
                "Sie schreibt leere CSV-Dateien, bitte reparieren.",
            ),
            ("支付模块。", "退款后余额没有更新，帮我修复。"),
        ] {
            let text = format!("{subject} {ask}");
            let got = request_gist(&text);
            assert!(
                got.starts_with(subject) && got.contains(ask.trim_end_matches(['.', '。'])),
                "{text:?} -> {got:?}"
            );
            // On a line of its own, the subject stays alone: the next line
            // is the ask's own paragraph, read by the rules for lines.
            assert!(request_gist(&format!("{subject}\n\n{ask}")).starts_with(subject));
        }
        for (text, want) in [
            (
                "Why does the build fail? It worked yesterday.",
                "Why does the build fail?",
            ),
            (
                "Thanks! Now add a --dry-run flag to deploy.sh.",
                "add a --dry-run flag to deploy.sh.",
            ),
            (
                "Add a retry with backoff to the fetcher in src/fetch.rs. It keeps timing out.",
                "Add a retry with backoff to the fetcher in src/fetch.rs.",
            ),
        ] {
            assert_eq!(request_gist(text), want, "{text:?}");
        }
    }

    /// The class: a first sentence that vents ("ugh this is so annoying,
    /// …", "这个 bug 烦死了", "das nervt"), then the ask on its line, in any
    /// language: the request keeps both. A plain statement, or a question
    /// that vents, stays alone.
    #[test]
    fn a_first_sentence_that_vents_goes_on_into_the_ask_after_it() {
        for (vent, ask) in [
            (
                "ugh this is so annoying, the tests keep failing randomly.",
                "make them deterministic",
            ),
            (
                "The flaky login test is driving me crazy.",
                "Pin the clock in it.",
            ),
            (
                "I'm sick of the 10 minute builds.",
                "Cache the dependencies in CI.",
            ),
            (
                "Das nervt, der Build bricht ständig ab.",
                "Mach ihn stabil.",
            ),
            ("这个 bug 烦死了。", "帮我修一下。"),
            (
                "C'est chiant, les tests plantent tout le temps.",
                "Rends-les stables.",
            ),
        ] {
            let text = format!("{vent} {ask}");
            let got = request_gist(&text);
            let ask_word: String = ask.chars().take(4).collect();
            assert!(
                got.starts_with(vent.trim_end_matches(['.', '。'])) && got.contains(&ask_word),
                "{text:?} -> {got:?}"
            );
        }
        for (text, want) in [
            (
                "The tests keep failing randomly on CI. It happens about once a day.",
                "The tests keep failing randomly on CI.",
            ),
            (
                "Why is this build so annoying to debug? It fails once a day.",
                "Why is this build so annoying to debug?",
            ),
        ] {
            assert_eq!(request_gist(text), want, "{text:?}");
        }
    }

    /// The class: a first sentence that only sets the scene (what the
    /// person has, is in the middle of, what to read first) and the ask
    /// after it, on its line or the next, in any language and with any
    /// scene; the request keeps both. A first
    /// sentence that asks, or says what to do, stays alone.
    #[test]
    fn a_first_sentence_that_sets_the_scene_goes_on_into_the_ask_after_it() {
        for (scene, ask) in [
            (
                "I have a folder of 300 scanned invoices in ~/scans.",
                "Rename each one by the date printed on it.",
            ),
            (
                "look at all the files in my downloads folder.",
                "then rename them by date and sort them into year folders",
            ),
            (
                "There are two config loaders in this repo, one in src/cfg.rs and one in lib/.",
                "Merge them into one.",
            ),
            (
                "Tengo un CSV de pedidos exportado de la tienda.",
                "Suma los totales por mes.",
            ),
            (
                "J'ai un script de sauvegarde qui tourne chaque nuit.",
                "Fais-le envoyer un mail quand il échoue.",
            ),
            (
                "У меня есть лог nginx за неделю.",
                "Найди все запросы с кодом 502.",
            ),
            ("我有一个存放发票的文件夹。", "按日期给它们重命名。"),
            (
                "Read the migration guide in docs/upgrade.md.",
                "Then bump the SDK to v3 and fix what breaks.",
            ),
            (
                "We are migrating from Jest to Vitest.",
                "Convert the tests in src/utils and keep the snapshots.",
            ),
            (
                "我们正在从 Jest 迁移到 Vitest。",
                "把 src/utils 的测试改过去。",
            ),
        ] {
            for gap in [" ", "\n", "\n\n"] {
                let text = format!("{scene}{gap}{ask}");
                let got = request_gist(&text);
                let ask_word = ask.split_whitespace().nth(1).unwrap_or(ask);
                assert!(
                    got.starts_with(scene.trim_end_matches(['.', '。']))
                        && got.contains(ask_word.trim_end_matches(['.', '。'])),
                    "{text:?} -> {got:?}"
                );
            }
        }
        for (text, want) in [
            (
                "Fix the crash in src/parser.rs on empty input. It started after the last release.",
                "Fix the crash in src/parser.rs on empty input.",
            ),
            (
                "Is there a way to cache the build? It takes ten minutes.",
                "Is there a way to cache the build?",
            ),
            (
                "Thanks to the cache the build is fast now. Add one for the tests too.",
                "Thanks to the cache the build is fast now.",
            ),
            (
                "Fix the crash in src/parser.rs on empty input.\n\nIt started after the last release.",
                "Fix the crash in src/parser.rs on empty input.",
            ),
            (
                "We are migrating from Jest to Vitest.\n- src/utils\n- src/api",
                "We are migrating from Jest to Vitest.",
            ),
        ] {
            assert_eq!(request_gist(text), want, "{text:?}");
        }
    }

    /// The class: a reply that quotes the agent first ("> I added a retry
    /// …"), on one quoted line or several, with or without a blank line,
    /// in any language: the person's words after the quote are the
    /// request. A quote with nothing after it is the request as before.
    #[test]
    fn a_reply_is_read_past_the_words_it_quotes() {
        for (quote, reply) in [
            (
                "> I added a retry with a fixed 1 s delay.",
                "No, use exponential backoff instead.",
            ),
            (
                "> I added a retry.\n> It waits one second.",
                "Make the delay grow with each attempt.",
            ),
            (">我加了固定 1 秒的重试。", "不对，改成指数退避。"),
            (
                "> J'ai ajouté un nouvel essai.",
                "Non, utilise un backoff exponentiel.",
            ),
        ] {
            for gap in ["\n", "\n\n"] {
                let text = format!("{quote}{gap}{reply}");
                let got = request_gist(&text);
                let head: String = reply.chars().take(8).collect();
                assert!(got.starts_with(&head), "{text:?} -> {got:?}");
            }
        }
        let alone = "> The invoice PDF shows the wrong VAT rate.";
        assert!(request_gist(alone).starts_with("The invoice PDF"));
    }

    /// The class: a question, then a follow-up ask on its line or the next, on a
    /// condition ("If not, fix it.", "Si no, …", "如果是，…") or a short one
    /// to mend it ("Fix it please.", "Arréglalo.", "修一下。"), in any
    /// language: both are the request. A remark or thanks after the
    /// question is not.
    #[test]
    fn a_follow_up_ask_after_a_question_is_kept_with_it() {
        for (question, follow_up) in [
            ("Is the retry logic thread-safe?", "If not, fix it."),
            (
                "Is the retry logic thread-safe?",
                "If not, rewrite it around a channel and add a test.",
            ),
            ("Why does the build fail on CI?", "Fix it please."),
            ("¿Por qué falla el build en CI?", "Arréglalo por favor."),
            ("¿Es seguro el reintento entre hilos?", "Si no, corrígelo."),
            (
                "Pourquoi le build échoue-t-il sur la CI ?",
                "Si oui, corrige-le.",
            ),
            ("Ist der Retry threadsicher?", "Falls nicht, behebe das."),
            ("Почему падает сборка на CI?", "Исправь, пожалуйста."),
            ("为什么 CI 上构建失败？", "修一下。"),
            ("重试逻辑是线程安全的吗？", "如果不是，就改掉。"),
        ] {
            for gap in [" ", "\n"] {
                let text = format!("{question}{gap}{follow_up}");
                let got = request_gist(&text);
                let head: String = follow_up.chars().take(6).collect();
                assert!(
                    got.contains(&head) && got.contains(question),
                    "{text:?} -> {got:?}"
                );
            }
        }
        for after in [
            "It worked yesterday.",
            "Thanks!",
            "I fixed the tests last week myself.",
        ] {
            for gap in [" ", "\n"] {
                let text = format!("Why does the build fail on CI?{gap}{after}");
                assert_eq!(
                    request_gist(&text),
                    "Why does the build fail on CI?",
                    "{text:?}"
                );
            }
        }
    }

    /// The class: a greeting and "how are you?" before the ask, in the
    /// languages sessions are held in ("Oi, tudo bem?", "Salut, ça va ?",
    /// "Hola, ¿qué tal?", "你好，最近怎么样？"): the request starts at the
    /// ask; a question about the work after a greeting is the request.
    #[test]
    fn how_are_you_after_a_greeting_gives_way_to_the_ask_in_any_language() {
        for (greeting, ask) in [
            ("Hi, how are you?", "Add pagination to the orders list."),
            (
                "Oi, tudo bem?",
                "Preciso que você adicione paginação na lista de pedidos.",
            ),
            (
                "Salut, ça va ?",
                "Ajoute la pagination à la liste des commandes.",
            ),
            (
                "Hola, ¿qué tal?",
                "Necesito que añadas paginación a la lista de pedidos.",
            ),
            (
                "Hallo, wie geht's?",
                "Füge Paginierung zur Bestellliste hinzu.",
            ),
            ("Привет, как дела?", "Добавь пагинацию в список заказов."),
            (
                "Ciao, come stai?",
                "Aggiungi la paginazione alla lista degli ordini.",
            ),
            ("你好，最近怎么样？", "帮我给订单列表加上分页。"),
            (
                "こんにちは、お元気ですか？",
                "注文一覧にページ送りを追加してください。",
            ),
        ] {
            for gap in [" ", "\n"] {
                let text = format!("{greeting}{gap}{ask}");
                let got = request_gist(&text);
                let point: String = ask.chars().take(12).collect();
                assert!(got.contains(&point), "{text:?} -> {got:?}");
                assert!(!got.contains(greeting), "{text:?} -> {got:?}");
            }
        }
        let about_work = "Hi, is the orders list paginated yet?";
        assert_eq!(
            request_gist(about_work),
            "is the orders list paginated yet?"
        );
        // A wish after the greeting, or alone before the ask, gives way too.
        let ask = "Add pagination to the orders list.";
        for wish in [
            "Hope you're doing well.",
            "I hope this finds you well.",
            "Espero que estés bien.",
            "J'espère que tu vas bien.",
            "Ich hoffe, es geht dir gut.",
            "Надеюсь, у тебя всё хорошо.",
            "希望你一切都好。",
        ] {
            for greeting in ["", "Hey Claude! "] {
                let text = format!("{greeting}{wish} {ask}");
                assert_eq!(request_gist(&text), ask, "{text:?}");
            }
        }
        for asks in [
            "Hope you can help with the flaky login test.",
            "Hope you can fix the flaky login test. It fails on CI since Monday.",
        ] {
            assert!(request_gist(asks).starts_with("Hope you can"), "{asks:?}");
        }
        // Written as chat is: marks doubled, "ur"/"u", no full stop, an
        // emoji or "so" where the wish ends, and the ask at the run-on's end.
        let told = "the checkout page crashes on safari when you click pay and shows a blank screen with an error about ApplePaySession";
        for wish in [
            "hope ur good 🙂 so basically",
            "hope u r doing well,",
            "hope you're having a great day! so",
        ] {
            for greeting in ["", "hey claude!! ", "Hi!!! "] {
                let text = format!("{greeting}{wish} {told} can u fix it pls");
                let got = request_gist(&text);
                assert!(
                    got.starts_with("the checkout page crashes"),
                    "{text:?} -> {got:?}"
                );
                assert!(got.ends_with("can u fix it"), "{text:?} -> {got:?}");
                assert!(word_count(&got) <= 22, "{got:?}");
            }
        }
    }

    /// The class: a greeting or thanks before the ask, as its own sentence
    /// or as a clause, in any language; the request starts at the ask. A
    /// message that only greets stays as it is.
    #[test]
    fn a_greeting_or_thanks_before_the_ask_gives_way_to_it() {
        let ask = "fix the typo in README.md";
        for opener in [
            "hi! ",
            "hi, ",
            "Hello! ",
            "good morning! ",
            "hey, ",
            "Bonjour ! ",
            "привет, ",
            "你好！",
            "お疲れ様です。",
            "おつかれさまです！",
            "お世話になっております。",
            "수고하십니다. ",
            "辛苦了！",
            "早上好，",
            "Guten Morgen! ",
            "Buenos días, ",
            "¡Hola! ",
            "¡Buenas tardes! ",
            "Oi! ",
            "Hej! ",
            "Hoi, ",
            "Moin! ",
            "Ahoj! ",
            "Cześć! ",
            "Merhaba! ",
            "Привіт! ",
            "Γεια, ",
            "Bom dia! ",
            "Добрый день! ",
            "Xin chào, ",
            "thanks for last time! ",
            "Thank you for the help yesterday. ",
            "谢谢你昨天的帮助！",
        ] {
            for polite in ["", "can you ", "please "] {
                let text = format!("{opener}{polite}{ask}");
                assert_eq!(request_gist(&text), ask, "{text:?}");
            }
        }
        assert_eq!(request_gist("hello there!"), "hello there!");
        // An acknowledgement or a word that ties the ask to the turn
        // before it gives way to the ask, in any combination.
        let ask = "rename the utils package to common everywhere";
        for tie in [
            "ok, now ",
            "fine. now ",
            "Then ",
            "then, ",
            "also ",
            "And ",
            "Next, ",
            "okay, also ",
            "好的，",
            "Además, ",
            "Außerdem ",
            "Также ",
            "另外",
            // The fillers speech opens with, alone or in a run.
            "hey so basically the thing is ",
            "So ",
            "Well, ",
            "um, so ",
            "ok so, ",
            "Bueno, ",
            "En fait, ",
            "Ну ",
        ] {
            assert_eq!(request_gist(&format!("{tie}{ask}")), ask, "{tie}");
        }
        for kept in [
            "now that the cache works, drop the mutex",
            "so far the tests pass, add a case for empty input",
            "now push it",
            "then what?",
        ] {
            assert_eq!(request_gist(kept), kept);
        }
        assert_eq!(
            request_gist("Hello Pi, nice to *meet* you! -L"),
            "Hello Pi, nice to *meet* you!"
        );
        assert_eq!(request_gist("hi"), "hi");
    }

    /// The class: an answer's line that introduces a shell command in a
    /// fence ("Test it with:", "Restart it with:", "用下面的命令验证："), in any
    /// language; the outcome goes on into the command, never cut before it.
    /// A fenced document (JSON, HTML) is not taken along; a sentence never
    /// runs on into a code block.
    #[test]
    fn a_line_that_introduces_a_command_goes_on_into_it() {
        for (intro, fence) in [
            ("Done. Restart the service with:", "```bash"),
            ("The fix is in place; verify it with:", "```"),
            ("修好了，用下面的命令验证：", "```sh"),
            ("Listo. Pruébalo con:", "```console"),
        ] {
            let answer =
                format!("{intro}\n\n{fence}\nsudo systemctl restart nginx\n```\n\nLet me know.");
            let got = outcome_gist(&answer);
            assert!(
                got.contains("sudo systemctl restart nginx"),
                "{answer:?} -> {got:?}"
            );
            assert!(!got.contains('\n') && !got.contains('`'), "{got:?}");
        }
        let document =
            "Pour les pages villes, ajoute ce bloc :\n\n```json\n{\"@type\": \"City\"}\n```";
        assert!(!outcome_gist(document).contains("@type"));
    }

    /// A table after a colon is not words to add to the sentence before it.
    /// The class: a lead-in before a fenced block that shows code, in any
    /// language the agent wrote it in and any language it spoke: the
    /// definition the block opens with names what was shown. Data, imports
    /// and documents are not taken along.
    #[test]
    fn a_line_that_introduces_a_definition_goes_on_into_it() {
        let definitions = [
            ("python", "def slugify(name):", "def slugify(name)"),
            (
                "rust",
                "pub fn parse(input: &str) -> Result<Ast> {",
                "pub fn parse(input: &str) -> Result<Ast>",
            ),
            (
                "js",
                "export function total(items) {",
                "export function total(items)",
            ),
            (
                "go",
                "func Retry(ctx context.Context) error {",
                "func Retry(ctx context.Context) error",
            ),
            (
                "ts",
                "export default class CartStore {",
                "export default class CartStore",
            ),
            ("sql", "CREATE TABLE invoices (", "CREATE TABLE invoices ("),
            // Named without type parameters, which only bound the types.
            (
                "ts",
                "export function debounce<T extends (...a: any[]) => void>(fn: T, ms: number) {",
                "export function debounce(fn: T, ms: number)",
            ),
            (
                "rust",
                "pub fn parse<'a>(input: &'a str) -> Result<Ast<'a>> {",
                "pub fn parse(input: &'a str) -> Result<Ast<'a>>",
            ),
            (
                "kotlin",
                "fun discount(total: Double): Double {",
                "fun discount(total: Double): Double",
            ),
        ];
        let intros = [
            "Here's the function:",
            "Here is the updated version:",
            "这是修改后的代码：",
            "Voici la version corrigée :",
            "Aquí tienes el código:",
        ];
        for (lang, first, named) in definitions {
            for intro in intros {
                let answer = format!("{intro}\n\n```{lang}\n{first}\n    body\n```\n");
                let got = outcome_gist(&answer);
                assert!(got.contains(named), "{answer:?} -> {got:?}");
                assert!(!got.contains('\n') && !got.contains("body"), "{got:?}");
            }
        }
        for block in [
            "```json\n{\"@type\": \"City\"}",
            "```python\nimport re",
            "```yaml\nserver:",
        ] {
            let answer = format!("Here's the config:\n\n{block}\n```");
            assert_eq!(outcome_gist(&answer), "Here's the config:", "{answer:?}");
            // In the sentence, a line over a block it does not name ends
            // at its words, not at a colon before what follows.
            for head in ["Added `GET /healthz`:", "已添加健康检查接口："] {
                let answer = format!("{head}\n\n{block}\n```");
                let s = compose(&session("add a healthcheck", &answer), None).unwrap();
                let told = head.replace('`', "");
                let told = told.trim_end_matches([':', '：']);
                assert!(
                    s.contains(&format!("outcome: {told} "))
                        || s.ends_with(&format!("outcome: {told}.")),
                    "{s}"
                );
            }
        }
    }

    /// The class: a short line presents a paste ("Here is our README
    /// section:", "这是我现在的配置："), the ask comes after it, and more
    /// context may follow: the ask is the request, in any language, whatever
    /// was pasted.
    #[test]
    fn the_ask_after_a_presented_paste_is_the_request() {
        let presented = [
            "Here is our current README section:",
            "This is my config:",
            "Voici mon fichier de configuration :",
            "这是我现在的部署说明：",
        ];
        let pastes = [
            "## Deploy\nWe deploy with fly.io. Run fly deploy from the root.",
            "```yaml\napp: shop\nregion: ams\n```",
            "fly deploy --remote-only\nfly secrets set KEY=1",
        ];
        let asks = [
            ("Can you rewrite it for Kubernetes instead?", "Kubernetes"),
            ("Please rewrite it for Kubernetes.", "Kubernetes"),
            ("Why does the deploy fail on startup?", "startup"),
            ("能帮我改成 Kubernetes 的吗？", "Kubernetes"),
        ];
        for intro in presented {
            for paste in pastes {
                for (ask, word) in asks {
                    let text = format!(
                        "{intro}\n\n{paste}\n\n{ask}\n\nFor reference, the cluster is GKE."
                    );
                    let got = request_gist(&text);
                    assert!(got.contains(word), "{text:?} -> {got:?}");
                }
            }
        }
        // A line that asks before its colon is the request itself.
        let asks_first =
            "Can you rewrite this section:\n\n## Deploy\nWe use fly.io.\n\nWhy is it slow?";
        assert!(request_gist(asks_first).contains("rewrite this section"));
    }

    #[test]
    fn a_table_after_a_colon_is_not_taken_along() {
        let answer =
            "All 4 tasks fully complete:\n\n| Task | Status |\n|---|---|\n| nginx | done |";
        assert_eq!(outcome_gist(answer), "All 4 tasks fully complete:");
    }

    /// The class: an answer that opens by saying only that the task is
    /// finished, in any language; its gist is what it goes on to say.
    #[test]
    fn an_answer_opening_with_a_bare_completion_says_what_follows() {
        let what = "Updated NavUser to show the signed-in user's initials.";
        for bare in [
            "I've successfully completed the task.",
            "All requested changes have been implemented!",
            "Great news — everything went smoothly!",
            "Everything worked perfectly.",
            "It all succeeded without any issues.",
            "완료되었습니다.",
            "任务已完成。",
        ] {
            assert_eq!(outcome_gist(&format!("{bare} {what}")), what, "{bare}");
        }
    }

    /// The class: an apology, alone or with agreement, before what was done
    /// about it, in any language; the result is what was done. An apology
    /// that names what cannot be done ("Sorry, I can't push to main.") is
    /// the result itself.
    #[test]
    fn an_apology_before_the_result_gives_way_to_it() {
        let what = "I've reverted theme.css; the layout is back.";
        for sorry in [
            "You're right, I apologize.",
            "Sorry about that!",
            "I'm really sorry for the confusion.",
            "My apologies for the oversight.",
            "Désolé pour la confusion.",
            "Tienes razón, lo siento.",
            "Entschuldigung!",
            "Извините за путаницу.",
            "抱歉。",
            "申し訳ありません。",
        ] {
            assert_eq!(outcome_gist(&format!("{sorry} {what}")), what, "{sorry}");
            assert_eq!(outcome_gist(&format!("{sorry}\n\n{what}")), what, "{sorry}");
        }
        let refusal = "Sorry, I can't push to main: the branch is protected.";
        assert_eq!(outcome_gist(refusal), refusal);
    }

    /// The class: a second ask added on in the next sentence ("Also …",
    /// "Then …"), in any language, is kept with the first when both fit;
    /// a remark after the ask, or an ask too long to fit, is not.
    #[test]
    fn an_ask_added_on_in_the_next_sentence_is_kept_with_the_first() {
        for (first, added) in [
            (
                "Fix the typo in the README title.",
                "Also switch the install section to pnpm.",
            ),
            (
                "Add a CSV export to the orders page.",
                "Then write a test for it.",
            ),
            (
                "Corrige le titre du README.",
                "Peux-tu aussi ajouter une section d'installation ?",
            ),
            (
                "Arregla el título del README.",
                "Además, cambia la instalación a pnpm.",
            ),
            (
                "Behebe den Tippfehler im README.",
                "Außerdem die Installation auf pnpm umstellen.",
            ),
            (
                "Исправь опечатку в README.",
                "Также обнови раздел установки.",
            ),
            ("修复 README 标题的拼写错误。", "另外把安装步骤改成 pnpm。"),
            (
                "Fix the typo in the README title.",
                "Please also update the changelog.",
            ),
            (
                "Add a CSV export to the orders page.",
                "Can you also bump the version?",
            ),
            (
                "Behebe den Tippfehler im README.",
                "Kannst du auch die Tests anpassen?",
            ),
        ] {
            let text = format!("{first} {added}");
            assert_eq!(request_gist(&text), text, "{text}");
            // On the next line too.
            let text = format!("{first}\n{added}");
            assert_eq!(request_gist(&text), format!("{first} {added}"), "{text}");
        }
        for remark in [
            "It has bugged me for weeks.",
            "And it still fails on Safari.",
            "Now the build passes, but the title is wrong.",
            "I also tried to fix it myself.",
        ] {
            for gap in [" ", "\n"] {
                let text = format!("Fix the typo in the README title.{gap}{remark}");
                assert_eq!(request_gist(&text), "Fix the typo in the README title.");
            }
        }
        let long = "Fix the typo in the README title and the broken badge links at the top. Also rewrite the whole install section so it uses pnpm workspaces instead of npm.";
        assert!(!request_gist(long).contains("pnpm"), "{long}");
    }

    #[test]
    fn a_request_is_read_past_list_markers_lone_paths_role_preambles_and_code() {
        for (text, want) in [
            (
                "Do the following:\n1. Add a retry to the fetcher in src/fetch.rs\n2. Update the docs",
                "Do the following: Add a retry to the fetcher in src/fetch.rs",
            ),
            (
                "1. Add a retry to the fetcher in src/fetch.rs\n2. Update the docs",
                "Add a retry to the fetcher in src/fetch.rs",
            ),
            (
                "src/fetch.rs src/retry.rs\nthe retry loop never stops after 3 attempts, fix it",
                "src/fetch.rs src/retry.rs the retry loop never stops after 3 attempts, fix it",
            ),
            (
                "You are a senior Rust engineer. You write idiomatic code.\n\nAdd a retry to the fetcher.",
                "Add a retry to the fetcher.",
            ),
            (
                "You are an expert Go developer. Follow best practices.\nNever skip tests.\nFix the data race in worker.go.",
                "Fix the data race in worker.go.",
            ),
            (
                "You are right, the cache is stale.",
                "You are right, the cache is stale.",
            ),
            (
                "You are Claude in my editor.\n\nNON-NEGOTIABLES\n1) Small steps.\n\nPROJECT CONTEXT (what to fix)\nA) Analytics mode: the overlay does not show on uploads.\nB) Drop the level selector.",
                "Analytics mode: the overlay does not show on uploads.",
            ),
            (
                "## Rules\n- be terse\n## Task\nAdd dark mode to the settings page.\n",
                "Add dark mode to the settings page.",
            ),
            (
                "Update the function above in src/rate.rs\nhide the SEASON rows when a stay has an EVENT",
                "Update the function above in src/rate.rs — hide the SEASON rows when a stay has an EVENT",
            ),
            (
                "```rust\nfn main() {}\n```\nwhy does this not compile?",
                "why does this not compile?",
            ),
            (
                "Read docs/v5.md and think it through, P0 -   \nthe type system is a mess (fix now)\n\n  Issue 1.1",
                "Read docs/v5.md and think it through, P0 - the type system is a mess (fix now)",
            ),
            (
                "2.5 seconds is too slow for the login page",
                "2.5 seconds is too slow for the login page",
            ),
        ] {
            assert_eq!(gist(text), want, "{text:?}");
        }
    }

    #[test]
    fn an_answers_introduction_gives_way_to_what_it_introduces_in_any_language() {
        let result = "The crate is a binary and a library, so mdBook suits it best.";
        for intro in [
            "Here is what I found:",
            "以下是我的調查結果，針對你的專案特性整理：",
            "**Résumé :**",
            "Nghe này Master...",
            "Итак…",
        ] {
            for list in ["", "- ", "1. "] {
                let answer = format!("{intro}\n\n{list}{result}\n\nMore details follow.");
                assert_eq!(outcome_gist(&answer), result, "{answer:?}");
            }
        }
        // A long first line is the answer itself, colon or not.
        let said = "That opens a Notepad window. In that window:\n1. Paste the token";
        assert_eq!(outcome_gist(said), "That opens a Notepad window.");
        let long = "The retry loop now backs off exponentially with jitter and stops after five attempts as the spec says:\n- src/fetch.rs";
        assert!(outcome_gist(long).starts_with("The retry loop"), "{long}");
    }

    /// The class: the last answer's first line says something before its
    /// colon (the state, the cause, what a thing is) and a list completes it.
    /// The line goes before what it introduces, in any language, whether a
    /// list of short items or one long item follows; a line that only points
    /// ahead ("the following", "以下", an announcement) still gives way.
    #[test]
    fn a_line_that_says_something_before_its_colon_goes_before_what_it_introduces() {
        let long = "DestroySoulMesh is defined after CreateSoulMesh, so the call finds nothing";
        let said = [
            "The backup repo is clean now:",
            "**Two problems** kept the build red:",
            "你现在主要有两个问题，所以魂环没生成：",
            "ビルドが失敗した原因は二つあります：",
            "Der Build schlägt aus zwei Gründen fehl:",
            "El despliegue quedó listo en staging:",
            "Сборка снова проходит, но медленно:",
        ];
        for head in said {
            let core = head.replace('*', "");
            let join = if core.ends_with('：') { "" } else { " " };
            for marker in ["- ", "1. ", "* "] {
                let one = format!("{head}\n{marker}{long}\n{marker}Moved the call below it");
                let want = format!("{core}{join}{long}; Moved the call below it");
                assert_eq!(outcome_gist(&one), want, "{one:?}");
                let short = format!("{head}\n\n{marker}dark mode\n{marker}CSV export");
                let want = format!("{core}{join}dark mode, CSV export");
                assert_eq!(outcome_gist(&short), want, "{short:?}");
            }
        }
        let pointing = [
            "Here is what I found:",
            "The release contains the following:",
            "I made these changes:",
            "以下是修改结果：",
            "次の変更を行いました：",
            "Les changements suivants :",
            "Folgende Änderungen:",
            "Let me list what changed:",
            "Changes:",
            "I've reviewed the code and here are my findings:",
        ];
        for head in pointing {
            let answer = format!("{head}\n- {long}\n- Moved the call below it");
            let want = format!("{long}; Moved the call below it");
            assert_eq!(outcome_gist(&answer), want, "{answer:?}");
        }
    }

    #[test]
    fn a_request_keeps_its_point_after_a_colon_and_its_words_around_a_long_path() {
        assert_eq!(
            gist("How could I solve this issue:\nthe build fails with E0308 in src/main.rs"),
            "How could I solve this issue: the build fails with E0308 in src/main.rs"
        );
        assert_eq!(
            gist("基于/home/ana/work/proj/docs/architecture.md 写一个实现计划"),
            "基于…/docs/architecture.md 写一个实现计划"
        );
        // A relative path is the person's words: left whole.
        assert_eq!(gist("edit src/app/main.rs now"), "edit src/app/main.rs now");
    }

    #[test]
    fn a_session_sentence_says_request_place_and_outcome_and_passes_the_floor() {
        let t = crate::harnesses::read(concat!(
            r#"{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w/agentcmd","message":{"role":"user","content":"please move the + button to the right of the search in @apps/app/src/client/components/AppInnerSidebar.tsx"}}"#,
            "\n",
            r#"{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/w/agentcmd/apps/app/src/client/components/CommandMenu.tsx"}},{"type":"text","text":"Moved the plus button next to the search box. The tests pass."}]}}"#,
        ));
        let s = compose(&t, Some("/w/agentcmd")).unwrap();
        assert_eq!(
            s,
            "agentcmd: move the + button to the right of the search in apps/app/src/client/components/AppInnerSidebar.tsx; changed apps/app/src/client/components/CommandMenu.tsx; outcome: Moved the plus button next to the search box."
        );
        assert_eq!(
            crate::sentence::check(&s, Some("/w/agentcmd"), &SentenceConfig::default()),
            None
        );
    }

    /// An older Gemini CLI chat keeps no tool calls and no folder: the files
    /// its answers name are the place, so the sentence passes the floor, in
    /// any language.
    #[test]
    fn a_session_with_no_tool_calls_and_no_project_is_placed_by_the_files_it_names() {
        for (ask, said) in [
            (
                "make the code more concise",
                "Fixed the nested `if` in `src/pricing.rs` and a type in `src/analysis/display.rs`; committed.",
            ),
            (
                "請幫我檢查代碼是否足夠簡潔",
                "我已經修復了 `src/pricing.rs` 和 `src/usage/display.rs` 中的問題，並提交了這些變更。",
            ),
        ] {
            let doc = serde_json::json!({"sessionId": "e1", "projectHash": "ab", "startTime": "2025-10-05T07:11:03.979Z",
            "messages": [
                {"id": "1", "timestamp": "2025-10-05T07:11:03.980Z", "type": "user", "content": ask},
                {"id": "2", "timestamp": "2025-10-05T07:11:31.572Z", "type": "gemini", "content": "I'll run `cargo clippy` first."},
                {"id": "3", "timestamp": "2025-10-05T07:16:07.473Z", "type": "gemini", "content": said},
            ]});
            let t = crate::harnesses::read(&doc.to_string());
            let s = compose(&t, None).unwrap();
            assert!(s.contains("about src/pricing.rs and 1 more file"), "{s}");
            assert_eq!(
                crate::sentence::check(&s, None, &SentenceConfig::default()),
                None,
                "{s}"
            );
        }
    }

    #[test]
    fn a_session_without_a_request_has_no_sentence() {
        let t = crate::harnesses::read(
            "{\"type\":\"session\",\"version\":3,\"id\":\"h\",\"cwd\":\"/home/d\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"[OpenClaw heartbeat poll]\"}}\n",
        );
        assert_eq!(compose(&t, Some("/home/d")), None);
    }

    #[test]
    fn thanks_give_way_to_the_request_and_a_question_that_names_nothing_takes_the_next_sentence() {
        assert_eq!(
            gist("Fantastic, well reported. I could use some help with the persona packages."),
            "I could use some help with the persona packages."
        );
        assert_eq!(
            gist(
                "How could I solve this issue.\nGitHub CLI authentication expired. Run gh auth login."
            ),
            "How could I solve this issue. GitHub CLI authentication expired."
        );
        // A request that says its point first keeps only it.
        assert_eq!(gist("Fix the retry loop. Thanks!"), "Fix the retry loop.");
    }

    pub(super) fn session(request: &str, reply: &str) -> Transcript {
        let line = |role: &str, uuid: &str, content: serde_json::Value| {
            serde_json::json!({"type": role, "uuid": uuid, "sessionId": "s", "cwd": "/w/shop",
                "message": {"role": role, "content": content}})
            .to_string()
        };
        crate::harnesses::read(&format!(
            "{}\n{}",
            line("user", "u1", serde_json::json!(request)),
            line(
                "assistant",
                "a1",
                serde_json::json!([{"type": "text", "text": reply}])
            )
        ))
    }

    /// The class: a list of short items after an introduction is said as
    /// one, whatever marks its items (`-`, `1.`, `✅`); items that are
    /// sentences, or longer items that fit together, are said apart, and a
    /// list of long items or of one item gives its first.
    #[test]
    fn a_list_of_short_items_is_said_as_one() {
        for (answer, want) in [
            (
                "The release contains the following:\n\n- dark mode\n- CSV export\n- faster search",
                "dark mode, CSV export, faster search",
            ),
            (
                "本次发布包含：\n\n1. 深色模式\n2. CSV 导出",
                "本次发布包含：深色模式, CSV 导出",
            ),
            (
                "* **tokio** 1.40\n* **serde** 1.0.210",
                "tokio 1.40, serde 1.0.210",
            ),
            (
                "Current state:\n- project `idaho-vault` exists\n- billing is active",
                "project idaho-vault exists, billing is active",
            ),
            (
                "1. It fails because PATH lacks /usr/local/bin.\n2. Its logs go to /var/log/cron.log.",
                "It fails because PATH lacks /usr/local/bin; Its logs go to /var/log/cron.log",
            ),
        ] {
            assert_eq!(outcome_gist(answer), want, "{answer}");
        }
        // Check marks list as a list marker does, in any language.
        for mark in ["✅", "✔️", "✔", "☑️", "✓"] {
            for (items, want) in [
                (
                    [
                        "ESLint configured",
                        "Prettier added",
                        "`npm run lint` passes",
                    ],
                    "ESLint configured, Prettier added, npm run lint passes",
                ),
                (
                    ["旧代码已清理", "类型已统一", "构建通过"],
                    "旧代码已清理, 类型已统一, 构建通过",
                ),
            ] {
                let answer = items.map(|i| format!("{mark} {i}")).join("\n");
                assert_eq!(outcome_gist(&answer), want, "{answer}");
            }
            let one = format!("{mark} Build fixed: the missing import is added.");
            assert_eq!(
                outcome_gist(&one),
                "Build fixed: the missing import is added."
            );
        }
        // Longer items are said apart when all fit; else the first.
        let longer = "I've made the following changes:\n\n- `Sidebar.tsx`: added a toggle button and a `collapsed` state\n- `Sidebar.css`: the sidebar slides out under 768px";
        assert_eq!(
            outcome_gist(longer),
            "Sidebar.tsx: added a toggle button and a collapsed state; Sidebar.css: the sidebar slides out under 768px"
        );
        let long = "- Moved the retry loop into its own module so it can be tested alone\n- Added jitter to every retry so that clients do not all come back at once";
        assert_eq!(
            outcome_gist(long),
            "Moved the retry loop into its own module so it can be tested alone"
        );
        // A closing line of prose under the list is not an item.
        let closed = "已安排好明天的日程：\n- 上午：写周报\n- 14:00：开会\n- 晚上：健身\n已保存到 schedule.md。";
        assert_eq!(
            outcome_gist(closed),
            "已安排好明天的日程：上午：写周报, 14:00：开会, 晚上：健身"
        );
        // Three or more that do not fit: as many whole as fit, then how
        // many more, in any list style and language.
        let changes = [
            "Removed the unused legacyFetch helper",
            "Replaced callbacks with async/await in getUser",
            "Added input validation to createUser",
            "Extracted the email regex into a constant",
            "Fixed the typo in the error message",
        ];
        let zh = [
            "删除了未使用的 legacyFetch",
            "把回调改成了 async/await",
            "给 createUser 加了输入校验",
            "把邮箱正则提取成常量",
            "修正了错误信息里的拼写",
            "补充了公共函数的注释",
            "统一了变量命名",
        ];
        // (Items of six words at most are said with commas.)
        for (items, shown, sep) in [(&changes[..], 3, "; "), (&zh[..], 3, ", ")] {
            for marker in ["- ", "1. ", "✅ "] {
                let list: Vec<String> = items.iter().map(|i| format!("{marker}{i}")).collect();
                let answer = format!("I've made the following changes:\n\n{}", list.join("\n"));
                let want = format!(
                    "{}; and {} more",
                    items[..shown].join(sep),
                    items.len() - shown
                );
                assert_eq!(outcome_gist(&answer), want, "{answer}");
            }
        }
    }

    /// The class: an ask or question that names nothing ("what's wrong
    /// here", "why doesn't this work?", "这段代码有什么问题？") over pasted
    /// code, in any language: the request names the code by its definition.
    /// An ask that names its subject, or a paste that defines nothing, stays.
    #[test]
    fn an_ask_that_names_nothing_over_pasted_code_names_its_definition() {
        let code = "```python\ndef avg(xs):\n    return sum(xs) / len(xs)\n```";
        for ask in [
            "what's wrong here",
            "why doesn't this work?",
            "any ideas?",
            "Fix this:",
            "这段代码有什么问题？",
            "このコードの何が問題？",
        ] {
            for gap in ["\n", "\n\n"] {
                let text = format!("{ask}{gap}{code}");
                let got = request_gist(&text);
                assert!(got.ends_with(": def avg(xs)"), "{text:?} -> {got:?}");
            }
        }
        let named = format!("why does avg crash on an empty list?\n{code}");
        assert_eq!(request_gist(&named), "why does avg crash on an empty list?");
        let data = "what's wrong here\n```json\n{\"a\": 1,}\n```";
        assert_eq!(request_gist(data), "what's wrong here");
    }

    /// A quoted answer that ends its own sentence ("\"The order will arrive
    /// on Monday.\"") gets the sentence's one full stop after the quote,
    /// never a second one; other endings keep theirs.
    #[test]
    fn a_quote_that_ends_its_sentence_gets_one_full_stop() {
        for (said, want) in [
            (
                "outcome: \"The order will arrive on Monday.\"",
                "outcome: \"The order will arrive on Monday\".",
            ),
            (
                "outcome: «La commande arrive lundi.»",
                "outcome: «La commande arrive lundi».",
            ),
            ("outcome: it says \"hi\"", "outcome: it says \"hi\"."),
            ("outcome: \"Is it Monday?\"", "outcome: \"Is it Monday?\"."),
            ("outcome: done.", "outcome: done."),
            ("outcome: 已完成。", "outcome: 已完成."),
        ] {
            assert_eq!(end_sentence(said), want, "{said:?}");
        }
    }

    /// A file named alone over the items that tell what it is ("1.
    /// **`Guidance.tsx`**\n   - animated skeleton …", any list marker) is
    /// their title: "Guidance.tsx: animated skeleton …". Paths over a plain
    /// line of words go on into it as before.
    #[test]
    fn a_file_over_the_items_that_tell_it_is_their_title() {
        for (title, item) in [
            ("1. **`src/Guidance.tsx`**", "   - "),
            ("- `src/Guidance.tsx`", "  * "),
        ] {
            let answer =
                format!("{title}\n{item}Animated skeleton overlay\n{item}Red and green forms");
            assert_eq!(
                outcome_gist(&answer),
                "src/Guidance.tsx: Animated skeleton overlay",
                "{answer:?}"
            );
        }
        let request = "src/fetch.rs src/retry.rs\nmake the retry exponential";
        assert_eq!(
            request_gist(request),
            "src/fetch.rs src/retry.rs make the retry exponential"
        );
    }

    /// The class: a role given to the agent ("You are …", "Act as …") in
    /// any language, then the ask on its line or the next: the ask is the
    /// request. A role alone, or a question, stays.
    #[test]
    fn a_role_given_to_the_agent_gives_way_to_the_ask_after_it() {
        let roles = [
            "You are a senior Rust engineer.",
            "Act as an SEO expert and orchestrator.",
            "Agis en tant qu'expert SEO.",
            "Actúa como un arquitecto de software.",
            "Ты — опытный DevOps-инженер.",
            "你是一名资深前端工程师。",
            "あなたは熟練したエンジニアです。",
        ];
        let ask = "Review the retry logic in src/fetch.rs and list what can fail.";
        for role in roles {
            for sep in [" ", "\n", "\n\n"] {
                let got = request_gist(&format!("{role}{sep}{ask}"));
                assert_eq!(got, ask, "{role:?} {sep:?}");
            }
            assert_eq!(request_gist(role), role);
        }
        let asked = "You are a good judge of this: should we drop the mutex?";
        assert_eq!(request_gist(asked), asked);
    }

    /// The class: a brief that gives its context first (labelled
    /// paragraphs, conventions, a role) and then states the agent's task in
    /// so many words, in any language, on the context's line or after it:
    /// the request is the task, without the words that state it. An opening ask or question stays the
    /// request, and so does a brief that states no task.
    #[test]
    fn a_brief_that_states_its_task_after_its_context_is_read_from_the_task() {
        let contexts = [
            "Canonical layer: infra/ holds all infrastructure. Do not write to old/.",
            "You are entering the VAULT, a public notes vault.\n\nActive context: we discussed a souls system.\n\nKey conventions:\n- Markdown is the product.\n- Chat is ephemeral.",
            "Background: the shop moved to PostgreSQL last month and the team is small.",
        ];
        let tasks = [
            ("Your task is to add a retry to the fetcher.", "add a retry"),
            (
                "Your \"Cloud\" parallel task appears to be: explain the layout.",
                "explain the layout",
            ),
            ("Task: add a retry to the fetcher.", "add a retry"),
            (
                "Ta tâche : ajouter un retry au fetcher.",
                "ajouter un retry",
            ),
            (
                "Tu tarea es añadir un reintento al fetcher.",
                "añadir un reintento",
            ),
            (
                "Твоя задача — добавить повтор в fetcher.",
                "добавить повтор",
            ),
            ("你的任务是给 fetcher 加上重试。", "加上重试"),
            (
                "あなたのタスクは fetcher にリトライを追加することです。",
                "リトライを追加",
            ),
        ];
        for context in contexts {
            for (task, words) in tasks {
                for sep in [" ", "\n", "\n\n"] {
                    let text =
                        format!("{context}{sep}{task}\n\nCollision risk: do not touch souls/.");
                    let got = request_gist(&text);
                    assert!(got.contains(words), "{text:?} gave {got:?}");
                    // The words that state the task are not the task.
                    let label = task.split([':', '：', '—']).next().unwrap_or_default();
                    let label: String = label.chars().take(8).collect();
                    assert!(!got.contains(&label), "{text:?} gave {got:?}");
                }
            }
        }
        let asked =
            "Can you add a retry to the fetcher?\n\nBackground: it drops calls. Your task is easy.";
        assert_eq!(request_gist(asked), "add a retry to the fetcher?");
        for told in [
            "Your task list in TODO.md is long.",
            "The task is urgent because the release is tomorrow.",
        ] {
            let text = format!("Fix the login redirect in auth.rs.\n\n{told}");
            assert_eq!(request_gist(&text), "Fix the login redirect in auth.rs.");
        }
    }

    /// The class: a request that closes with thanks or a plea (", thanks in
    /// advance!", " pls and thx", "，谢谢", "。よろしくお願いします。", a last
    /// sentence of thanks), in any language: the request is the ask
    /// without it. Words that only end like thanks stay ("… the property",
    /// "send it to Tia").
    #[test]
    fn a_request_is_asked_without_the_thanks_it_closes_with() {
        for (said, ask) in [
            (
                "make the logs rotate daily, thanks in advance!",
                "make the logs rotate daily",
            ),
            (
                "make the logs rotate daily pls and thx",
                "make the logs rotate daily",
            ),
            (
                "make the logs rotate daily ty! 🙏",
                "make the logs rotate daily",
            ),
            (
                "make the logs rotate daily. Thanks so much, you're a lifesaver!!",
                "make the logs rotate daily.",
            ),
            (
                "fais tourner les logs chaque jour, merci d'avance",
                "fais tourner les logs chaque jour",
            ),
            ("rota los logs cada día, gracias", "rota los logs cada día"),
            ("让日志每天轮转，谢谢", "让日志每天轮转"),
            (
                "ログを毎日ローテーションして。よろしくお願いします。",
                "ログを毎日ローテーションして。",
            ),
        ] {
            assert_eq!(request_gist(said), ask, "{said:?}");
        }
        for kept in [
            "rename the getter for the property",
            "send the weekly report to Tia",
            "thanks",
        ] {
            assert_eq!(request_gist(kept), kept);
        }
    }

    /// The class: an ask's opening words sent on a line of their own, as
    /// chat sends them ("can you", "could you please", "pls", "preciso
    /// que"), then the rest: one ask, never joined by a dash.
    #[test]
    fn an_asks_opening_words_sent_alone_go_on_into_it() {
        for opening in [
            "can you",
            "could you please",
            "pls",
            "please",
            "preciso que",
        ] {
            let text = format!("{opening}\ncheck my calendar for tomorrow");
            let got = request_gist(&text);
            assert!(
                got.contains("check my calendar for tomorrow"),
                "{text:?} -> {got:?}"
            );
            assert!(!got.contains('—'), "{text:?} -> {got:?}");
        }
        let unfinished = "Update the function above in src/rate.rs\nhide SEASON rows when empty";
        assert!(request_gist(unfinished).contains(" — hide SEASON rows"));
    }

    /// The class: a screenshot dropped into the prompt as its path (Linux,
    /// macOS with escaped spaces, quoted, Windows; png, jpg, webp, heic) or
    /// pasted as a markdown image, and an HTML comment, before or after the
    /// words, in any language: the request is the words. A path inside
    /// them, or to a file that is no image, stays.
    #[test]
    fn a_dropped_screenshot_path_is_not_the_request() {
        let words = ["the button is misaligned", "这个按钮没对齐，帮我修一下"];
        let paths = [
            "/home/dana/Pictures/Screenshot_20261120_101203.png",
            "/Users/dana/Desktop/Screen\\ Shot\\ 2026-11-20\\ at\\ 10.12.03\\ AM.png",
            "'/Users/dana/Desktop/Screenshot 2026-11-20 at 10.12.03.jpg'",
            "C:\\Users\\dana\\Pictures\\shot-01.webp",
            "~/Downloads/IMG_0042.HEIC",
            "/home/dana/Pictures/Screenshot 2026-11-20 at 10.12.03.png",
            "![screenshot](https://user-images.githubusercontent.com/1/abc.png)",
            "<!-- bug report template v2 -->",
        ];
        for said in words {
            for path in paths {
                for text in [
                    format!("{path} {said}"),
                    format!("{said} {path}"),
                    format!("{path}\n{said}"),
                ] {
                    assert_eq!(request_gist(&text), said, "{text:?}");
                }
            }
        }
        let inside = "compare /tmp/a.png with the mockup";
        assert!(request_gist(inside).contains("a.png"));
        for kept in [
            "/home/dana/shop/src/app.ts fails to compile",
            "/home/dana/shop/src/app.ts is broken like mockup.png",
            "the layout of /home/dana/shop/src/app.ts differs from the mockup.png",
        ] {
            assert!(request_gist(kept).contains("app.ts"), "{kept}");
        }
    }

    /// The class: a request of only dots or marks, with or without work
    /// after it, says nothing; what was done or answered says it.
    #[test]
    fn a_request_of_no_work_gives_way_to_what_was_done() {
        let worked = |request: &str| {
            let line = |role: &str, uuid: &str, content: serde_json::Value| {
                serde_json::json!({"type": role, "uuid": uuid, "sessionId": "s", "cwd": "/w/shop",
                    "message": {"role": role, "content": content}})
                .to_string()
            };
            let edit = serde_json::json!([{"type": "tool_use", "id": "t1", "name": "Edit",
                "input": {"file_path": "/w/shop/api/orders.py", "old_string": "a", "new_string": "b"}}]);
            let result =
                serde_json::json!([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]);
            let reply = serde_json::json!([{"type": "text", "text": "Finished the pagination of /orders."}]);
            crate::harnesses::read(
                &[
                    line("user", "u1", serde_json::json!(request)),
                    line("assistant", "a1", edit),
                    line("user", "r1", result),
                    line("assistant", "a2", reply),
                ]
                .join("\n"),
            )
        };
        let want = "shop: changed api/orders.py; outcome: Finished the pagination of /orders.";
        for request in [
            "continue",
            "Continue.",
            "go on",
            "keep going",
            "continue where you left off",
            "继续",
            "続けて",
            "계속해",
            "продолжай",
            "weiter",
            "tiếp tục",
            "yes, go ahead",
            "ok",
        ] {
            let s = compose(&worked(request), Some("/w/shop")).unwrap_or_default();
            assert!(s.starts_with(want), "{request}: {s}");
        }
        // An ask, however short, stays.
        let s = compose(&worked("paginate orders"), Some("/w/shop")).unwrap_or_default();
        assert!(s.starts_with("shop: paginate orders; changed"), "{s}");
    }

    #[test]
    fn a_request_of_only_marks_gives_way_to_what_was_done() {
        for marks in ["...", "?", "。。。", "!!"] {
            let s = compose(
                &session(marks, "Fixed the header overlap."),
                Some("/w/shop"),
            );
            assert_eq!(
                s.as_deref(),
                Some(
                    "shop: outcome: Fixed the header overlap. (session of 1 request, 0 tool calls)."
                ),
                "{marks}"
            );
        }
    }

    /// The class: a long first sentence that asks nothing (backstory) and
    /// the ask a few sentences after it, in any language: the ask is the
    /// request. A short
    /// scene goes on into the ask, and a first sentence that asks stays.
    #[test]
    fn a_long_first_sentence_that_asks_nothing_gives_way_to_the_ask_after_it() {
        let story = [
            "I have been working on this online shop in Django for three months and the team decided to move to PostgreSQL.",
            "Estou trabalhando num projeto de loja virtual em Django há três meses e a equipe decidiu migrar o banco.",
            "Wir arbeiten seit drei Monaten an diesem Shop in Django und das Team hat beschlossen, auf PostgreSQL umzusteigen.",
        ];
        let asks = [
            (
                "Please update settings.py to read DATABASE_URL.",
                "update settings.py to read DATABASE_URL.",
            ),
            (
                "Preciso que você atualize o settings.py.",
                "Preciso que você atualize o settings.py.",
            ),
            (
                "Kannst du settings.py anpassen?",
                "Kannst du settings.py anpassen?",
            ),
            ("请帮我更新 settings.py。", "请帮我更新 settings.py。"),
        ];
        // Remarks between the story and the ask ("I think it's the
        // config.") leave the ask the request.
        let between = [
            "",
            "Nobody on the team knows it well. ",
            "Nobody on the team knows it well. It worked in staging. ",
        ];
        for s in story {
            for (ask, want) in asks {
                for b in between {
                    let text = format!("{s} {b}{ask}");
                    assert_eq!(request_gist(&text), want, "{text}");
                }
            }
            // What follows without asking leaves the story the request.
            let told = format!("{s} It has been a long quarter.");
            assert!(request_gist(&told).starts_with(&s[..20]));
        }
        let scene = "I have a folder of 300 scanned invoices. Please rename them by date.";
        assert_eq!(request_gist(scene), scene);
        let asked = "Can you check why the nightly export to the billing service has been failing since Monday? Please hurry.";
        assert!(request_gist(asked).starts_with("check why the nightly export"));
    }

    /// The class: a problem told at length over paragraphs, the ask in the
    /// last one ("Can you …?", "Please …", "What should I do?", "请…"), in
    /// any language: the ask is the request. A short telling, or a last
    /// paragraph that asks nothing, leaves the first sentence.
    #[test]
    fn the_ask_closing_a_problem_told_at_length_is_the_request() {
        let told = "Our app has three services: api, worker and web. The api talks to Postgres, the worker reads jobs from Redis, and the web app calls the api through a gateway. Last week we moved Redis to a managed instance and since then the worker sometimes stops picking up jobs for minutes at a time.";
        let told_zh = "我们的应用有三个服务：api、worker 和 web。api 连接 Postgres，worker 从 Redis 读取任务，web 通过网关调用 api。上周我们把 Redis 迁移到了托管实例，从那以后 worker 有时会连续几分钟不处理任务，日志里也没有任何错误，重启之后能好一阵子。";
        for (context, ask, want) in [
            (
                told,
                "Can you find out why the worker stalls and fix it?",
                "find out why the worker stalls and fix it?",
            ),
            (
                told,
                "Please make the worker reconnect when Redis drops it.",
                "make the worker reconnect when Redis drops it.",
            ),
            (
                told,
                "What should I change so it keeps working?",
                "What should I change so it keeps working?",
            ),
            (told_zh, "请帮我找出原因并修复。", "请帮我找出原因并修复。"),
        ] {
            for between in ["", "\n\nRestarting it fixes it for a while."] {
                let text = format!("{context}{between}\n\n{ask}");
                assert_eq!(request_gist(&text), want, "{text}");
            }
        }
        let first = "Our app has three services: api, worker and web.";
        for text in [
            format!("{first}\n\nCan you find out why the worker stalls?"),
            format!("{told}\n\nThanks in advance, this has cost us a week."),
            format!("{told} Can you find out why the worker stalls?"),
            format!("{told}\n\nCan you also add a test for it?"),
        ] {
            assert!(
                request_gist(&text).starts_with("Our app has three services"),
                "{text}"
            );
        }
    }

    /// The class: a short ask that points at what follows it ("Implement
    /// the following spec.", "Fix the errors below.", "按照以下需求实现。"),
    /// before a heading or a line: the ask with the first line it points
    /// at. A sentence about what is already there ("These tests fail.") or
    /// a long one is left alone, and so is a code block after it.
    #[test]
    fn a_short_ask_pointing_at_what_follows_takes_its_first_line() {
        for (ask, said) in [
            (
                "Implement the following spec.",
                "Implement the following spec",
            ),
            ("Fix the errors below.", "Fix the errors below"),
            (
                "Please review the attached plan.",
                "review the attached plan",
            ),
            (
                "Implémente la spécification suivante.",
                "Implémente la spécification suivante",
            ),
            ("按照以下需求实现。", "按照以下需求实现"),
        ] {
            for next in [
                "# PRD: Orders export",
                "PRD: Orders export",
                "## PRD: Orders export",
            ] {
                let text = format!("{ask}\n\n{next}\n\n## Goal\nOwners need a spreadsheet.");
                let got = request_gist(&text);
                assert!(got.starts_with(said), "{text}: {got}");
                assert!(got.ends_with("PRD: Orders export"), "{text}: {got}");
            }
        }
        for text in [
            "These tests fail on CI.\nThe runner has no network.",
            "Implement the following spec, which the product team wrote after three rounds of interviews.\n\n# PRD",
            "Run the following.\n\n```\nnpm test\n```",
        ] {
            assert!(
                !request_gist(text).contains("PRD") && !request_gist(text).contains("runner"),
                "{text}"
            );
        }
        // The label the ask already says ("plan", "spec") is not said again.
        for (ask, title, said) in [
            (
                "Implement the following plan:",
                "# Plan: Dark mode for the settings page",
                "Implement the following plan: Dark mode for the settings page",
            ),
            (
                "Implement the following spec.",
                "## Spec: Orders export",
                "Implement the following spec: Orders export",
            ),
        ] {
            let text = format!("{ask}\n\n{title}\n\n## Steps\n1. Add a toggle.");
            assert_eq!(request_gist(&text), said, "{text}");
        }
        // Words that point at nothing leave a brief read from its task.
        let brief = "Please read carefully.\n\nRULES\n1) Small steps.\n\nTASK\nAdd a CSV export to the orders page.";
        assert_eq!(request_gist(brief), "Add a CSV export to the orders page.");
    }

    /// The class: a web address in a request (an issue, a pull request, a
    /// page, alone or in a sentence, http or https) is told without its
    /// scheme, whole when its path is short and by its host and last two
    /// parts when long; it is never cut to "https:…".
    #[test]
    fn a_web_address_is_told_by_its_host_and_path() {
        for (url, told) in [
            (
                "https://github.com/acme/shop/issues/42",
                "github.com/acme/shop/issues/42",
            ),
            (
                "http://gitlab.example.org/team/api/-/merge_requests/7/",
                "gitlab.example.org/…/merge_requests/7",
            ),
            ("https://docs.rs/tokio", "docs.rs/tokio"),
            (
                "https://github.com/acme/shop/blob/main/src/checkout/button/index.ts",
                "github.com/…/button/index.ts",
            ),
        ] {
            for text in [
                url.to_string(),
                format!("fix {url} before the release"),
                format!("看一下 {url} 这个问题"),
            ] {
                let got = request_gist(&text);
                assert!(
                    got.contains(told) && !got.contains("http"),
                    "{text:?} -> {got:?}"
                );
            }
        }
    }

    /// The class: Markdown links in an answer or a request (Codex's file
    /// references with a line, spaced brackets, web links, a target with
    /// parentheses, several in one sentence) are told by their words; the
    /// target never reaches the sentence. Brackets that are no link stay.
    #[test]
    fn a_markdown_link_is_told_by_its_words() {
        for (linked, words) in [
            (
                "Added the column ([src/export.py:88](/home/dev/shop/src/export.py:88)).",
                "Added the column (src/export.py:88).",
            ),
            (
                "See [ pkg/job/actions.go:307 ](/Users/x/volcano/pkg/job/actions.go:307) for it.",
                "See pkg/job/actions.go:307 for it.",
            ),
            (
                "Follow [the upgrade guide](https://example.com/docs/upgrade) and [the FAQ](https://en.wikipedia.org/wiki/FAQ_(disambiguation)).",
                "Follow the upgrade guide and the FAQ.",
            ),
            (
                "Tasks marked [P] run in parallel; see [[Plan]].",
                "Tasks marked [P] run in parallel; see [[Plan]].",
            ),
        ] {
            assert_eq!(gist(linked), words, "{linked}");
            let t = session("add the email column", linked);
            let s = compose(&t, Some("/w/shop")).unwrap();
            assert!(!s.contains("]("), "{s}");
            assert!(!s.contains("https://"), "{s}");
        }
    }

    #[test]
    fn a_proposed_commit_message_is_the_outcome_not_its_announcement() {
        let t = session(
            "add pagination to the /orders endpoint",
            "Here's the commit message:\n\n```\nfeat(orders): paginate /orders with limit and cursor\n```",
        );
        let s = compose(&t, Some("/w/shop")).unwrap();
        assert!(
            s.ends_with(
                "outcome: commit message \"feat(orders): paginate /orders with limit and cursor\"."
            ),
            "{s}"
        );
    }

    #[test]
    fn a_short_request_leaves_its_words_to_the_outcome_and_a_sentence_ends_once() {
        let t = session(
            "rename the config flag",
            "Added the --verbose flag, documented it in the README and added two tests for it.",
        );
        let s = compose(&t, Some("/w/shop")).unwrap();
        assert!(s.ends_with("and added two tests for it."), "{s}");
        assert_eq!(
            end_sentence("Java heap 的完整遍历和对象检查："),
            "Java heap 的完整遍历和对象检查."
        );
    }

    #[test]
    fn an_acknowledgement_before_the_result_gives_way_to_it_in_any_language() {
        for (reply, want) in [
            (
                "네, 알겠습니다. 로그인 버그를 수정했습니다.",
                "로그인 버그를 수정했습니다.",
            ),
            (
                "承知しました。ログインのテストを修正しました。",
                "ログインのテストを修正しました。",
            ),
            (
                "Got it. The cookie now has SameSite=Lax.",
                "The cookie now has SameSite=Lax.",
            ),
        ] {
            assert_eq!(outcome_gist(reply), want, "{reply}");
        }
    }

    /// The class: the answer opens by agreeing with what the person said
    /// ("Record matches my view.", "完全同意。") and says the result after
    /// it, in a paragraph of its own or the same one, in any language. A
    /// sentence that names something it matches, or a bare verdict with
    /// nothing after it, stays the outcome.
    /// The class: the last answer opens by saying back what the person
    /// asked, in any language, and the result follows in the next sentence
    /// or paragraph: the result is the outcome. A restatement that goes on
    /// into the result after a colon stays.
    #[test]
    fn a_restated_request_before_the_result_gives_way_to_it() {
        let result = "I added a 20% VAT line to total() and the tests cover it.";
        for restated in [
            "You asked me to include tax in the cart total.",
            "You wanted the cart total to include tax.",
            "You requested tax in the cart total.",
            "Tu m'as demandé d'inclure la TVA dans le total.",
            "Me pediste incluir el IVA en el total.",
            "Du hast mich gebeten, die Steuer einzurechnen.",
            "Вы просили добавить налог в итог.",
            "你让我在购物车总价里加上税。",
        ] {
            for gap in [" ", "\n\n"] {
                let answer = format!("{restated}{gap}{result}");
                assert_eq!(outcome_gist(&answer), result, "{answer:?}");
            }
        }
        let goes_on = "You asked for tax in the total: added a 20% VAT line to total().";
        assert_eq!(outcome_gist(goes_on), goes_on);
    }

    #[test]
    fn agreement_with_the_person_before_the_result_gives_way_to_it() {
        let agreements = [
            "Record matches my view.",
            "Agreed.",
            "That's exactly right.",
            "I fully agree with your assessment.",
            "That matches my understanding.",
            "Makes sense.",
            "You're right.",
            "C'est tout à fait exact.",
            "Tienes razón.",
            "Genau, das stimmt.",
            "Concordo.",
            "Полностью согласен.",
            "Đúng vậy, chính xác.",
            "完全同意。",
            "その通りです。",
            "맞습니다.",
        ];
        let results = [
            "The session ended with governance repaired and the state preserved.",
            "会话已结束，治理已修复。",
        ];
        for agreement in agreements {
            for result in results {
                for gap in ["\n\n", " "] {
                    let answer = format!("{agreement}{gap}{result}");
                    assert_eq!(outcome_gist(&answer), result, "{answer:?}");
                }
            }
        }
        for stays in [
            "That matches the failing test in src/cache.rs.",
            "Correct: the cache key lacks the tenant id.",
            "The right header is set on every response now.",
        ] {
            let answer = format!("{stays}\n\nI also ran the suite.");
            assert_eq!(outcome_gist(&answer), stays, "{answer:?}");
        }
        assert_eq!(outcome_gist("Agreed."), "Agreed.");
    }

    /// The class: an answer framed by rules and ornamented titles, in any
    /// script. A rule says nothing; a title between ornaments says what it
    /// is without them, and a title too short to be the result gives way to
    /// the line after it.
    #[test]
    fn rules_and_ornaments_around_a_result_are_not_the_result() {
        for (answer, want) in [
            (
                "─── ✦ 朝报 · 丙午年四月初七 ✦ ───\n\n**今日政绩**\n\n• 七仓零提交",
                "朝报 · 丙午年四月初七",
            ),
            (
                "━━━━━━━━━━━━\nDeployed the site to Netlify and checked the preview.",
                "Deployed the site to Netlify and checked the preview.",
            ),
            (
                "=== Results ===\nAll 42 tests pass on the new parser.",
                "Results — All 42 tests pass on the new parser.",
            ),
            (
                "★★★ Release v2.1 shipped to the store ★★★",
                "Release v2.1 shipped to the store",
            ),
            (
                "~~~~~~\n\nLa migration est terminée sans erreur.",
                "La migration est terminée sans erreur.",
            ),
            (
                "──────────\n배포가 끝났고 모든 테스트가 통과했습니다.",
                "배포가 끝났고 모든 테스트가 통과했습니다.",
            ),
        ] {
            assert_eq!(outcome_gist(answer), want, "{answer:?}");
        }
        // A bullet, a dash in a sentence and bold stay as they were.
        for bullet in ["-", "•", "◦", "▪"] {
            assert_eq!(
                outcome_gist(&format!(
                    "{bullet} Fixed the retry loop in fetch.rs — it backs off now."
                )),
                "Fixed the retry loop in fetch.rs — it backs off now."
            );
        }
        // A mark alone after a completion word says less than the word.
        for answer in ["Done! ✅", "已完成！🎉", "Fertig. ✔️", "All set! 🚀"] {
            let got = outcome_gist(answer);
            assert!(
                got.chars().any(char::is_alphanumeric),
                "{answer:?} -> {got:?}"
            );
        }
    }
}
