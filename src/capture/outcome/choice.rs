//! An answer that ends by asking the person to choose between options it
//! lists ("Two options:\n1. Debounce the input …\n2. Move filtering to the
//! server …\n\nWhich one do you prefer?"): the session stopped at that
//! choice, nothing chosen yet, so what came of it is the choice asked, with
//! each option named by its opening words.
//!
//! Owns: telling such an answer and naming its options. Must not: choose
//! the answer (`decide` does) or clip the sentence.

use crate::capture::clip::clip_words;
use crate::sentence::word_count;

/// Words of the closing question that asks for a choice.
const QUESTION_WORDS: usize = 20;

/// Words an option is named by.
const OPTION_WORDS: usize = 10;

/// "Asked which to take: Debounce the input, or Move filtering to the
/// server.", when `answer` ends by asking the person to choose between the
/// options listed right before the question.
pub(super) fn asked(answer: &str) -> Option<String> {
    let paras: Vec<&str> = answer
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let (&question, before) = paras.split_last()?;
    if !asks_to_choose(question) {
        return None;
    }
    let options: Vec<String> = before.last()?.lines().filter_map(option).collect();
    if !(2..=5).contains(&options.len()) {
        return None;
    }
    let named = match options.as_slice() {
        [a, b] => format!("{a}, or {b}"),
        [a, b, rest @ ..] => format!("{a}, {b}, or {} more", rest.len()),
        _ => return None,
    };
    Some(format!("Asked which to take: {named}."))
}

/// A one-line question that asks the person to pick ("Which one do you
/// prefer?", "Should I go with A or B?", "¿Cuál prefieres?", "你选哪个？").
fn asks_to_choose(question: &str) -> bool {
    // Words that ask which, not "more about the options" (an offer).
    const CHOOSING: &[&str] = &[
        "which",
        "prefer",
        "go with",
        "cuál",
        "prefier",
        "qual ",
        "prefere",
        "quelle",
        "lequel",
        "laquelle",
        "préfér",
        "welche",
        "bevorzug",
        "какой",
        "какую",
        "какое",
        "что выбрать",
    ];
    const CHOOSING_CJK: &[&str] = &["哪", "选择", "選擇", "どちら", "どれ", "어느", "어떤"];
    let lower = question.to_lowercase();
    !question.contains('\n')
        && question.ends_with(['?', '？'])
        && word_count(question) <= QUESTION_WORDS
        && (crate::sentence::holds_phrase(&lower, CHOOSING.iter().copied())
            || CHOOSING_CJK.iter().any(|c| lower.contains(c)))
}

/// The opening words of a top-level list item ("1. Debounce the input (300
/// ms) and keep …" names "Debounce the input"), past a label such as
/// "Option A:".
fn option(line: &str) -> Option<String> {
    static ITEM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(?:\d{1,2}[.)]|[-*•])\s+(.+)$").expect("pattern compiles")
    });
    static LABEL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)^(?:option|opción|opção|variante|вариант|方案|选项)\s*\w{0,2}\s*[:：.—–-]\s*",
        )
        .expect("pattern compiles")
    });
    let item = ITEM
        .captures(line)?
        .get(1)?
        .as_str()
        .replace(['*', '`'], "");
    let item = LABEL.replace(item.trim(), "");
    let head = [
        " (", ": ", " — ", " – ", " - ", ", ", ". ", "（", "：", "，", "。",
    ]
    .iter()
    .filter_map(|cut| item.find(cut))
    .min()
    .map_or(item.as_ref(), |at| &item[..at]);
    let head = head.trim().trim_end_matches(['.', '。']);
    (!head.is_empty()).then(|| clip_words(head, OPTION_WORDS))
}

#[cfg(test)]
mod tests {
    use super::asked;

    /// The class: options listed in any list style and language, then a
    /// question asking which: the outcome names the choice asked and each
    /// option's opening words. A question that asks nothing of a choice, a
    /// single item, or options not right before the question are not one.
    #[test]
    fn an_answer_that_ends_asking_which_option_names_the_options() {
        let options = [
            (
                "Debounce the input (300 ms) and keep client-side filtering.",
                "Debounce the input",
            ),
            (
                "**Server-side search** — move filtering to Postgres.",
                "Server-side search",
            ),
        ];
        for marker in ["1. ", "- ", "* ", "• "] {
            for label in ["", "Option A: "] {
                for question in [
                    "Which one do you prefer?",
                    "Should I go with the first or the second?",
                    "¿Cuál prefieres?",
                    "Quelle option préférez-vous ?",
                    "Какой вариант выбрать?",
                    "你选哪个？",
                    "どちらにしますか？",
                ] {
                    let list: Vec<String> = options
                        .iter()
                        .map(|(o, _)| format!("{marker}{label}{o}"))
                        .collect();
                    let answer = format!(
                        "The filter runs on every keystroke.\n\nTwo options:\n{}\n\n{question}",
                        list.join("\n")
                    );
                    let got = asked(&answer).unwrap_or_default();
                    assert!(
                        got == "Asked which to take: Debounce the input, or Server-side search.",
                        "{answer:?} -> {got:?}"
                    );
                }
            }
        }
        let many = "1. Redis\n2. Memcached\n3. In-process LRU\n4. No cache\n\nWhich should I use?";
        let got = asked(many).unwrap_or_default();
        assert_eq!(got, "Asked which to take: Redis, Memcached, or 2 more.");
        for not_a_choice in [
            "1. Debounce the input\n2. Move filtering to the server\n\nWant me to start?",
            "- Cloud-Dienste → teuer\n- Lokal + Chrome Erweiterung\n\nWillst du mehr über Cloud-Optionen wissen?",
            "1. Debounce the input\n\nWhich one do you prefer?",
            "1. Debounce the input\n2. Move filtering\n\nI did the first.\n\nWhich one next?",
            "I debounced the input.\n\nWhich one do you prefer?",
        ] {
            assert_eq!(asked(not_a_choice), None, "{not_a_choice:?}");
        }
    }
}
