//! What a person or an agent typed, read as an FTS5 query.
//!
//! Free text is the normal query: "When did we fix the retry bug?" is read as
//! its content words (`fix`, `retry`, `bug`), any of which may match, so a
//! question never fails for a word the session does not hold. Stopwords of
//! the languages memsync's sanitizer knows come off (they match nearly every
//! session and cost time; bm25's document frequency would weigh them near
//! zero anyway), punctuation and possessives never reach FTS5 (`Melanie's`
//! is `melanie`, `CS:GO` the phrase `cs go`), and inflections match through
//! the index's porter tokenizer (`paint` finds `painted`). A time the text
//! names ("in May", "2023", "last week", "yesterday") is taken out of the
//! words and returned as a [`Span`] that ranking boosts by (`search::dates`).
//!
//! Explicit FTS5 syntax (`"phrase"`, `OR`, `NOT`, `NEAR`, `prefix*`,
//! `column:`) is kept for people who type it, with Chinese, Japanese and
//! Korean inside it rewritten for the bigram columns exactly as unquoted
//! words are; what FTS5 then refuses is answered as words by the caller.
//!
//! Owns: the reading of query text. Must not: run SQL.

use chrono::{DateTime, Utc};

use super::dates::{self, Span};
use crate::contract::ArtifactKind;
use crate::error::{Result, UsageError};
use crate::store::cjk;

/// A query as memsync reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The FTS5 expression that selects and ranks sessions.
    pub fts: String,
    /// Each content term as an FTS5 expression of its own, for counting how
    /// many of them a session holds (empty for explicit syntax).
    pub terms: Vec<String>,
    /// The words as written, for a snippet found in the text.
    pub words: Vec<String>,
    /// The time the text named, if any.
    pub span: Option<Span>,
    /// Whether the text was explicit FTS5 syntax.
    pub explicit: bool,
}

/// The most content terms a query keeps: a pasted paragraph is read by its
/// first words rather than costing a bm25 over hundreds of phrases.
const MAX_TERMS: usize = 24;

/// Reads `text` for the columns of `kind` (else all): as explicit syntax when
/// it is written as such, else as words.
pub fn read(text: &str, kind: Option<ArtifactKind>, now: DateTime<Utc>) -> Result<Reading> {
    if text.trim().is_empty() {
        return Err(UsageError::Missing {
            flag: "search:",
            reason: "the query is empty",
        }
        .into());
    }
    if let Some(fts) = explicit(text, kind) {
        return Ok(Reading {
            fts,
            terms: Vec::new(),
            words: written_words(text),
            span: None,
            explicit: true,
        });
    }
    Ok(read_as_words(text, kind, now))
}

/// Reads `text` as words, whatever syntax it holds.
pub fn read_as_words(text: &str, kind: Option<ArtifactKind>, now: DateTime<Utc>) -> Reading {
    let (span, rest) = dates::take_span(text, now);
    let cols = Columns::of(kind);
    let (mut terms, mut words) = content_terms(&rest, &cols);
    if terms.is_empty() && span.is_none() {
        // Only stopwords ("what did we do?"): they are all there is to match.
        for chunk in rest.split(splits_words) {
            let word = trim_word(chunk);
            if !word.is_empty() && !terms.iter().any(|t| t == &cols.plain(word)) {
                terms.push(cols.plain(word));
                words.push(word.to_string());
            }
        }
    }
    Reading {
        fts: terms.join(" OR "),
        terms,
        words,
        span,
        explicit: false,
    }
}

/// The content terms of `text` and each one's word as written, at most
/// [`MAX_TERMS`], each once.
fn content_terms(text: &str, cols: &Columns) -> (Vec<String>, Vec<String>) {
    let mut terms: Vec<String> = Vec::new();
    let mut words = Vec::new();
    for chunk in text.split(splits_words) {
        for (term, word) in chunk_terms(chunk, cols) {
            if !terms.contains(&term) && terms.len() < MAX_TERMS {
                terms.push(term);
                words.push(word);
            }
        }
    }
    (terms, words)
}

/// The content words of `text` as written: no stopword, no time read off.
pub(super) fn content_words(text: &str) -> Vec<String> {
    content_terms(text, &Columns::of(None)).1
}

/// Where terms look: every column, or one artifact kind's text and bigrams.
struct Columns {
    plain: String,
    bigram: String,
}

impl Columns {
    fn of(kind: Option<ArtifactKind>) -> Columns {
        match kind {
            Some(kind) => Columns {
                plain: format!("{{{kind} {kind}_cjk}} : "),
                bigram: format!("{kind}_cjk : "),
            },
            None => Columns {
                plain: String::new(),
                bigram: format!("{{{}}} : ", BIGRAM_COLUMNS.join(" ")),
            },
        }
    }

    fn plain(&self, word: &str) -> String {
        format!("{}{}", self.plain, quoted(word))
    }

    fn bigram(&self, query: &str) -> String {
        format!("({})", query.replace(cjk::COLUMN, &self.bigram))
    }
}

/// The bigram columns of `session_fts`, in the order of the text columns.
pub const BIGRAM_COLUMNS: [&str; 4] = [
    "sentence_cjk",
    "summary_cjk",
    "transcript_cjk",
    "compaction_cjk",
];

/// A string FTS5 tokenizes as a phrase of its words.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The terms of one whitespace-separated chunk, each with the word as written.
fn chunk_terms(chunk: &str, cols: &Columns) -> Vec<(String, String)> {
    let word = strip_possessive(trim_word(chunk));
    if word.is_empty() {
        return Vec::new();
    }
    if word.chars().any(cjk::is_bigram_script) {
        return cjk::free_text_terms(word)
            .into_iter()
            .map(|q| (cols.bigram(&q), word.to_string()))
            .collect();
    }
    let parts: Vec<&str> = word
        .split(|c: char| !is_word_char(c))
        .filter(|p| !p.is_empty())
        .collect();
    let content: Vec<&&str> = parts.iter().filter(|p| !is_stopword(p)).collect();
    match (parts.len(), content.len()) {
        (_, 0) => Vec::new(),
        // `src/pay.rs`, `CS:GO`: the parts in order, as FTS5 reads the text.
        (2.., _) => vec![(cols.plain(word), word.to_string())],
        _ => vec![(cols.plain(content[0]), content[0].to_string())],
    }
}

/// Whitespace and the punctuation that ends a word; what stays inside a chunk
/// (`.`, `/`, `:`, `-`, `+`, `#`, `@`, `'`) joins its parts into a phrase.
fn splits_words(c: char) -> bool {
    c.is_whitespace() || "()[]{}<>,;!?\"“”„«»|=*^~`、，。！？；：（）「」".contains(c)
}

/// A chunk without the punctuation around it (`group?`, `(retry)`, `"title"`).
fn trim_word(chunk: &str) -> &str {
    chunk.trim_matches(|c: char| !is_word_char(c))
}

/// `Melanie's` and `James'` are about Melanie and James; `don't` keeps `don`,
/// a stopword.
fn strip_possessive(word: &str) -> &str {
    for apostrophe in ['\'', '’'] {
        if let Some((stem, tail)) = word.rsplit_once(apostrophe)
            && matches!(
                tail.to_lowercase().as_str(),
                "s" | "t" | "d" | "ll" | "ve" | "re" | "m" | ""
            )
        {
            return stem.trim_end_matches(|c: char| !is_word_char(c));
        }
    }
    word
}

/// A token as FTS5's `unicode61` sees one: letters and digits of any script.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Words too common to tell sessions apart, in the languages whose secret
/// names the sanitizer knows and that separate words with spaces.
fn is_stopword(word: &str) -> bool {
    let lower = word.to_lowercase();
    STOPWORDS.binary_search(&lower.as_str()).is_ok()
}

/// Sorted, for a binary search. English first among equals: the benchmark
/// and most agents ask in English.
static STOPWORDS: &[&str] = &include!("stopwords.in");

/// Words of explicit syntax a snippet can look for as written.
fn written_words(text: &str) -> Vec<String> {
    text.split(|c: char| !is_word_char(c) && !cjk::is_bigram_script(c))
        .filter(|w| !w.is_empty() && !matches!(*w, "AND" | "OR" | "NOT" | "NEAR"))
        .filter(|w| !KNOWN_COLUMNS.contains(w))
        .map(str::to_string)
        .collect()
}

/// Column names a person may scope a term to (`summary: retry`).
const KNOWN_COLUMNS: [&str; 4] = ["sentence", "summary", "transcript", "compaction"];

/// One piece of explicit FTS5 syntax.
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Phrase(String),
    Bare(&'a str),
    Open,
    Close,
    Star,
    Caret,
    Colon(&'a str),
    Comma,
}

/// The FTS5 expression for text written as explicit syntax, or `None` when
/// it is not (no quotes, operators, prefixes, groups or known columns) or
/// reads as a question (ends in `?`), or is not well formed.
fn explicit(text: &str, kind: Option<ArtifactKind>) -> Option<String> {
    if text.trim_end().ends_with(['?', '？']) {
        return None;
    }
    let pieces = pieces(text)?;
    let marked = pieces.iter().any(|p| match p {
        Piece::Phrase(_) | Piece::Open | Piece::Star | Piece::Colon(_) => true,
        Piece::Bare(w) => matches!(*w, "AND" | "OR" | "NOT" | "NEAR"),
        _ => false,
    });
    if !marked {
        return None;
    }
    let cols = Columns::of(kind);
    let mut expr = String::new();
    // Inside `NEAR(…)` phrases stand side by side; elsewhere two operands
    // get an explicit AND (FTS5 takes no implicit AND after a group).
    let mut near_at: Option<usize> = None;
    let (mut depth, mut ends_operand, mut after_near) = (0usize, false, false);
    for piece in pieces {
        let (text, starts) = match piece {
            Piece::Phrase(p) if p.chars().any(cjk::is_bigram_script) => {
                (cols.bigram(&cjk::phrase_query(&p)?), true)
            }
            Piece::Phrase(p) => (quoted(&p), true),
            Piece::Bare(w @ ("AND" | "OR" | "NOT" | "NEAR")) => (w.to_string(), false),
            Piece::Bare(w) if near_at.is_some() && w.bytes().all(|b| b.is_ascii_digit()) => {
                (w.to_string(), false)
            }
            Piece::Bare(w) if w.chars().any(cjk::is_bigram_script) => {
                (cols.bigram(&cjk::phrase_query(w)?), true)
            }
            Piece::Bare(w) => (quoted(w), true),
            Piece::Open => ("(".into(), true),
            Piece::Close => (")".into(), false),
            Piece::Star => ("*".into(), false),
            Piece::Caret => ("^".into(), true),
            Piece::Comma => (",".into(), false),
            Piece::Colon(column) => (format!("{column} :"), true),
        };
        if ends_operand && starts && near_at.is_none() {
            expr.push_str(" AND");
        }
        if !(expr.is_empty() || expr.ends_with('^') || (after_near && text == "(")) {
            expr.push(' ');
        }
        match text.as_str() {
            "(" if after_near => near_at = Some(depth),
            ")" if near_at == Some(depth.saturating_sub(1)) => near_at = None,
            _ => {}
        }
        match text.as_str() {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        after_near = text == "NEAR";
        ends_operand =
            matches!(text.as_str(), ")" | "*") || (starts && !text.ends_with([':', '^', '(']));
        expr.push_str(&text);
    }
    Some(match kind {
        Some(kind) => format!("{{{kind} {kind}_cjk}} : ({expr})"),
        None => expr,
    })
}

/// Explicit syntax that is only words and prefixes (`Caroline*
/// relationship* status*`), read so that any of them may match: the
/// fallback when no session holds them all. `None` for anything with
/// phrases, operators, groups or columns, which the person meant as written.
pub fn any_of(text: &str, kind: Option<ArtifactKind>) -> Option<Reading> {
    let pieces = pieces(text)?;
    let cols = Columns::of(kind);
    let mut terms: Vec<String> = Vec::new();
    let mut words = Vec::new();
    for piece in &pieces {
        match piece {
            Piece::Bare("AND" | "OR" | "NOT" | "NEAR") => return None,
            Piece::Bare(w) if w.chars().any(cjk::is_bigram_script) => return None,
            Piece::Bare(w) => {
                terms.push(cols.plain(w));
                words.push(w.to_string());
            }
            Piece::Star => terms.last_mut()?.push('*'),
            _ => return None,
        }
    }
    (terms.len() > 1).then(|| Reading {
        fts: terms.join(" OR "),
        terms,
        words,
        span: None,
        explicit: false,
    })
}

/// Explicit syntax cut into pieces; `None` for what is not well formed
/// (an unclosed quote or group).
fn pieces(text: &str) -> Option<Vec<Piece<'_>>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        match c {
            c if c.is_whitespace() => rest = &rest[len..],
            '"' => {
                let (phrase, after) = closing_quote(&rest[1..])?;
                out.push(Piece::Phrase(phrase));
                rest = after;
            }
            '(' => {
                depth += 1;
                out.push(Piece::Open);
                rest = &rest[1..];
            }
            ')' => {
                depth = depth.checked_sub(1)?;
                out.push(Piece::Close);
                rest = &rest[1..];
            }
            '*' => {
                out.push(Piece::Star);
                rest = &rest[1..];
            }
            '^' => {
                out.push(Piece::Caret);
                rest = &rest[1..];
            }
            ',' => {
                out.push(Piece::Comma);
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '(' | ')' | '*' | ','))
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                rest = &rest[end..];
                match word.strip_suffix(':') {
                    Some(column) if KNOWN_COLUMNS.contains(&column) => {
                        out.push(Piece::Colon(column))
                    }
                    _ if word.chars().any(is_word_char) => out.push(Piece::Bare(word)),
                    // A lone `-` or `:` says nothing FTS5 could match.
                    _ => {}
                }
            }
        }
    }
    (depth == 0 && !out.is_empty()).then_some(out)
}

/// The phrase up to the closing quote (`""` is a quote inside), and what follows.
fn closing_quote(text: &str) -> Option<(String, &str)> {
    let mut phrase = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            if chars.peek().map(|(_, c)| *c) == Some('"') {
                chars.next();
                phrase.push('"');
                continue;
            }
            return Some((phrase, &text[i + 1..]));
        }
        phrase.push(c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::contract::parse_ts("2026-11-20T12:00:00Z").unwrap()
    }

    fn words_of(text: &str) -> Vec<String> {
        read(text, None, now()).unwrap().words
    }

    #[test]
    fn a_question_is_read_as_its_content_words_any_of_which_may_match() {
        let r = read("When did Caroline go to the support group?", None, now()).unwrap();
        assert_eq!(r.words, ["Caroline", "go", "support", "group"]);
        assert_eq!(r.fts, "\"Caroline\" OR \"go\" OR \"support\" OR \"group\"");
        assert!(!r.explicit);
    }

    #[test]
    fn punctuation_and_possessives_never_reach_fts5() {
        assert_eq!(words_of("Melanie's painting?"), ["Melanie", "painting"]);
        assert_eq!(words_of("James' car"), ["James", "car"]);
        assert_eq!(words_of("played CS:GO again"), ["played", "CS:GO"]);
        assert_eq!(words_of("don't touch src/pay.rs!"), ["touch", "src/pay.rs"]);
        assert_eq!(words_of("NEAR(quokka,wombat"), ["NEAR", "quokka", "wombat"]);
        let r = read("what did \"Charlotte's Web\" mean?", None, now()).unwrap();
        assert!(!r.explicit, "a question with a quoted title is words");
        assert_eq!(r.words, ["Charlotte", "Web", "mean"]);
    }

    #[test]
    fn only_stopwords_are_still_searched() {
        assert_eq!(words_of("what did we do"), ["what", "did", "we", "do"]);
    }

    #[test]
    fn explicit_syntax_is_kept_and_its_cjk_goes_to_the_bigram_columns() {
        let r = read("\"retry the job\" OR backoff", None, now()).unwrap();
        assert!(r.explicit);
        assert_eq!(r.fts, "\"retry the job\" OR \"backoff\"");
        assert_eq!(read("pay*", None, now()).unwrap().fts, "\"pay\" *");
        let quoted = read("\"自动重试\"", None, now()).unwrap();
        assert!(quoted.fts.contains("\"自动 动重 重试\""), "{}", quoted.fts);
        assert_eq!(
            read("summary: retry", None, now()).unwrap().fts,
            "summary : \"retry\""
        );
    }

    #[test]
    fn malformed_syntax_is_read_as_words() {
        let r = read("\"unclosed retry", None, now()).unwrap();
        assert!(!r.explicit);
        assert_eq!(r.words, ["unclosed", "retry"]);
        assert!(!read("(retry", None, now()).unwrap().explicit);
    }

    #[test]
    fn a_time_in_the_question_is_no_word() {
        let r = read("what did we fix in May 2026?", None, now()).unwrap();
        assert_eq!(r.words, ["fix"]);
        assert!(r.span.is_some());
    }
}
