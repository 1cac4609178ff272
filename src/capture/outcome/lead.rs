//! Sentences that stand before a result without being it: a realisation
//! ("I see the problem now."), an offer of more work ("Would you like me to
//! add jitter?") and a lead-in before a colon ("Here's a summary of what I
//! did: …").
//!
//! Owns: recognising them from their opening words. Must not: choose which
//! sentence is the outcome (the gist does).

use crate::sentence::word_count;

/// How a sentence that only says the agent now understands opens.
const REALISATIONS: &[&str] = &[
    "i see the",
    "i see what",
    "now i see",
    "i understand the",
    "now i understand",
    "i now understand",
    "now i have",
    "i now have",
    "i found the issue",
    "i found the problem",
    "i've found the issue",
    "i've found the problem",
    "found the issue",
    "found the problem",
    "found it",
    "that explains",
    "this explains",
    "i can see",
    "i can now see",
    "now i can see",
    "i have a clear",
    "i've got a clear",
];

/// How a sentence that only says again what the person asked opens.
const RESTATEMENTS: &[&str] = &[
    "you asked me to",
    "you asked for",
    "you wanted me to",
    "you wanted",
    "you requested",
    "you'd like me to",
    "you would like me to",
    "your request was",
    "tu m'as demandé",
    "vous m'avez demandé",
    "me pediste",
    "me has pedido",
    "du hast mich gebeten",
    "você pediu",
    "вы просили",
    "ты просил",
    "你让我",
    "你要求",
    "您要求",
];

/// How an offer of more work opens.
const OFFERS: &[&str] = &[
    "would you like",
    "do you want",
    "shall i",
    "should i",
    "want me to",
    "if you'd like",
    "if you want",
    "let me know if",
    "what would you like",
    "what should i",
    "how would you like",
    "which would you like",
    "anything else",
    "is there anything else",
    "can i help with anything",
    "can i do anything else",
    "necesitas algo más",
    "algo más",
    "y a-t-il autre chose",
    "autre chose",
    "brauchst du noch",
    "sonst noch",
    "precisa de mais alguma",
    "mais alguma coisa",
    "что-нибудь ещё",
    "что-то ещё",
    "ещё что-нибудь",
    "需要我",
    "要不要",
    "是否需要",
    "还有什么需要",
    "還有什麼需要",
    "还有其他需要",
    "他に何か",
    "ほかに何か",
    "더 도와",
    "다른 도움",
];

/// How a lead-in before a colon opens.
const LEAD_INS: &[&str] = &[
    "here's",
    "here is",
    "here are",
    "i've made the following",
    "i made the following",
    "the following",
    "summary",
    "to summarize",
    "to summarise",
    "in summary",
    "what i did",
    "what changed",
    "changes made",
];

/// Words with which a line before a colon only points at what follows it
/// ("the following", "below", "以下"), in the languages memsync reads; a
/// word's start is enough ("следующие", "suivantes").
const POINTERS: &[&str] = &[
    "following",
    "attached",
    "here are",
    "here is",
    "here's",
    "below",
    "these",
    "as follows",
    "以下",
    "如下",
    "下面",
    "下列",
    "次の",
    "다음",
    "ниже",
    "следующ",
    "suivant",
    "ci-dessous",
    "siguiente",
    "a continuación",
    "folgende",
    "nachfolgend",
    "seguinte",
    "abaixo",
    "sau đây",
    "dưới đây",
    "volgende",
    "hieronder",
    "seguent",
];

/// "The backup repo is clean now:" and "你现在主要有两个问题，所以魂环没生成："
/// say something before their colon; "Here is what I found:", "結論:", "The
/// release contains the following:" and "Let me list them:" only point at
/// what follows.
pub(crate) fn says_something(head: &str) -> bool {
    let core = head.trim_end_matches([':', '：', ' ', '*']);
    word_count(core) >= 3
        && !points(core, |_| true)
        && !opens_with(core, LEAD_INS)
        && !super::is_narration(core)
        && !counts_changes(core)
        // "I've completed all the tasks:" over the list of them.
        && !super::is_acknowledgement(core)
}

/// "I made two changes:", "Here's what I changed:": a line that only
/// introduces the changes listed under it.
pub(crate) fn introduces_changes(line: &str) -> bool {
    line.ends_with([':', '：']) && !says_something(line)
}

/// "I made three changes", "做了三处修改", "3つの変更を加えました" over a
/// list of them (a word may close it: "… Änderungen vorgenommen"): the
/// items say what changed, and the count only how many.
fn counts_changes(head: &str) -> bool {
    static COUNTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?ix)(?:
              \b(?:\d+|two|three|four|five|several|a\ few|dos|tres|cuatro|deux|trois|quatre|zwei|drei|vier|dois|duas|três|quatro|два|две|три|четыре)
              \s+(?:\S+\s+)?
              (?:changes|fixes|edits|updates|modifications|improvements|cambios|correcciones|changements|corrections|änderungen|korrekturen|alterações|mudanças|correções|изменения|изменений|правки|правок)
            | (?:\d|两|二|三|四|几)\s*(?:个|處|处)\s*(?:修改|改动|改動|变更|變更)
            | (?:\d|二|三|四|いくつか)\s*つ?の(?:変更|修正)
            | (?:\d|두|세|네)\s*(?:가지|개)(?:의)?\s*(?:변경|수정)
            )\S*(?:\s+\S+)?\s*$",
        )
        .expect("pattern compiles")
    });
    COUNTED.is_match(head.trim())
}

/// Whether a sentence names what comes after it ("the following spec",
/// "the errors below", "以下"): not "these" or "here is", which may point
/// at what is already there.
pub(crate) fn points_at_what_follows(sentence: &str) -> bool {
    const NEARBY: &[&str] = &["here are", "here is", "here's", "these"];
    points(sentence, |p| !NEARBY.contains(&p))
}

/// Whether `line` holds one of the `POINTERS` `counted` keeps, at a word's start.
fn points(line: &str, counted: impl Fn(&str) -> bool) -> bool {
    let pointers = POINTERS.iter().copied().filter(|p| counted(p));
    crate::sentence::holds_phrase(&folded(line), pointers)
}

/// A line that says something before its colon, then what it introduces:
/// "The backup repo is clean now: Replaced the exposed key", "魂环没生成：定义顺序错了".
pub(crate) fn joined(head: &str, introduced: &str) -> String {
    let head = head.replace(['*', '`'], "");
    let head = head.trim_end();
    if head.ends_with('：') {
        return format!("{head}{introduced}");
    }
    format!("{head} {introduced}")
}

/// The definition a fenced block opens with ("def slugify(name):", "pub fn
/// parse(input: &str)", "export function total(items)"), in the languages
/// agents write: it names what "Here's the function:" shows. A block that
/// opens otherwise (data, imports, a document) is not taken along.
pub(crate) fn fenced_definition(text: &str) -> Option<String> {
    static DEFINITION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^(?:(?:pub(?:\([a-z]+\))?|export|default|public|private|protected|internal|static|async|abstract|final|open|override|unsafe|extern)\s+)*(?:def|fn|function|class|struct|enum|trait|impl|interface|type|func|fun|const|let|var|val|object|record|module|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW|FUNCTION|INDEX|TRIGGER))\s+[A-Za-z_]",
        )
        .expect("pattern compiles")
    });
    fenced_opening(text)
        .map(|(_, line)| line)
        .filter(|l| DEFINITION.is_match(l))
        .map(|l| without_type_parameters(l.trim_end_matches(['{', ':', ' '])))
}

/// A definition without its type parameters: "function debounce<T extends
/// (...a: any[]) => void>(fn: T, ms: number)" names "function
/// debounce(fn: T, ms: number)"; the bounds say nothing a reader looks for.
/// Only before the parameters: a return type (`Result<Ast>`) stays.
fn without_type_parameters(line: &str) -> String {
    let Some(params) = line.find('(') else {
        return line.to_string();
    };
    let (mut depth, mut at) = (0usize, line.len());
    let mut previous = ' ';
    let mut out = String::with_capacity(line.len());
    for (i, c) in line.char_indices() {
        match c {
            '(' if depth == 0 && i >= params => {
                at = i;
                break;
            }
            '<' if depth > 0 || previous.is_alphanumeric() || previous == '_' => depth += 1,
            // "=>" and "->" inside the bounds are arrows, not closers.
            '>' if depth > 0 && !matches!(previous, '=' | '-') => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        previous = c;
    }
    // An unclosed '<' was no list of parameters: keep the line as written.
    match depth {
        0 => out + &line[at..],
        _ => line.to_string(),
    }
}

/// A fenced block `text` opens with: its info string ("bash", "") and its
/// first line, when that line is short enough to name in a sentence.
pub(crate) fn fenced_opening(text: &str) -> Option<(&str, &str)> {
    let mut lines = text.lines().map(str::trim).skip_while(|l| l.is_empty());
    let info = lines.next()?.strip_prefix("```")?.trim();
    let first = lines
        .next()
        .filter(|l| !l.is_empty() && !l.starts_with("```") && l.chars().count() <= 80)?;
    Some((info, first))
}

/// `text` as its opening words are matched: lower case, ’ as '.
pub(super) fn folded(text: &str) -> String {
    text.to_lowercase().replace('’', "'")
}

/// What follows `phrase` at the start of `text` (both folded), when the
/// phrase ends there as a word does: "now" opens "now push" but not
/// "nowhere". A phrase ending in a space or in CJK needs no boundary.
pub(super) fn after_phrase<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(phrase)?;
    let needs_boundary = phrase
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() && !crate::sentence::is_cjk(c));
    let cut_inside_a_word = rest.chars().next().is_some_and(char::is_alphanumeric);
    (!(needs_boundary && cut_inside_a_word)).then_some(rest)
}

/// Whether `sentence` opens with one of `openings` (past any leading marks).
pub(super) fn opens_with(sentence: &str, openings: &[&str]) -> bool {
    let lower = folded(sentence.trim_start_matches(|c: char| !c.is_alphanumeric()));
    openings.iter().any(|o| after_phrase(&lower, o).is_some())
}

/// "I see the problem now.", "Now I have everything I need.": short, and
/// about the agent, not the work.
pub(crate) fn is_realisation(sentence: &str) -> bool {
    word_count(sentence) <= 8 && opens_with(sentence, REALISATIONS) && !sentence.contains(':')
}

/// "You asked me to include tax in the cart total.": the person's request
/// said back, not what came of it. One that goes on into the result after a
/// colon or a semicolon ("You asked for X: done, …") is left to the caller.
pub(crate) fn is_restatement(sentence: &str) -> bool {
    opens_with(sentence, RESTATEMENTS) && !sentence.contains([':', ';', '：', '；'])
}

/// How a sentence that limits the result before it opens ("However,
/// German is only half done."), in the languages sessions are held in.
const CAVEATS: &[&str] = &[
    "but ",
    "however",
    "though",
    "although",
    "except",
    "unfortunately",
    "note that",
    "caveat",
    "但是",
    "不过",
    "不過",
    "只是",
    "ただし",
    "しかし",
    "하지만",
    "다만",
    "pero ",
    "sin embargo",
    "mais ",
    "cependant",
    "toutefois",
    "aber ",
    "jedoch",
    "allerdings",
    "но ",
    "однако",
    "mas ",
    "porém",
    "no entanto",
    "tuy nhiên",
    "nhưng",
];

/// A line past a status label: "**Status:** ✅ Complete" says "✅ Complete".
pub(crate) fn past_status_label(line: &str) -> &str {
    const LABELS: &[&str] = &[
        "status",
        "estado",
        "statut",
        "статус",
        "状态",
        "狀態",
        "ステータス",
        "상태",
    ];
    let bare = line.trim().trim_start_matches(['*', '_']);
    let Some(at) = bare.find([':', '：']) else {
        return line;
    };
    let label = bare[..at].trim_end_matches(['*', '_', ' ']).to_lowercase();
    match LABELS.contains(&label.as_str()) {
        true => bare[at..].trim_start_matches([':', '：', '*', '_', ' ']),
        false => line,
    }
}

/// Whether a sentence or paragraph is a short answer given first, labelled
/// as one or a yes or no ("Short answer: yes.", "No.", "はい。"), three
/// words at most: what follows is its reason and goes with it. Not
/// "Great!", which exclaims, nor "Answer below:", which introduces.
pub(crate) fn is_labelled_answer(paragraph: &str) -> bool {
    const ANSWERS: &[&str] = &[
        "short answer",
        "tl;dr",
        "tldr",
        "answer:",
        "yes",
        "no",
        "nope",
        "yep",
        "sí",
        "si",
        "oui",
        "non",
        "ja",
        "nein",
        "sim",
        "não",
        "да",
        "нет",
        "是",
        "不是",
        "对",
        "不对",
        "はい",
        "いいえ",
        "네",
        "아니요",
    ];
    let s = paragraph.trim();
    crate::sentence::word_count(s) <= 3
        && !s.ends_with(['!', '！', ':', '：', '?', '？'])
        && opens_with(s, ANSWERS)
}

/// "Reviewed src/billing: two issues.", "发现了两个问题。": a sentence that
/// ends by counting what the next one names.
pub(crate) fn announces_a_count(sentence: &str) -> bool {
    static COUNTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?ix)(?:
              \b(?:\d+|two|three|four|five|several|a\ few|dos|tres|cuatro|deux|trois|quatre|zwei|drei|vier|dois|duas|três|quatro|два|две|три|четыре)
              \s+(?:\S+\s+)?
              (?:issues|problems|bugs|things|findings|errors|concerns|risks|problemas|errores|cosas|problèmes|erreurs|points|probleme|fehler|punkte|erros|pontos|проблемы|ошибки|проблем|ошибок)
            | (?:\d|两|二|三|四|几)\s*(?:个|處|处)\s*(?:问题|問題|错误|錯誤|地方|bug)
            | (?:\d|二|三|四|いくつか)\s*つ?の(?:問題|課題|点|バグ)
            | (?:\d|두|세|네)\s*(?:가지|개)(?:의)?\s*(?:문제|이슈|버그)
            )\s*[.。:：!！]?\s*$",
        )
        .expect("pattern compiles")
    });
    COUNTED.is_match(sentence.trim())
}

/// "However, German is only half done.", "German still has 200 missing
/// strings.": a limit on the result just told, by its opening word or by
/// saying what is left.
pub(crate) fn is_caveat(sentence: &str) -> bool {
    opens_with(sentence, CAVEATS) || says_what_remains(sentence)
}

/// "German still has 200 missing strings.", "The docs are not updated
/// yet.", "德语还没翻译。": what the work left undone, in the languages the
/// harnesses are used in; not "It still works." or "Added the missing
/// import.", which tell a result.
fn says_what_remains(sentence: &str) -> bool {
    static ENGLISH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b(?:not\s+(?:\w+\s+)?yet|still\s+(?:has|have|needs?|lacks?|fails?|failing|broken|missing|pending|open|to\s+do|left)|(?:is|are)\s+still\s+(?:missing|failing|broken|pending|open|untranslated|todo)|(?:is|are)\s+(?:missing|pending)|yet\s+to\s+be|left\s+to\s+do|remain(?:s|ing)?\s+(?:to|open|untranslated|failing|broken|missing))\b",
        )
        .expect("pattern compiles")
    });
    const LEFT: &[&str] = &[
        "还没",
        "还未",
        "尚未",
        "仍未",
        "仍然缺",
        "还缺",
        "仍然失败",
        "依然失败",
        "还是失败",
        "仍有",
        "まだ",
        "未完了",
        "아직",
        "noch nicht",
        "noch offen",
        "fehlt noch",
        "fehlen noch",
        "todavía no",
        "aún no",
        "todavía falta",
        "aún falta",
        "pas encore",
        "manque encore",
        "reste à",
        "ещё не",
        "еще не",
        "пока не",
        "осталось",
        "ainda não",
        "ainda falta",
        "chưa",
    ];
    let lower = folded(sentence);
    ENGLISH.is_match(&lower) || LEFT.iter().any(|w| lower.contains(w))
}

/// "⚠️ Heads up: the limiter is in-memory.", "Note: …", "注意：…": a
/// warning, which the agent may put before the result it qualifies.
pub(crate) fn is_warning(text: &str) -> bool {
    const WARNINGS: &[&str] = &[
        "⚠",
        "heads up",
        "warning:",
        "note:",
        "caution:",
        "注意",
        "警告",
        "achtung",
        "atención",
        "attention",
    ];
    let lower = text.trim().replace('*', "").to_lowercase();
    WARNINGS.iter().any(|w| lower.starts_with(w))
}

/// "Would you like me to add jitter?": more work offered, not work done.
pub(crate) fn is_offer(sentence: &str) -> bool {
    opens_with(sentence, OFFERS)
}

/// A sentence past its lead-in: "Here's a summary of what I did: Added
/// backoff." says "Added backoff.".
pub(crate) fn past_lead_in(sentence: &str) -> &str {
    let Some((head, rest)) = sentence.split_once(": ") else {
        return sentence;
    };
    if word_count(head) <= 10 && opens_with(head, LEAD_INS) && word_count(rest) >= 3 {
        rest.trim_start()
    } else {
        sentence
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realisations_offers_and_lead_ins_are_told_from_results() {
        assert!(is_realisation("I see the problem now."));
        assert!(is_realisation("Now I have everything I need."));
        assert!(!is_realisation(
            "I found the issue: the loop slept a fixed second."
        ));
        assert!(!is_realisation("Now the loop backs off exponentially."));
        assert!(is_offer("Would you like me to also add jitter?"));
        assert!(!is_offer(
            "The loop backs off; should it jitter, add a factor."
        ));
        assert_eq!(
            past_lead_in(
                "Here's a summary of what I did: Added exponential backoff to retry_loop."
            ),
            "Added exponential backoff to retry_loop."
        );
        assert_eq!(
            past_lead_in("Root cause: the loop slept a fixed second."),
            "Root cause: the loop slept a fixed second."
        );
    }
}
