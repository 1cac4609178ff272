//! The outcome's part of the sentence: the sentence of the agent's last
//! answer that says something, past its introduction, acknowledgements and
//! offers, and with the command or definition a lead-in line announces.
//!
//! Owns: reading one answer's text. Must not: choose which answer is the
//! outcome (`outcome::decide` does) or clip it (the sentence does).

use super::super::outcome;
use super::advice;
use super::listed::{MORE_WORDS, as_many_as_fit};
use super::{after, first_sentence, gist, lead, prose_lines, sentences, short_paths, unmarked};
use crate::sentence::word_count;

/// The first sentence of an answer that says something: "Done!", "Good
/// catch!" and "Let me check." give way to the sentence after them.
pub(super) fn outcome_gist(answer: &str) -> String {
    if let Some(rows) = table_rows(answer.trim()) {
        return rows;
    }
    if let Some(code) = code_alone(answer.trim()) {
        return code;
    }
    if let Some(after) = state_after(answer) {
        return gist(after);
    }
    if let Some(told) = past_warning(answer.trim()) {
        return told;
    }
    if let Some(told) = over_a_table(answer.trim()) {
        return told;
    }
    let (said, mut rest) = past_introduction(answer.trim());
    let items = short_list(rest);
    if let Some(head) = said {
        return lead::joined(head, &items.unwrap_or_else(|| gist(rest)));
    }
    if let Some(items) = items {
        return items;
    }
    // "Fixed!", "Done." opening the answer: the gist reads past it.
    let opening = first_sentence(unmarked(prose_lines(rest).next().unwrap_or_default()));
    // "Yes." on its own line: the answer, whatever the gist reads past.
    let mut first = Some(opening.clone()).filter(|o| lead::is_labelled_answer(o));
    let completion = Some(opening.trim_end_matches(['!', '.', '！', '。']))
        .filter(|_| completes(&opening))
        .map(str::to_string);
    for _ in 0..4 {
        let one = gist(rest);
        if one.is_empty() {
            break;
        }
        // "네, 알겠습니다." and "承知しました。" before the result are not it.
        // "I see the problem now.", "You asked me to add tax." and "Would
        // you like me to add jitter?" stand around the result without being it.
        // "Yes." to a question is its answer, not an acknowledgement.
        let narration = !lead::is_labelled_answer(&one)
            && (outcome::is_narration(&one)
                || outcome::is_acknowledgement(&one)
                || outcome::is_acknowledgement(outcome::past_acknowledging_clause(
                    lead::past_status_label(&one),
                ))
                || outcome::is_agreement(&one)
                || lead::is_realisation(&one)
                || lead::is_restatement(&one)
                || lead::is_offer(&one));
        // "✅" after "Done!" says less than it: a sentence has a word.
        if !narration && one.chars().any(char::is_alphanumeric) {
            first.get_or_insert_with(|| one.clone());
        }
        // "All phases are complete. Here's a summary of what changed:" over
        // a list: past the completion, the list is read as an answer's own.
        let line = prose_lines(rest).next().unwrap_or_default();
        let introduces = line.trim_end_matches(['*', ' ']).ends_with([':', '：']);
        if !narration && rest.len() < answer.trim().len() && introduces {
            return outcome_gist(rest);
        }
        let one = with_command(rest, one);
        if word_count(&one) >= 4 && !narration {
            let said = outcome::past_acknowledging_clause(&one);
            let said = lead::past_lead_in(said);
            // "X only supports React 17. Switch to Y.": what it found, and
            // what the person is to do about it.
            if let Some(both) = advice_after(said, rest) {
                return both;
            }
            // "The problem was … . I moved …": the session ended in the fix.
            if let Some(fix) = fix_after_cause(&one, rest) {
                return fix;
            }
            // "I looked at …, and since …, I added …": what was done.
            // "numpy was not installed; I installed it and …" names its
            // object only in the clause before: the sentence stays whole.
            if let Some(change) = outcome::change_after_looking(said).filter(|c| !refers_back(c)) {
                return change.to_string();
            }
            // "Fixed! The issue was that formatDate assumed UTC.": the
            // cause, with the word that says the work is done.
            if let Some(done) = completion.filter(|_| outcome::is_cause(said)) {
                return format!("{done}: {said}");
            }
            // "The build passes. But two tests are skipped.": the short
            // result the caveat limits goes with it.
            if let Some(both) = first
                .as_deref()
                .filter(|f| *f != said && lead::is_caveat(said))
                .and_then(|before| joined(before, said))
            {
                return both;
            }
            // "No." or "Short answer: yes." then why: the answer first.
            if let Some(both) = first
                .as_deref()
                .filter(|f| *f != said && lead::is_labelled_answer(f))
                .and_then(|answer| joined(answer, said))
            {
                return both;
            }
            return with_caveat(said, rest);
        }
        // A gist without the line's markup ("**Status:** ✅ Complete") is
        // not found as written: its line is passed whole.
        let Some(pos) = rest
            .find(one.trim_end_matches('…'))
            .map(|p| p + one.len())
            .or_else(|| {
                rest.trim_start()
                    .contains('\n')
                    .then(|| rest.find('\n'))
                    .flatten()
            })
        else {
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

/// "Before: unlimited login attempts.\nAfter: 5 attempts per minute …":
/// the line that tells the state after the work, when the answer opens
/// with the one before it.
fn state_after(answer: &str) -> Option<&str> {
    const BEFORE: &[&str] = &[
        "before",
        "antes",
        "avant",
        "vorher",
        "было",
        "之前",
        "修改前",
        "修正前",
        "변경 전",
    ];
    const AFTER: &[&str] = &[
        "after",
        "después",
        "depois",
        "après",
        "nachher",
        "стало",
        "之后",
        "修改后",
        "修正後",
        "변경 후",
    ];
    let labelled = |line: &str, labels: &[&str]| {
        let lower = unmarked(line).replace('*', "").to_lowercase();
        labels.iter().any(|l| {
            lower
                .strip_prefix(l)
                .is_some_and(|rest| rest.trim_start().starts_with([':', '：']))
        })
    };
    // Only an answer that opens so: a benchmark's "Before: 420 ms" further
    // down a report is a detail of its result.
    let mut lines = prose_lines(answer);
    lines.next().filter(|l| labelled(l, BEFORE))?;
    lines.find(|l| labelled(l, AFTER)).map(unmarked)
}

/// "⚠️ Heads up: the limiter is in-memory.\n\nI added a limit …": a
/// warning put first gives way to the change reported after it, and goes
/// with it when both fit.
fn past_warning(answer: &str) -> Option<String> {
    let (first, after) = answer.split_once("\n\n")?;
    if first.contains('\n') || !lead::is_warning(first) {
        return None;
    }
    let report = gist(after.trim_start());
    if !outcome::reports_a_change(&report) {
        return None;
    }
    let warning = gist(first.trim_start_matches(|c: char| !c.is_alphanumeric()));
    Some(joined(&report, &warning).unwrap_or(report))
}

/// "Replaced the deprecated calls:", a table, then "The payment tests
/// pass.": the line over the table with the short state after it.
fn over_a_table(answer: &str) -> Option<String> {
    let paras: Vec<&str> = answer.split("\n\n").map(str::trim).collect();
    let [head, table, after] = paras[..] else {
        return None;
    };
    let tabled = outcome::is_table(table);
    let closes = !after.contains('\n') && word_count(after) <= 12;
    let says = head.ends_with([':', '：']) && !head.contains('\n') && lead::says_something(head);
    (tabled && closes && says).then(|| lead::joined(head, &gist(after)))
}

/// A sentence that only says the work is done ("Fixed!", "Done.", "搞定！"),
/// not one that only complies ("OK.", "Sure!", "好的").
fn completes(sentence: &str) -> bool {
    use outcome::{is_acknowledgement, only_complies};
    is_acknowledgement(sentence)
        && !only_complies(sentence)
        && sentence.chars().any(char::is_alphanumeric)
}

/// Words a result and the caveat after it stay within to be told together.
const CAVEAT_WORDS: usize = 20;

/// The advice after `said`, on its line or the next, joined to it.
fn advice_after(said: &str, rest: &str) -> Option<String> {
    let mut lines = prose_lines(rest);
    let line = lines.next().unwrap_or_default();
    let next = match sentences(unmarked(line)).nth(1) {
        Some(next) => next,
        // Advice on the next line, or the first step of a list under it.
        None => first_sentence(unmarked(lines.next()?)),
    };
    advice::with_advice(said, &next.replace('`', ""))
}

/// "French is done. However, German is only half done.": a result and the
/// caveat right after it, told together when both are short.
fn with_caveat(said: &str, rest: &str) -> String {
    let line = prose_lines(rest).next().unwrap_or_default();
    let mut raw = sentences(unmarked(line)).skip(1);
    match raw.next().map(|next| gist(&next)) {
        Some(next) if lead::is_caveat(&next) => joined(said, &next),
        // "Reviewed src/billing: two issues." names them in the next one.
        Some(next) if lead::announces_a_count(said) => joined(said, &next),
        _ => None,
    }
    .unwrap_or_else(|| said.to_string())
}

/// A result and its caveat as one, when both fit in `CAVEAT_WORDS`: the
/// caveat whole, or its first clause ("The build still fails: 3 errors …
/// remain because …" says "The build still fails").
fn joined(result: &str, caveat: &str) -> Option<String> {
    let room = CAVEAT_WORDS.saturating_sub(word_count(result));
    let caveat = match word_count(caveat) <= room {
        true => caveat.to_string(),
        false => first_clause(caveat).filter(|c| word_count(c) <= room)?,
    };
    let space = if result.ends_with(['。', '！', '？']) {
        ""
    } else {
        " "
    };
    Some(format!("{result}{space}{caveat}"))
}

/// A sentence's first clause, up to its first colon, semicolon or dash, when
/// that leaves a clause of three words or more; with a full stop. Not up to
/// a comma: "But based on how it works, …" opens with half a clause.
fn first_clause(sentence: &str) -> Option<String> {
    let at = [": ", "; ", " — ", "：", "；"]
        .iter()
        .filter_map(|b| sentence.find(b))
        .min()?;
    let clause = sentence[..at].trim_end();
    let cjk = clause.chars().last().is_some_and(crate::sentence::is_cjk);
    (word_count(clause) >= 3).then(|| format!("{clause}{}", if cjk { "。" } else { "." }))
}

/// The change an answer reports in the two sentences after `cause` (the
/// sentence `rest` opens with), when `cause` names the cause of a problem.
fn fix_after_cause(cause: &str, rest: &str) -> Option<String> {
    use outcome::{is_cause, reports_a_change, states_a_fault, tells_the_state_now};
    // A state told as it was is a cause only when the change comes right
    // after it, as a fix, and not as more work ("I also …").
    let (told, within) = if is_cause(cause) {
        (is_cause as fn(&str) -> bool, 2)
    } else if states_a_fault(cause) {
        (states_a_fault as fn(&str) -> bool, 1)
    } else {
        return None;
    };
    let adds = |s: &str| {
        let lower = s.to_lowercase();
        crate::sentence::holds_phrase(&lower, ["also ", "too", "as well"])
    };
    let fix = prose_lines(rest)
        .flat_map(|line| sentences(unmarked(line)))
        .skip_while(|s| !told(s))
        .skip(1)
        .take(within)
        .find(|s| (reports_a_change(s) || tells_the_state_now(s)) && !adds(s));
    match fix {
        Some(fix) if !lead::introduces_changes(&fix) => {
            Some(gist(&fix)).filter(|fix| !refers_back(fix))
        }
        _ => changes_listed_after(rest),
    }
}

/// "… has no `ApplePaySession`.\n\nI made two changes:\n\n1. Guarded …":
/// the changes a line right after the fault introduces, as a list says them.
fn changes_listed_after(rest: &str) -> Option<String> {
    let head = rest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(2)
        .find(|l| lead::introduces_changes(l))?;
    let at = rest.find(head)? + head.len();
    short_list(rest[at..].trim_start())
}

/// A change that names nothing of its own ("I corrected it and added a
/// test.", "I fixed that.", "I wired it up."): the cause before it says
/// what changed.
fn refers_back(change: &str) -> bool {
    let lower = change.to_lowercase();
    let mut words = lower.split(|c: char| !c.is_alphanumeric() && c != '\'');
    let (i, _verb, object) = (words.next(), words.next(), words.next());
    let ends = words
        .next()
        .is_none_or(|w| ["and", "so", "too", "up", "back", "again", ""].contains(&w));
    i == Some("i") && object.is_some_and(|o| ["it", "this", "that", "them"].contains(&o)) && ends
}

/// "Restart it with:" before a fenced command goes on into the command's
/// line, and "Here's the function:" into the definition it shows: cut
/// before it, the sentence says nothing.
fn with_command(text: &str, line: String) -> String {
    if !line.ends_with([':', '：']) {
        return line;
    }
    let shown = after(text, &line).and_then(|t| {
        fenced_command(t)
            .map(str::to_string)
            .or_else(|| lead::fenced_definition(t))
    });
    match shown {
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
/// search"; its first item alone would name a third of it. Longer items
/// ("`Sidebar.tsx`: added a toggle …") are said apart, and a list too long
/// for all by as many as fit and how many more.
fn short_list(text: &str) -> Option<String> {
    const ITEM_WORDS: usize = 6;
    const LIST_WORDS: usize = 20;
    // A nested list ("1. **`Guidance.tsx`**\n   - animated skeleton …") is
    // said by its top-level items; the ones under them tell each apart.
    let block: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).collect();
    let indented = |l: &&str| l.starts_with([' ', '\t']);
    let nested = block.first().is_some_and(|l| !indented(l)) && block.iter().any(indented);
    let mut lines: Vec<&str> = block
        .into_iter()
        .filter(|l| !(nested && indented(l)))
        .map(str::trim)
        .collect();
    // "- 上午：写周报\n- 14:00：开会\n已保存到 schedule.md。": the list is
    // its items; a closing line of prose right under it is not one.
    let listed = lines.iter().take_while(|l| unmarked(l) != **l).count();
    if listed >= 2 && listed + 1 == lines.len() {
        lines.truncate(listed);
    }
    let items: Vec<&str> = lines.iter().map(|l| unmarked(l)).collect();
    let all_items = lines.len() >= 2 && lines.iter().zip(&items).all(|(l, i)| l != i);
    let whole = items
        .iter()
        .all(|i| !i.is_empty() && !i.ends_with([':', '：']));
    let short = items.iter().all(|i| word_count(i) <= ITEM_WORDS);
    let fits = |items: &[&str]| items.iter().map(|i| word_count(i)).sum::<usize>() <= LIST_WORDS;
    // "1. Install flyctl: `curl …`\n2. Deploy with `fly deploy`.": steps
    // too long together are said by what each does, before its colon.
    let labels: Vec<&str> = items.iter().map(|i| step_label(i)).collect();
    let items = match fits(&items) || !fits(&labels) {
        true => items,
        false => labels,
    };
    // Items that are sentences ("1. It fails because …") are kept apart.
    let sentences = !short || items.iter().any(|i| i.ends_with(['.', '。', '!', '！']));
    // Two that do not fit are said by the first sentence alone; seven by
    // as many whole as fit, and how many more there are.
    if !fits(&items) && items.len() < 3 {
        return None;
    }
    if !(all_items && whole) {
        return None;
    }
    // Marked up as the gist's own sentences are: no bold, no code ticks.
    let said: Vec<String> = items
        .iter()
        .map(|i| short_paths(i.trim_end_matches(['.', '。', ';', ','])).replace(['*', '`'], ""))
        .collect();
    let room = match fits(&items) {
        true => LIST_WORDS,
        false => LIST_WORDS - MORE_WORDS,
    };
    as_many_as_fit(&said, room, if sentences { "; " } else { ", " })
}

/// An answer that is only a table ("| parser | ops/s |\n|---|---|\n|
/// simdjson | 1.2M |"), said by its header and rows: "parser, ops/s:
/// simdjson 1.2M; JSON.parse 800k", as many rows as fit and how many more.
fn table_rows(answer: &str) -> Option<String> {
    const TABLE_WORDS: usize = 20;
    if !outcome::is_table(answer) {
        return None;
    }
    let cells = |row: &str| -> Vec<String> {
        row.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().replace(['*', '`'], ""))
            .collect()
    };
    let rule = |row: &&str| row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    let mut rows = answer
        .lines()
        .filter(|r| !rule(r))
        .map(|r| cells(r).join(" "));
    let header = answer.lines().next().map(cells)?.join(", ");
    rows.next();
    let rows: Vec<String> = rows.collect();
    let room = TABLE_WORDS.saturating_sub(word_count(&header) + MORE_WORDS);
    let said = as_many_as_fit(&rows, room, "; ")?;
    Some(format!("{header}: {said}"))
}

/// An answer that is a fenced block, maybe with a short note after it
/// ("```bash\nkubectl rollout restart deployment/api\n```", "```sql\nSELECT
/// …```\n\nIt needs the index on created_at."): said by the block's first
/// line that holds words (not a lone "{"), and the note.
fn code_alone(answer: &str) -> Option<String> {
    const NOTE_WORDS: usize = 12;
    let body = answer.strip_prefix("```")?;
    let (block, after) = body.split_once("\n```")?;
    let line = block
        .lines()
        .skip(1)
        .map(str::trim)
        .find(|l| l.chars().any(char::is_alphanumeric))?;
    let line = line.trim_end_matches(['{', '[', '(', ',', ' ']);
    let note = after.trim_start_matches('`').trim();
    match note {
        "" => Some(line.to_string()),
        note if !note.contains("```") && word_count(note) <= NOTE_WORDS => {
            Some(format!("{line} — {}", as_clause(&first_sentence(note))))
        }
        _ => None,
    }
}

/// A sentence as a clause after a dash: "Your changes stay staged." reads
/// "your changes stay staged."; "API keys …" and "OK" keep their capitals.
fn as_clause(sentence: &str) -> String {
    let mut chars = sentence.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_ascii_uppercase() && second.is_lowercase() => {
            format!("{}{}", first.to_ascii_lowercase(), &sentence[1..])
        }
        _ => sentence.to_string(),
    }
}

/// What a step says before its colon ("Install flyctl" of "Install
/// flyctl: `curl …`"), when that is words of its own; a file or one word
/// before a colon ("`Sidebar.tsx`: added …") labels what follows instead.
fn step_label(item: &str) -> &str {
    match item.split_once(": ") {
        Some((head, _)) if word_count(head) >= 2 && !head.contains(['`', '/', '*']) => head,
        _ => item,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{compose, tests::session};

    /// The opening of `text`, to find it in a sentence.
    fn head(text: &str) -> String {
        text.chars().take(10).collect()
    }

    /// The class: one sentence that tells what the agent looked at, then
    /// the change it made ("I looked at …, and since …, I added …", "I
    /// checked the logs and I bumped …", "I reviewed …; I moved …"): the
    /// change is the outcome. A sentence whose second part is no change
    /// ("… and I think it is fine") stays.
    #[test]
    fn a_change_told_after_what_the_agent_looked_at_is_the_outcome() {
        for (looked, change) in [
            (
                "I looked at how login requests flow through the gateway and the auth service, and since the gateway already tags each request with the client IP,",
                "I added a sliding-window limiter keyed on that IP.",
            ),
            (
                "I checked the pool metrics during the spike and",
                "I bumped the pool size to 30.",
            ),
            (
                "I reviewed the handler;",
                "I moved the validation before the database call.",
            ),
        ] {
            let answer = format!("{looked} {change}");
            let s = compose(&session("fix the login", &answer), None).unwrap();
            assert!(
                s.contains(&change[..20]) && !s.contains(&looked[..12]),
                "{answer:?}: {s}"
            );
        }
        let s = compose(
            &session(
                "fix the login",
                "I looked at the handler, and I think the validation is fine as it is.",
            ),
            None,
        )
        .unwrap();
        assert!(s.contains("I looked at the handler"), "{s}");
    }

    /// The class: a line that says what was done over a table, then a short
    /// line with the state after it ("Replaced the deprecated calls:" | table
    /// | "The payment tests pass."), in any language: both are the outcome.
    /// A closing paragraph too long to be a state line is left out.
    #[test]
    fn the_state_after_a_table_goes_with_the_line_over_it() {
        let table = "| File | Old | New |\n|---|---|---|\n| charge.ts | charges.create | paymentIntents.create |";
        for (over, after) in [
            ("Replaced the deprecated calls:", "The payment tests pass."),
            (
                "Migrated all four services:",
                "Everything builds on Node 22.",
            ),
            ("已替换废弃的调用：", "支付测试全部通过。"),
        ] {
            let answer = format!("{over}\n\n{table}\n\n{after}");
            let s = compose(&session("clean up the payments module", &answer), None).unwrap();
            let core = over.trim_end_matches([':', '：']);
            assert!(
                s.contains(core) && s.contains(&head(after).replace('。', "")),
                "{answer:?}: {s}"
            );
        }
        let long = "The payment tests pass, but the refund tests still need a Stripe key that this machine does not have.";
        let answer = format!("Replaced the deprecated calls:\n\n{table}\n\n{long}");
        let s = compose(&session("clean up the payments module", &answer), None).unwrap();
        assert!(
            s.contains("Replaced the deprecated calls") && !s.contains("refund"),
            "{s}"
        );
    }

    /// The class: an answer that tells the state before and after the work
    /// on labelled lines ("Before: …\nAfter: …", "修正前：…", "Antes: …"),
    /// in any language and list layout: the state after is the outcome.
    #[test]
    fn the_state_after_the_work_is_the_outcome_of_a_before_and_after() {
        for (before, after) in [
            ("Before", "After"),
            ("**Before**", "**After**"),
            ("Antes", "Después"),
            ("修正前", "修正後"),
            ("Vorher", "Nachher"),
        ] {
            for marker in ["", "- "] {
                let answer = format!(
                    "{marker}{before}: unlimited login attempts.\n{marker}{after}: 5 attempts per minute per IP, then 429."
                );
                let s = compose(&session("add rate limiting", &answer), None).unwrap();
                assert!(
                    s.contains("5 attempts per minute") && !s.contains("unlimited"),
                    "{answer:?}: {s}"
                );
            }
        }
        // Further down a report, a before and after is a detail of it.
        let report = "Search is faster: I added a trigram index.\nBefore: 420 ms\nAfter: 48 ms";
        let s = compose(&session("speed up search", report), None).unwrap();
        assert!(s.contains("Search is faster"), "{s}");
        // "after" alone, without a "before", is read as before.
        let s = compose(
            &session(
                "add rate limiting",
                "After some digging: the limiter lives in the gateway.",
            ),
            None,
        )
        .unwrap();
        assert!(s.contains("After some digging"), "{s}");
    }

    /// The class: a warning put first, in its own paragraph ("⚠️ Heads up:
    /// …", "Note: …", "注意：…"), then the change the agent reports: the
    /// change is the outcome. A warning followed by no change stays.
    #[test]
    fn a_warning_put_before_the_reported_change_gives_way_to_it() {
        let change = "I added a limit of 5 attempts per minute per IP to POST /login; after that it returns 429.";
        for warning in [
            "⚠️ Heads up: the limiter is in-memory.",
            "**Note:** the limiter is in-memory.",
            "Warning: the limiter resets on restart.",
            "注意：限流计数保存在内存中。",
        ] {
            let answer = format!("{warning}\n\n{change}");
            let s = compose(&session("add rate limiting", &answer), None).unwrap();
            assert!(
                s.contains("I added a limit of 5 attempts"),
                "{answer:?}: {s}"
            );
        }
        let alone = "⚠️ Heads up: the limiter is in-memory.\n\nIt resets when the pod restarts.";
        let s = compose(&session("add rate limiting", alone), None).unwrap();
        assert!(s.contains("Heads up"), "{s}");
    }

    /// The class: a short result, then a sentence that limits it ("However,
    /// German is only half done.", "不过…", "Pero …"), or says what is left
    /// without a word to open it ("German still has 200 missing strings.",
    /// "德语还没翻译。"), in any language: both are what came of the session,
    /// told together when they fit, the caveat by its first clause when
    /// whole it does not. A next sentence that adds no limit ("It still
    /// works.", "I added the missing import."), or a pair too long even so,
    /// leaves the result.
    #[test]
    fn a_caveat_right_after_the_result_is_told_with_it() {
        for (result, caveat) in [
            (
                "French is done (412 strings).",
                "However, German is only half done.",
            ),
            ("The build passes.", "But two tests are skipped on Windows."),
            ("法语翻译已完成。", "不过德语只完成了一半。"),
            (
                "La traducción al francés está lista.",
                "Pero falta el alemán.",
            ),
            (
                "Die Migration ist durch.",
                "Allerdings fehlen noch die Indizes.",
            ),
            (
                "French is done (412 strings).",
                "German still has 200 missing strings.",
            ),
            ("The API is migrated.", "The docs are not updated yet."),
            ("The importer works.", "Two edge cases are still failing."),
            ("法语翻译已完成。", "德语还没翻译。"),
            (
                "フランス語は完了しました。",
                "ドイツ語の翻訳はまだ終わっていません。",
            ),
            (
                "Le français est fait.",
                "L'allemand n'est pas encore traduit.",
            ),
            ("Die Migration ist durch.", "Die Indizes fehlen noch."),
            ("Миграция готова.", "Индексы ещё не созданы."),
        ] {
            let answer = format!("{result} {caveat}");
            let s = compose(&session("translate the app", &answer), None).unwrap();
            assert!(s.contains(&head(caveat)), "{answer:?}: {s}");
            assert!(s.contains(&head(result)), "{answer:?}: {s}");
        }
        // A caveat too long to tell whole is told by its first clause.
        for (result, caveat, clause) in [
            (
                "I fixed 9 of the 12 type errors.",
                "The build still fails: 3 errors in src/api.ts remain because the generated client types are out of date.",
                "The build still fails.",
            ),
            (
                "修复了 12 个类型错误中的 9 个。",
                "构建仍然失败：src/api.ts 里还有 3 个错误，因为生成的客户端类型已经过期，需要重新生成。",
                "构建仍然失败。",
            ),
            (
                "Les tests unitaires passent.",
                "Cependant, les tests e2e échouent encore sur Safari à cause du cookie SameSite que le proxy réécrit.",
                "",
            ),
        ] {
            let answer = format!("{result} {caveat}");
            let s = compose(&session("fix the types", &answer), None).unwrap();
            assert!(s.contains(&head(result)), "{answer:?}: {s}");
            if !clause.is_empty() {
                let clause = clause.trim_end_matches(['.', '。']);
                assert!(
                    s.contains(&format!("{clause}.")) || s.contains(&format!("{clause}。")),
                    "{answer:?}: {s}"
                );
            }
        }
        let result = "French is done (412 strings).";
        for after in [
            "German is next on the list for tomorrow.",
            "It still works on the old browsers.",
            "But based on how the loader works, German will probably load from the same bundle once translated.",
            "I also added the missing plural forms.",
            "However, the German translation is only half done because the checkout, account and order history screens were never extracted for translators.",
        ] {
            let answer = format!("{result} {after}");
            let s = compose(&session("translate the app", &answer), None).unwrap();
            assert!(!s.contains(&head(after)), "{answer:?}: {s}");
        }
    }

    /// The class: an answer names the cause of the problem, then the change
    /// that fixed it (in the same paragraph, one sentence later or two, or
    /// in the next paragraph), in any language, with "the problem was" or
    /// only a "so"/"because" ("所以", "porque", "weil"): the session ended
    /// in the fix, so the fix is what came of it. A cause with no change reported
    /// after it, as an answer to "why …?" has, stays the outcome, told with
    /// the word before it that says the work is done ("Fixed: …").
    #[test]
    fn a_cause_told_before_its_fix_gives_way_to_the_fix() {
        let told = [
            (
                "The problem was that the discount was applied after tax.",
                "I moved the discount step ahead of applyTax() in src/cart.ts.",
            ),
            (
                "It turns out two tests share one temp directory.",
                "I gave each test its own tmp_path, and CI passes.",
            ),
            (
                "I see the issue — the toggle never writes the data-theme attribute.",
                "I've added it in src/theme.js.",
            ),
            (
                "The root cause is an LRU cache with no max size.",
                "Fix: set maxsize=1024 in worker/cache.py.",
            ),
            (
                "问题在于折扣是在计税之后才应用的。",
                "我把折扣步骤移到了 applyTax() 之前。",
            ),
            (
                "El problema era que SMTP_HOST no se leía del entorno.",
                "Ahora se carga con dotenv en api/contact.js.",
            ),
            (
                "Le problème venait du cache du navigateur.",
                "J'ai ajouté un en-tête Cache-Control à la réponse.",
            ),
            (
                "Das Problem war ein fehlender Index auf orders.user_id.",
                "Ich habe den Index in der Migration 0042 angelegt.",
            ),
            (
                "原因は環境変数の読み込み順でした。",
                "dotenv を最初に読み込むように修正しました。",
            ),
            (
                "Проблема была в том, что кэш не сбрасывался.",
                "Я добавил сброс кэша после записи.",
            ),
            // Told without "the problem was".
            (
                "The discount was applied after tax, so the total came out too high.",
                "I moved the discount step ahead of applyTax() in src/cart.ts.",
            ),
            (
                "It failed because the two tests shared one temp directory.",
                "I gave each test its own tmp_path.",
            ),
            (
                "折扣是在计税之后才应用的，所以总价偏高。",
                "我把折扣步骤移到了 applyTax() 之前。",
            ),
            (
                "SMTP_HOST no se leía porque faltaba dotenv.",
                "Ahora se carga con dotenv en api/contact.js.",
            ),
            (
                "Der Test schlug fehl, weil der Index fehlte.",
                "Ich habe den Index in der Migration 0042 angelegt.",
            ),
            // Told in the present, naming what goes wrong.
            (
                "The CDN returns 403 because the bucket policy only allows the old domain.",
                "I added shop.example.com to the allowed referrers in infra/cdn.tf.",
            ),
            (
                "The worker hangs because the Redis client never reconnects.",
                "I've enabled reconnect with backoff in worker/redis.ts.",
            ),
        ];
        let aside = "This only showed up with a discount code.";
        for (cause, fix) in told {
            for answer in [
                format!("{cause} {fix}"),
                format!("{cause} {aside} {fix}"),
                format!("{cause}\n\n{fix}"),
                format!("**{cause}**\n\n{fix}"),
            ] {
                let s = compose(&session("fix the bug", &answer), Some("/w/shop")).unwrap();
                assert!(s.contains(&head(fix)), "{answer:?}: {s}");
                assert!(!s.contains(&head(cause)), "{answer:?}: {s}");
            }
        }
        let (cause, _) = told[0];
        for after in [
            "Setting the discount first in src/cart.ts would fix it.",
            "I checked the logs. I looked at the tax table.",
            "",
        ] {
            let answer = format!("{cause} {after}");
            let s = compose(&session("why is the total wrong?", &answer), None).unwrap();
            assert!(s.contains(&head(cause)), "{answer:?}: {s}");
        }
        // "Fixed!" before a cause with no change after it: both.
        for done in ["Fixed!", "Done.", "All done!", "搞定！"] {
            let answer = format!("{done} {cause}");
            let s = compose(&session("fix the bug", &answer), None).unwrap();
            let word = done.trim_end_matches(['!', '.', '！']);
            assert!(
                s.contains(&format!("{word}: {}", head(cause))),
                "{answer:?}: {s}"
            );
        }
        let s = compose(&session("fix the bug", &format!("OK. {cause}")), None).unwrap();
        assert!(!s.contains("OK:") && s.contains(&head(cause)), "{s}");
        // A result or a change told with its reason is not a cause.
        for result in [
            "The tests pass now because the fixture was reset.",
            "Removed the cache because it was stale.",
            "Added caching, so the pages load in 80 ms.",
            "The page loads fast because the images are cached.",
        ] {
            let answer = format!("{result} I updated the README as well.");
            let s = compose(&session("fix the tests", &answer), None).unwrap();
            assert!(s.contains(&head(result)), "{answer:?}: {s}");
        }
    }

    /// The class: an answer that is only a fenced block (a command, a
    /// query, a config), maybe with a short note after it, in any fence
    /// language: the outcome is the block's first line with words, and the
    /// note, never the fences.
    #[test]
    fn an_answer_that_is_only_code_is_said_by_its_first_line() {
        for (answer, want) in [
            (
                "```bash\nkubectl rollout restart deployment/api -n prod\n```",
                "kubectl rollout restart deployment/api -n prod",
            ),
            (
                "```sql\nSELECT id, email FROM users\nWHERE created_at > now() - interval '7 days';\n```",
                "SELECT id, email FROM users",
            ),
            (
                "```json\n{\n  \"extends\": [\"eslint:recommended\"]\n}\n```",
                "\"extends\": [\"eslint:recommended\"]",
            ),
            (
                "```\ngit reset --soft HEAD~1\n```\n\nYour changes stay staged.",
                "git reset --soft HEAD~1 — your changes stay staged.",
            ),
        ] {
            let s = compose(&session("how do I do it", answer), None).unwrap();
            assert!(s.contains(&format!("outcome: {want}")), "{answer:?}: {s}");
            assert!(!s.contains("```"), "{s}");
        }
    }

    /// The class: a fault (after a short exclamation or not), then a line
    /// that only introduces the changes listed under it ("I made two
    /// changes:", "Here's what I changed:"), the list tight or loose: the
    /// changes are the outcome, not the fault or the line.
    #[test]
    fn a_fault_then_the_changes_listed_under_a_line_gives_way_to_the_changes() {
        let fault = "Safari without Apple Pay set up has no `ApplePaySession`.";
        let changes = [
            "Guarded the call with an optional check",
            "Hid the Apple Pay button when it is unavailable",
        ];
        for opener in ["", "Great catch! ", "Good find! "] {
            for intro in ["I made two changes:", "Here's what I changed:"] {
                for gap in ["\n", "\n\n"] {
                    let list: Vec<String> = changes
                        .iter()
                        .enumerate()
                        .map(|(n, c)| format!("{}. {c}.", n + 1))
                        .collect();
                    let answer = format!("{opener}{fault}\n\n{intro}\n\n{}", list.join(gap));
                    let s =
                        compose(&session("the checkout crashes on safari", &answer), None).unwrap();
                    assert!(
                        s.contains(&format!("outcome: {}", changes.join("; "))),
                        "{answer:?}: {s}"
                    );
                }
            }
        }
    }

    /// The class: a lack that still holds in the data or setup, told in the
    /// present ("`config.json` has no `user_id` key."), in any language, and
    /// the change that works around it right after: the change is the
    /// result. A present state that is a result ("The page has no errors
    /// now.") stays.
    #[test]
    fn a_lack_told_in_the_present_gives_way_to_the_change_around_it() {
        let fix = "I changed main() to read it with cfg.get and print a clear message.";
        for lack in [
            "`config.json` has no `user_id` key.",
            "The users table is missing an index on email.",
            "The env file lacks DATABASE_URL.",
            "`window.ethereum` is undefined in Firefox.",
            "El archivo config.json no tiene la clave user_id.",
            "Le fichier config.json n'a pas de clé user_id.",
            "In config.json fehlt der Schlüssel user_id.",
            "O arquivo config.json não tem a chave user_id.",
            "В config.json нет ключа user_id.",
        ] {
            for answer in [format!("{lack} {fix}"), format!("{lack}\n\n{fix}")] {
                let s = compose(&session("fix the KeyError", &answer), None).unwrap();
                assert!(s.contains(&head(fix)), "{answer:?}: {s}");
            }
        }
        let now = "The page has no errors now. I also removed a stray console.log.";
        let s = compose(&session("fix the page", now), None).unwrap();
        assert!(s.contains("outcome: The page has no errors now"), "{s}");
    }

    /// The class: how something stood, told as it was without calling it
    /// the problem ("`products` was undefined on the first render."), and
    /// right after it the change the agent made: the change is the result.
    /// A result, a change told in the passive, more work ("I also …") and a
    /// change that names nothing ("I corrected it.") leave the first
    /// sentence as it was.
    #[test]
    fn a_state_told_as_it_was_gives_way_to_the_fix_right_after_it() {
        let told = [
            (
                "`products` was undefined on the first render, before the fetch resolved.",
                "I defaulted it to an empty array in ProductList.tsx.",
            ),
            (
                "The footer had `position: fixed` without padding below it.",
                "I added padding-bottom: 64px to the main container.",
            ),
            (
                "The worker's Redis connection had no keepalive.",
                "I enabled TCP keepalive and a 30 s health check.",
            ),
            (
                "El test usaba la zona horaria local.",
                "Ahora la configuración de los tests fija UTC.",
            ),
            (
                "Le pied de page avait une position fixe sans marge.",
                "J'ai ajouté une marge de 64px sous 640px.",
            ),
            (
                "Die Funktion verwendete die lokale Zeitzone.",
                "Ich habe sie in der Testkonfiguration auf UTC festgelegt.",
            ),
            (
                "O teste usava o fuso horário local.",
                "Agora a configuração dos testes fixa UTC.",
            ),
            (
                "Тест был привязан к локальному часовому поясу.",
                "Я закрепил UTC в настройке тестов.",
            ),
            ("products 在首次渲染时为空。", "我把它的默认值设为空数组。"),
            (
                "Do môi trường ảo chưa cài thư viện requests.",
                "Mình đã chạy pip install requests và thêm nó vào requirements.txt.",
            ),
            (
                "products は最初の描画で undefined でした。",
                "空の配列を既定値にするように修正しました。",
            ),
        ];
        for (state, fix) in told {
            for answer in [format!("{state} {fix}"), format!("{state}\n\n{fix}")] {
                let s = compose(&session("fix the bug", &answer), None).unwrap();
                assert!(s.contains(&head(fix)), "{answer:?}: {s}");
                assert!(!s.contains(&head(state)), "{answer:?}: {s}");
            }
        }
        // A fault told with any verb in the past, then how things stand now.
        for (state, now) in [
            (
                "The save handler silently rejected bios over 500 characters.",
                "It now shows an error under the field.",
            ),
            (
                "The search index ignored accented names.",
                "Searching for Jose now finds José.",
            ),
        ] {
            let answer = format!("{state} {now}");
            let s = compose(&session("fix the bug", &answer), None).unwrap();
            assert!(s.contains(&head(now)), "{answer:?}: {s}");
        }
        // In one sentence, after a semicolon.
        let answer = "The test used the local time zone; I pinned it to UTC in the setup.";
        let s = compose(&session("fix the flaky test", answer), None).unwrap();
        assert!(s.contains("outcome: I pinned it to UTC"), "{s}");
        // A fix that names what it changed only as "it" keeps the fault
        // that names it.
        for answer in [
            "numpy was not installed in the venv; I installed it and added it to requirements.txt.",
            "The retry flag was never read, and I wired it up.",
        ] {
            let s = compose(&session("fix the error", answer), None).unwrap();
            let opening: String = answer.chars().take(16).collect();
            assert!(s.contains(&format!("outcome: {opening}")), "{s}");
        }
        for (first, then) in [
            (
                "The tests passed on the first run.",
                "I updated the README.",
            ),
            ("The route was added in src/api.ts.", "I updated the docs."),
            ("Added a route in src/api.ts.", "I updated the docs."),
            (
                "The page loaded in 80 ms.",
                "For now, I left the cache off.",
            ),
            ("The VAT table had Austria at 19 %.", "I corrected it."),
            (
                "The footer had no padding.",
                "I also renamed the CSS class.",
            ),
            ("I checked the footer styles.", "I added a padding rule."),
        ] {
            let answer = format!("{first} {then}");
            let s = compose(&session("fix the footer", &answer), None).unwrap();
            assert!(s.contains(&head(first)), "{answer:?}: {s}");
        }
    }

    /// The class: steps too long to say together ("1. Install flyctl:
    /// `curl …`"), in any list style and language, are said by what each
    /// does before its colon; a file or one word before a colon is a label
    /// of what follows, and a list that fits whole is said whole.
    #[test]
    fn steps_too_long_together_are_said_by_what_each_does() {
        let steps = [
            [
                "Install flyctl: `curl -L https://fly.io/install.sh | sh`",
                "Run fly launch in the project root: `fly launch --no-deploy`",
                "Set the secrets: `fly secrets set DATABASE_URL=postgres://db`",
                "Deploy the app: `fly deploy --remote-only`",
            ],
            [
                "Instala flyctl: `curl -L https://fly.io/install.sh | sh`",
                "Ejecuta fly launch en la raíz: `fly launch --no-deploy`",
                "Configura los secretos: `fly secrets set DATABASE_URL=postgres://db`",
                "Despliega la app: `fly deploy --remote-only`",
            ],
        ];
        for [a, b, c, d] in steps {
            for marker in ["1. ", "- "] {
                let answer = [a, b, c, d].map(|i| format!("{marker}{i}")).join("\n");
                let s = compose(&session("how do I deploy this?", &answer), None).unwrap();
                for step in [a, b, c, d] {
                    let label = step.split_once(": ").map(|(l, _)| l).unwrap_or(step);
                    assert!(s.contains(label), "{answer:?}: {s}");
                }
                assert!(!s.contains("curl"), "{answer:?}: {s}");
            }
        }
        let files = "- `Sidebar.tsx`: added a collapse toggle with a chevron icon\n- `Sidebar.css`: animated the width change over 200 ms";
        let s = compose(&session("make the sidebar collapsible", files), None).unwrap();
        assert!(s.contains("added a collapse toggle"), "{s}");
        let whole = "1. Install flyctl: `brew install flyctl`\n2. Deploy: `fly deploy`";
        let s = compose(&session("how do I deploy this?", whole), None).unwrap();
        assert!(s.contains("brew install flyctl"), "{s}");
    }

    /// The class: a paragraph that only says the work is finished, in any
    /// language and with or without an acknowledgement before it ("Done.",
    /// "完了しました。", "好的，我已经完成了。"), then the report: the
    /// report is the outcome. A completion that is all the answer says stays.
    #[test]
    fn a_completion_alone_on_its_paragraph_gives_way_to_the_report_after_it() {
        let report = "Added a show-password toggle to src/Login.tsx.";
        for done in [
            "Done.",
            "All done!",
            "完了しました。",
            "好的，我已经完成了。",
            "완료했습니다!",
            "Готово.",
            "Listo.",
        ] {
            for answer in [
                format!("{done}\n\n{report}"),
                format!("{done}\n\n## Changes\n\n{report}"),
            ] {
                let s = compose(&session("add a show-password toggle", &answer), None).unwrap();
                assert!(
                    s.contains("outcome: Added a show-password toggle"),
                    "{answer:?}: {s}"
                );
            }
            let s = compose(&session("add a show-password toggle", done), None).unwrap();
            let word: String = done.chars().take(2).collect();
            assert!(s.contains(&format!("outcome: {word}")), "{done:?}: {s}");
        }
    }

    /// The class: a sentence that ends by counting what it found ("two
    /// issues", "3 problems", "两个问题", "2つの問題"), in any language, then
    /// the sentence that names them: both are the outcome. A count that
    /// ends nothing ("Fixed two issues in the parser.") stays alone.
    #[test]
    fn a_count_of_findings_goes_on_into_the_sentence_that_names_them() {
        let named = "chargeCard() retries without an idempotency key.";
        for counted in [
            "Reviewed src/billing: two issues.",
            "I found 3 problems.",
            "There are several concerns.",
            "Revisé src/billing: dos problemas.",
            "J'ai trouvé deux problèmes.",
            "Es gibt zwei Probleme.",
            "Encontrei dois problemas.",
            "Нашёл две проблемы.",
            "发现了两个问题：",
            "2つの問題があります：",
        ] {
            let answer = format!("{counted} {named}");
            let s = compose(&session("review src/billing", &answer), None).unwrap();
            assert!(s.contains("chargeCard() retries"), "{answer:?}: {s}");
        }
        let fixed = "Fixed two issues in the parser. The README also mentions it now.";
        let s = compose(&session("fix the parser", fixed), None).unwrap();
        assert!(!s.contains("README"), "{s}");
    }

    /// The class: a line that only says the work is done ("I've completed
    /// all the tasks:", "All done:", "全部完成了：") over the list of what
    /// was done, in any language: the list is the outcome.
    #[test]
    fn a_completion_over_the_list_of_what_was_done_gives_way_to_it() {
        let items = [
            "Added a spinner",
            "Disabled the button while saving",
            "Showed a toast",
        ];
        for done in [
            "I've completed all the tasks:",
            "All done:",
            "Everything is complete:",
            "¡Listo!:",
            "Terminé:",
            "C'est fait :",
            "Erledigt:",
            "Готово:",
            "全部完成了：",
            "完了しました：",
        ] {
            let list: Vec<String> = items.iter().map(|i| format!("- {i}")).collect();
            let answer = format!("{done}\n\n{}", list.join("\n"));
            let s = compose(&session("add a spinner, disable, toast", &answer), None).unwrap();
            assert!(
                s.contains(&format!("outcome: {}", items.join(", "))),
                "{answer:?}: {s}"
            );
        }
    }

    /// The class: a line that only counts the changes listed under it ("I
    /// made three changes:", "做了三处修改：", "3つの変更を加えました："), in
    /// any language and list style, tight or loose: the outcome is the
    /// changes themselves, all three. A line that says what the changes
    /// did ("Fixed the login loop:") is kept over them.
    #[test]
    fn a_count_of_changes_gives_way_to_the_changes() {
        let items = [
            "Moved the API key to .env",
            "Added dotenv loading in index.ts",
            "Updated the README with setup steps",
        ];
        for counted in [
            "I made three changes:",
            "Made 3 small changes:",
            "Hice tres cambios:",
            "J'ai fait trois modifications :",
            "Ich habe drei Änderungen vorgenommen:",
            "Fiz três alterações:",
            "Внёс три изменения:",
            "我做了三处修改：",
            "3つの変更を加えました：",
        ] {
            for (marker, gap) in [("- ", "\n"), ("1. ", "\n\n"), ("* ", "\n\n")] {
                let list: Vec<String> = items.iter().map(|i| format!("{marker}{i}.")).collect();
                let answer = format!("{counted}\n\n{}", list.join(gap));
                let s =
                    compose(&session("move the api key out of the code", &answer), None).unwrap();
                let want = format!("outcome: {}.", items.join("; "));
                assert!(s.contains(&want), "{answer:?}: {s}");
            }
        }
        let said =
            "Fixed the login loop:\n- the token is refreshed before expiry\n- a 401 retries once";
        let s = compose(&session("fix the login loop", said), None).unwrap();
        assert!(s.contains("outcome: Fixed the login loop: "), "{s}");
    }

    /// The class: an answer that is only a table, under a title or not,
    /// with any number of columns and rows: said by its header and as many
    /// rows as fit, and how many more, never by its pipes and rules.
    #[test]
    fn an_answer_that_is_only_a_table_is_said_by_its_rows() {
        let small = "| parser | ops/s |\n|---|---|\n| simdjson | 1.2M |\n| **JSON.parse** | 800k |";
        let wide = "| file | before | after |\n|:--|--:|--:|\n| `a.ts` | 120 ms | 40 ms |\n| `b.ts` | 90 ms | 30 ms |";
        let long: String = std::iter::once("| city | temp |\n|---|---|\n".to_string())
            .chain((1..=12).map(|n| format!("| city{n} | {n} C |\n")))
            .collect();
        for (table, want) in [
            (small, "parser, ops/s: simdjson 1.2M; JSON.parse 800k"),
            (
                wide,
                "file, before, after: a.ts 120 ms 40 ms; b.ts 90 ms 30 ms",
            ),
            (
                long.as_str(),
                "city, temp: city1 1 C; city2 2 C; city3 3 C; city4 4 C; city5 5 C; and 7 more",
            ),
        ] {
            for answer in [table.to_string(), format!("## Results\n\n{table}")] {
                let s = compose(&session("benchmark it", &answer), None).unwrap();
                assert!(s.contains(&format!("outcome: {want}")), "{answer:?}: {s}");
                assert!(!s.contains('|'), "{s}");
            }
        }
    }

    /// The class: an answer given first in three words at most, as a yes,
    /// a no or labelled as the short answer, in any language, then its
    /// reason on the line or in the paragraph after: both are the outcome.
    /// A status label over the report ("**Status:** ✅ Complete") gives way
    /// to it as a bare completion does.
    #[test]
    fn a_short_answer_first_goes_with_its_reason() {
        let reason = "The migrations were squashed into 0001_initial.sql in March.";
        for answer in [
            "Short answer: yes.",
            "Yes.",
            "No.",
            "TL;DR: no.",
            "Sí.",
            "Нет.",
            "はい。",
        ] {
            for gap in [" ", "\n\n"] {
                let text = format!("{answer}{gap}{reason}");
                let s = compose(&session("is it safe to delete it?", &text), None).unwrap();
                let word = answer.trim_end_matches(['.', '。']);
                assert!(s.contains(&format!("outcome: {word}")), "{text:?}: {s}");
                assert!(s.contains("squashed"), "{text:?}: {s}");
            }
        }
        let report = "Replaced moment with date-fns in 12 files.";
        for status in [
            "**Status:** ✅ Complete",
            "Status: Done",
            "**状态：** 已完成",
            "Estado: listo",
        ] {
            for gap in ["\n", "\n\n"] {
                let text = format!("{status}{gap}{report}");
                let s = compose(&session("migrate to date-fns", &text), None).unwrap();
                assert!(s.contains("outcome: Replaced moment"), "{text:?}: {s}");
            }
        }
        let exclaims = "Great! Replaced moment with date-fns in 12 files.";
        let s = compose(&session("migrate to date-fns", exclaims), None).unwrap();
        assert!(!s.contains("Great"), "{s}");
    }

    /// The class: a completion that names only the plan's own parts ("All
    /// implementation phases are complete.", "All steps are done."), then a
    /// line that introduces a list of what was made: the list is the
    /// outcome, said by its top-level items when it nests.
    #[test]
    fn a_generic_completion_over_a_list_gives_way_to_the_list() {
        for done in [
            "All implementation phases are complete.",
            "All steps are done.",
            "Every planned item is complete.",
        ] {
            for intro in ["Here's a summary of what was created:", "Changes:"] {
                let answer = format!(
                    "{done} {intro}\n\n- **`src/Guidance.tsx`**\n  - animated skeleton overlay\n- **`src/api/level.ts`**\n  - level detection route\n- **`src/Loader.tsx`**\n  - loading animation"
                );
                let s = compose(&session("finish the plan", &answer), None).unwrap();
                assert!(
                    s.contains("outcome: src/Guidance.tsx, src/api/level.ts, src/Loader.tsx"),
                    "{answer:?}: {s}"
                );
            }
        }
        let named = "All tests in src/parser pass now.\n\n- fixed the tokenizer";
        let s = compose(&session("fix the parser", named), None).unwrap();
        assert!(
            s.contains("outcome: All tests in src/parser pass now"),
            "{s}"
        );
    }
}
