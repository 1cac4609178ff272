//! Words in Chinese and Japanese text, for the full-text index.
//!
//! FTS5's `unicode61` tokenizer takes a run of Han or kana up to the next
//! punctuation as one token, so a word inside a clause (`重试` in
//! `失败后自动重试三次`) is never found, nor a Latin word written against it
//! (`lint` in `修复代码lint问题`). The index keeps one more column, `cjk`,
//! derived from the others at index time: every run of Han and kana as
//! overlapping bigrams followed by its last character (`重试三次` →
//! `重试 试三 三次 次`), and the Latin words found glued to such runs. A query
//! word with Han or kana in it is rewritten to match that column: a run of
//! two or more characters as the phrase of its bigrams (consecutive tokens,
//! so the run must occur as written), one character as a prefix (`重*`
//! matches every bigram that starts with it and a run's last character).
//!
//! Chosen over FTS5's `trigram` tokenizer (no match under three characters,
//! and most Chinese words are two) and over a dictionary segmenter such as
//! jieba or lindera (megabytes of dictionary loaded on every `search`, against
//! a 10 ms budget, and a word the dictionary splits differently is missed).
//! Hangul is kept both ways: `unicode61` indexes its space-separated words,
//! and the bigram columns its syllables, so a stem finds the word it starts
//! (`롤백` in `롤백한다`: Korean attaches endings to the word).
//!
//! Owns: the `cjk` column's text and the matching query. Must not: run SQL.

/// The column a query from [`query_word`] names, for the caller to replace
/// with the bigram columns it searches.
pub const COLUMN: &str = "cjk : ";

/// Whether `c` is Han or kana (the scripts written without spaces).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana (with ー)
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xF900..=0xFAFF    // Han compatibility
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3134F) // Han extensions B–G
}

/// Whether `c` is written into the bigram columns: Han, kana and Hangul.
pub fn is_bigram_script(c: char) -> bool {
    is_cjk(c) || is_hangul(c)
}

/// Hangul syllables and compatibility jamo.
fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7A3 | 0x3130..=0x318F | 0x1100..=0x11FF)
}

/// Cheap first look at the bytes: a Han, kana or Hangul character starts
/// with one of their lead bytes (dashes, quotes, arrows and emoji do not),
/// so English prose is not decoded character by character.
fn may_hold_cjk(text: &str) -> bool {
    let bytes = text.as_bytes();
    let lead = |(i, b): (usize, &u8)| match b {
        0xE3..=0xED => true,
        // Hangul jamo (U+1100–U+11FF); compatibility ideographs
        // (U+F900–U+FAFF) and half-width katakana (U+FF66–U+FF9F); the
        // supplementary ideographs (U+20000–U+3FFFF).
        0xE1 => matches!(bytes.get(i + 1), Some(0x84..=0x87)),
        0xEF => matches!(bytes.get(i + 1), Some(0xA4..=0xAB | 0xBD..=0xBE)),
        0xF0 => matches!(bytes.get(i + 1), Some(0xA0..=0xBF)),
        _ => false,
    };
    bytes.iter().enumerate().any(lead) && text.chars().any(is_bigram_script)
}

/// A token as `unicode61` sees one: letters and digits of any script.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The `cjk` column's text for these texts: empty when none holds Han or kana.
pub fn index_text<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for text in texts {
        if may_hold_cjk(text) {
            for token in text.split(|c: char| !is_word_char(c)) {
                push_token(&mut out, token);
            }
        }
    }
    out
}

/// The bigrams of a token's Han and kana runs, and its other parts as words
/// when they are glued to such a run.
fn push_token(out: &mut String, token: &str) {
    if !token.chars().any(is_bigram_script) {
        return;
    }
    for (cjk, part) in runs(token) {
        if cjk {
            push_run(out, part);
        } else {
            push_word(out, part);
        }
    }
}

fn push_run(out: &mut String, run: &str) {
    let chars: Vec<char> = run.chars().collect();
    for pair in chars.windows(2) {
        out.push(' ');
        out.push(pair[0]);
        out.push(pair[1]);
    }
    if let Some(last) = chars.last() {
        out.push(' ');
        out.push(*last);
    }
}

fn push_word(out: &mut String, word: &str) {
    out.push(' ');
    out.push_str(word);
}

/// A token cut into its Han-and-kana runs and the parts between them.
fn runs(token: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in token.char_indices() {
        let cjk = is_bigram_script(c);
        if current.is_some_and(|k| k != cjk) {
            out.push((current.unwrap_or(false), &token[start..i]));
            start = i;
        }
        current = Some(cjk);
    }
    if let Some(k) = current {
        out.push((k, &token[start..]));
    }
    out
}

/// The FTS5 expression for one query word that holds Han or kana, or `None`
/// for a word without (left to the other columns as it is). Every part must
/// match: `修复代码lint问题` → `cjk : "修复 复代 代码" AND "lint" AND cjk : "问题"`.
pub fn query_word(word: &str) -> Option<String> {
    if !word.chars().any(is_bigram_script) {
        return None;
    }
    let mut parts = Vec::new();
    for token in word.split(|c: char| !is_word_char(c)) {
        for (cjk, part) in runs(token) {
            if part.is_empty() {
                continue;
            }
            parts.push(if cjk {
                run_query(part)
            } else {
                format!("\"{}\"", part.replace('"', "\"\""))
            });
        }
    }
    (!parts.is_empty()).then(|| parts.join(" AND "))
}

fn run_query(run: &str) -> String {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() == 1 {
        return format!("{COLUMN}\"{}\" *", chars[0]);
    }
    let bigrams: Vec<String> = chars.windows(2).map(|p| p.iter().collect()).collect();
    format!("{COLUMN}\"{}\"", bigrams.join(" "))
}

/// The FTS5 expression for a quoted phrase or bare word of explicit syntax
/// that holds Han, kana or Hangul: every part must match, as unquoted.
pub fn phrase_query(phrase: &str) -> Option<String> {
    let parts: Vec<String> = phrase
        .split_whitespace()
        .filter_map(query_word_or_plain)
        .collect();
    (!parts.is_empty()).then(|| parts.join(" AND "))
}

fn query_word_or_plain(word: &str) -> Option<String> {
    query_word(word).or_else(|| {
        let bare = word.trim_matches(|c: char| !is_word_char(c));
        (!bare.is_empty()).then(|| format!("\"{}\"", bare.replace('"', "\"\"")))
    })
}

/// The longest run a free-text word keeps whole: a longer one is a clause
/// ("失败后自动重试了吗"), matched by any of its bigrams.
const WHOLE_RUN: usize = 4;

/// The terms of one free-text word holding Han, kana or Hangul, any of which
/// may match: a short run as written; a longer Han or kana run as each of its
/// bigrams; a Hangul word also as its stem (the word without its last one or
/// two syllables, where Korean puts endings: `롤백했다` finds `롤백한다`).
pub fn free_text_terms(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in word.split(|c: char| !is_word_char(c)) {
        for (script, part) in runs(token) {
            let chars: Vec<char> = part.chars().collect();
            if part.is_empty() {
                continue;
            }
            if !script {
                out.push(format!("\"{}\"", part.replace('"', "\"\"")));
            } else if chars.iter().all(|c| is_hangul(*c)) && chars.len() >= 3 {
                let stem: String = chars[..chars.len().saturating_sub(2).max(2)]
                    .iter()
                    .collect();
                out.push(run_query(part));
                out.push(run_query(&stem));
            } else if chars.len() <= WHOLE_RUN {
                out.push(run_query(part));
            } else {
                for pair in chars.windows(2) {
                    out.push(format!("{COLUMN}\"{}{}\"", pair[0], pair[1]));
                }
            }
        }
    }
    out.dedup();
    out
}

/// The Han-and-kana runs and glued words of a query, as they are written: what a
/// snippet looks for in the text when the match was in the `cjk` column.
pub fn needles(query: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in query.split(|c: char| !is_word_char(c)) {
        if token.chars().any(is_bigram_script) {
            out.extend(
                runs(token)
                    .into_iter()
                    .filter(|(_, p)| !p.is_empty())
                    .map(|(_, p)| p.to_string()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first look misses no character the bigrams index, and says no to
    /// every other one.
    #[test]
    fn the_first_look_finds_exactly_the_bigram_scripts() {
        for c in (0x80..0x40000).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            assert_eq!(
                may_hold_cjk(&text),
                is_bigram_script(c),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn a_run_becomes_its_bigrams_and_its_last_character() {
        assert_eq!(index_text(["失败后重试。"]), " 失败 败后 后重 重试 试");
        assert_eq!(index_text(["no cjk here"]), "");
        assert_eq!(
            index_text(["修复代码lint问题"]),
            " 修复 复代 代码 码 lint 问题 题"
        );
        assert_eq!(index_text(["リトライ"]), " リト トラ ライ イ");
        assert_eq!(
            index_text(["롤백한다 단어"]),
            " 롤백 백한 한다 다 단어 어",
            "Hangul syllables too, so a stem finds the word it starts"
        );
    }

    #[test]
    fn a_query_word_matches_its_bigrams_in_order_or_one_character_as_a_prefix() {
        assert_eq!(query_word("重试").as_deref(), Some("cjk : \"重试\""));
        assert_eq!(
            query_word("资源调度").as_deref(),
            Some("cjk : \"资源 源调 调度\"")
        );
        assert_eq!(query_word("修").as_deref(), Some("cjk : \"修\" *"));
        assert_eq!(
            query_word("修复lint").as_deref(),
            Some("cjk : \"修复\" AND \"lint\"")
        );
        assert_eq!(query_word("lint"), None);
        assert_eq!(needles("修复lint 问题"), ["修复", "lint", "问题"]);
    }
}
