//! A cause told before its fix: "The problem was that the discount was
//! applied after tax. I moved the discount step ahead of `applyTax()`." The
//! session ended in the fix, so the fix is what came of it; the cause alone
//! stays the result when no change is reported after it (an answer to "why
//! does …?").
//!
//! Owns: telling a sentence that names a cause and one that reports a
//! change, in the languages sessions are held in. Must not: choose the
//! answer or clip the sentence.

use super::lead::{folded, opens_with};

/// How a sentence that names the cause of a problem opens.
const CAUSES: &[&str] = &[
    "the problem was",
    "the problem is",
    "the problem:",
    "the issue was",
    "the issue is",
    "the bug was",
    "the bug is",
    "the cause was",
    "the cause is",
    "the root cause",
    "root cause",
    "the reason was",
    "the reason is",
    "the culprit",
    "it turns out",
    "turns out",
    "i see the issue",
    "i see the problem",
    "i found the issue",
    "i found the problem",
    "i found the bug",
    "found the bug",
    "found the issue",
    "this happens because",
    "this happened because",
    "this was caused by",
    "the error comes from",
    "the error came from",
    "问题在于",
    "问题出在",
    "原因是",
    "原因在于",
    "根本原因",
    "根因",
    "原来是",
    "問題在於",
    "問題出在",
    "原因在於",
    "原因は",
    "問題は",
    "원인은",
    "문제는",
    "el problema era",
    "el problema es",
    "el problema estaba",
    "el error era",
    "el error estaba",
    "la causa",
    "le problème était",
    "le problème venait",
    "le problème vient",
    "le problème est",
    "la cause",
    "das problem war",
    "das problem ist",
    "der fehler war",
    "der fehler lag",
    "die ursache",
    "o problema era",
    "o problema é",
    "o problema estava",
    "a causa",
    "il problema era",
    "il problema è",
    "проблема была",
    "проблема в том",
    "причина в том",
    "причина была",
    "vấn đề là",
    "nguyên nhân là",
    "het probleem was",
    "de oorzaak",
];

/// How a sentence that reports a change the agent made opens, past "I …"
/// with a verb in the past (which `reports_a_change` reads itself).
const CHANGES: &[&str] = &[
    "i've ",
    "i have ",
    "so i ",
    "fixed",
    "fix:",
    "the fix:",
    "to fix",
    "我把",
    "我已",
    "已将",
    "已把",
    "已修复",
    "已經",
    "ahora ",
    "he ",
    "lo corregí",
    "cambié",
    "moví",
    "añadí",
    "corregí",
    "j'ai ",
    "désormais",
    "ich habe ",
    "jetzt ",
    "agora ",
    "mudei",
    "movi",
    "adicionei",
    "corrigi",
    "ho ",
    "я ",
    "теперь ",
    "исправил",
    "tôi đã ",
    "mình đã ",
    "em đã ",
    "đã sửa",
    "ik heb ",
];

/// Past forms of the verbs a fix is told with that do not end in "-ed".
const IRREGULAR: &[&str] = &[
    "made", "set", "put", "gave", "wrote", "rewrote", "took", "split", "kept", "cut", "built",
    "swapped", "got", "switched", "dropped", "bumped", "wrapped",
];

/// Verbs in "-ed" that tell what the agent looked at, not what it changed.
const LOOKED: &[&str] = &[
    "noticed",
    "checked",
    "looked",
    "searched",
    "tried",
    "verified",
    "confirmed",
    "tested",
    "reviewed",
    "examined",
    "inspected",
    "analyzed",
    "analysed",
    "traced",
    "reproduced",
    "needed",
    "wanted",
    "assumed",
    "opened",
];

/// Whether a sentence names the cause of a problem ("The problem was …",
/// "It turns out …", "问题在于…", "El problema era …").
pub(crate) fn is_cause(sentence: &str) -> bool {
    opens_with(sentence, CAUSES) || tells_a_cause(sentence)
}

/// A sentence that tells what went wrong and what it led to without saying
/// "the problem was": "The discount was applied after tax, so the total came
/// out too high.", "It failed because the fixture was shared.", "The CDN
/// returns 403 because …", "折扣在税后计算，所以总价偏高。". In English a
/// cause is told in the past, or in the present naming what goes wrong.
/// Not a result told with its reason ("The tests pass now because …", "The
/// page loads fast because the images are cached."), nor a change told with
/// its reason ("Removed the cache because it was stale.").
fn tells_a_cause(sentence: &str) -> bool {
    static ENGLISH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let was = r"(?:was|were|had|did|didn't|wasn't|weren't|hadn't|never)";
        let past = format!(r"(?:{was}|\w+ed)");
        // After "because", only a past the person cannot read as a state
        // ("because the images are cached" is one). Told in the present, a
        // cause names what goes wrong: "The CDN returns 403 because …".
        let failing = r"(?:fails?|failing|errors?|crash(?:es)?|breaks?|broken|wrong|returns? [45]\d\d|doesn't|don't|can't|cannot|hangs?|loops?|times? out)";
        regex::Regex::new(&format!(
            r"\b{past}\b.*(?:,\s*so\b|\bbecause\b|\bwhich (?:is why|caused|made|meant)\b|\bcausing\b)|\bbecause\b.*\b{was}\b|\b{failing}\b.*\bbecause\b"
        ))
        .expect("pattern compiles")
    });
    const CONNECTIVES: &[&str] = &[
        "所以",
        "因此",
        "导致",
        "導致",
        "因为",
        "因為",
        "ので",
        "ため",
        "때문에",
        "porque",
        "por lo que",
        "así que",
        "parce que",
        "donc",
        "weil",
        "deshalb",
        "daher",
        "потому что",
        "поэтому",
        "из-за",
        "então",
        "nên",
    ];
    let lower = folded(sentence);
    // "Removed the cache because it was stale." reports what was done.
    let opening = lower.split_whitespace().next().unwrap_or_default();
    if reports_a_change(sentence) || opening.ends_with("ed") || IRREGULAR.contains(&opening) {
        return false;
    }
    // "… pass now because …" tells the state the work left.
    const NOW: &[&str] = &["now", "ahora", "maintenant", "jetzt", "agora", "теперь"];
    const NOW_CJK: &[&str] = &["现在", "現在", "今は", "지금"];
    let words = || lower.split(|c: char| !c.is_alphanumeric());
    if words().any(|w| NOW.contains(&w)) || NOW_CJK.iter().any(|n| lower.contains(n)) {
        return false;
    }
    ENGLISH.is_match(&lower) || CONNECTIVES.iter().any(|c| lower.contains(c))
}

/// Whether a sentence tells how something stood before the agent changed
/// it, without naming it a problem: "`products` was undefined on the first
/// render.", "The footer had `position: fixed`.", "El test usaba la zona
/// horaria local.", "products 在首次渲染时为空。". Told in the past, of
/// something other than the agent and the person, and not a result ("The
/// tests passed.") nor a change told in the passive ("The route was added.").
/// A lack told in the present ("`config.json` has no `user_id` key.") is one
/// too: the agent's change works around it.
pub(crate) fn states_a_fault(sentence: &str) -> bool {
    static PAST_STATE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b(?:\w{3,}ed|was|were|had|used|wasn't|weren't|didn't|hadn't|never|lacked|missed|era|estaba|tenía|usaba|faltaba|était|avait|utilisait|manquait|war|hatte|fehlte|verwendete|nutzte|estava|tinha|usava|faltava|был|была|было|были|не было)\b",
        )
        .expect("pattern compiles")
    });
    const FAULT_CJK: &[&str] = &[
        "chưa ",
        "không có ",
        "没有",
        "沒有",
        "缺少",
        "为空",
        "為空",
        "错误",
        "錯誤",
        "なかった",
        "でした",
        "없었",
        "않았",
    ];
    // A lack that still holds where the agent worked around it:
    // "`config.json` has no `user_id` key.", "La tabla no tiene índice."
    static PRESENT_FAULT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b(?:has no|have no|is missing|are missing|lacks|doesn't exist|does not exist|isn't defined|is not defined|is undefined|are undefined|is null|no tiene|no existe|falta|n'a pas|n'existe pas|manque|hat kein|hat keine|fehlt|existiert nicht|não tem|não existe|нет|отсутствует)\b",
        )
        .expect("pattern compiles")
    });
    // Whole words: "the fetch resolved" and "`position: fixed`" are states.
    const RESULT: &[&str] = &[
        "pass",
        "passes",
        "passed",
        "passing",
        "works",
        "worked",
        "working",
        "succeeded",
        "succeeds",
        "successful",
        "successfully",
        "done",
        "green",
        "complete",
        "completed",
        "ready",
        "now",
        "clean",
    ];
    // "was added", "were removed": a change told without its doer.
    const CHANGED: &[&str] = &[
        "was added",
        "were added",
        "was updated",
        "were updated",
        "was removed",
        "were removed",
        "was changed",
        "were changed",
        "was created",
        "were created",
        "was moved",
        "were moved",
        "was renamed",
        "were renamed",
        "was replaced",
        "were replaced",
        "was fixed",
        "were fixed",
        "was resolved",
        "were resolved",
    ];
    let lower = folded(sentence);
    let subject = lower.split_whitespace().next().unwrap_or_default();
    // "Added a route.", "Asked which to take: …": told by the agent.
    let agent_told = subject.ends_with("ed") || IRREGULAR.contains(&subject);
    let told_of_someone =
        agent_told || ["i", "i'm", "i've", "we", "we've", "you", "let", "let's"].contains(&subject);
    let past = PAST_STATE.is_match(&lower)
        || PRESENT_FAULT.is_match(&lower)
        || FAULT_CJK.iter().any(|f| lower.contains(f));
    past && !told_of_someone
        && !reports_a_change(sentence)
        && !lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| RESULT.contains(&w))
        && !crate::sentence::holds_phrase(&lower, CHANGED.iter().copied())
}

/// The change a sentence reports after telling what the agent looked at or
/// how something stood: "I looked at how login requests flow through the
/// gateway, and since it tags each request with the client IP, I added a
/// limiter keyed on it." says "I added a limiter keyed on it.", and "The
/// test used the local time zone; I pinned it to UTC." says "I pinned it
/// to UTC.".
pub(crate) fn change_after_looking(sentence: &str) -> Option<&str> {
    let lower = folded(sentence);
    let looked = verb_after_i(&lower)
        .is_some_and(|verb| LOOKED.contains(&verb) || verb == "read" || verb == "went");
    if !looked && !states_a_fault(sentence.split([';', ',']).next().unwrap_or_default()) {
        return None;
    }
    [", I ", ", and I ", " and I ", "; I "]
        .iter()
        .flat_map(|joint| {
            sentence
                .match_indices(joint)
                .map(move |(at, _)| at + joint.len() - 2)
        })
        .min()
        .map(|at| &sentence[at..])
        .filter(|rest| reports_a_change(rest))
}

/// Whether a sentence tells how things stand after the work: "It now shows
/// an error under the field.", "The page loads in 80 ms now.", "现在…". Not
/// "for now" or "right now", which tell when, not what changed.
pub(crate) fn tells_the_state_now(sentence: &str) -> bool {
    const NOW_CJK: &[&str] = &["现在", "現在", "今は", "이제"];
    let lower = folded(sentence);
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let now = words.iter().enumerate().any(|(i, w)| {
        *w == "now"
            && !i
                .checked_sub(1)
                .is_some_and(|b| ["for", "right", "just", "until", "by"].contains(&words[b]))
    });
    !sentence.trim_end().ends_with(['?', '？'])
        && (now || NOW_CJK.iter().any(|n| lower.starts_with(n)))
}

/// The verb of a (folded) sentence that opens "I <verb> …".
fn verb_after_i(lower: &str) -> Option<&str> {
    let mut words = lower.split_whitespace();
    (words.next() == Some("i")).then(|| words.next()).flatten()
}

/// Whether a sentence tells a change made, by "I" or with no doer named:
/// "I migrated …", "Migrated the form to react-hook-form.", "已修复…";
/// not "Looked at the tests." or "Interesting, the fixtures are old.".
pub(crate) fn tells_a_change(sentence: &str) -> bool {
    let lower = folded(sentence.trim_start_matches(|c: char| !c.is_alphanumeric()));
    let opening = lower
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default();
    let done = opening.len() >= 5 && opening.ends_with("ed") && !LOOKED.contains(&opening);
    reports_a_change(sentence) || done || IRREGULAR.contains(&opening)
}

/// Whether a sentence reports a change the agent made: "I moved …", "I've
/// added …", "我把…", "Ahora se carga …", "…を修正しました。".
pub(crate) fn reports_a_change(sentence: &str) -> bool {
    let lower = folded(sentence.trim_start_matches(|c: char| !c.is_alphanumeric()));
    let past_verb = verb_after_i(&lower).is_some_and(|verb| {
        (verb.ends_with("ed") && !LOOKED.contains(&verb)) || IRREGULAR.contains(&verb)
    });
    let polite_past = ["ました", "했습니다", "했어요"].iter().any(|end| {
        lower
            .trim_end_matches(['。', '.', '!', '！'])
            .ends_with(end)
    });
    past_verb || polite_past || CHANGES.iter().any(|c| lower.starts_with(c))
}
