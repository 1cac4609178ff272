//! Exact words before stems. The index folds every word to its porter stem,
//! which is how `paint` finds `painted` and `causing` finds `caused`; it is
//! also how `status` finds `statue`, `hi` finds `his`, `organization` finds
//! `organ` and `generate` finds `general`, and a session holding only the
//! other word can outrank the one that says what was asked. Among the
//! best-ranked sessions, a query word a session holds only as another word
//! of its stem (no inflection of it: `-s`, `-es`, `-ed`, `-ing`, `-e`, `-y`;
//! derivations like `-ation`, `-al` or `-ity` make another word) counts
//! [`STEM_ONLY`] of one it holds: stemming still finds the session, and the
//! word as asked decides between near-equals.
//!
//! Only words of ASCII letters and digits are told apart (a phrase like
//! `src/pay.rs`, or a word of another script, always counts as held), and
//! a document is read up to [`READ_AT_MOST`] characters a column: a word not
//! seen in a longer column is given the benefit of the doubt.
//!
//! Owns: telling a word held (as written or inflected) from one held by its
//! stem only. Must not: choose candidates, or move a session for anything else.

/// What a word held by its stem only counts, against 1 for a word held as
/// written or inflected (chosen by `cargo bench --bench recall`).
pub(super) const STEM_ONLY: f64 = 0.6;
/// The characters of each column read to find the words as written.
pub(super) const READ_AT_MOST: usize = 64 * 1024;

/// The query word as the text would hold it, lowercased, when it can be
/// told from its stem: ASCII letters and digits only.
pub(super) fn checkable(word: &str) -> Option<String> {
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then(|| word.to_ascii_lowercase())
}

/// The share of its matched words' weight a session keeps: `held` words of
/// the query matched (by stem), of which `stem_only` it holds under another
/// form only.
pub(super) fn share(held: usize, stem_only: usize) -> f64 {
    if held == 0 {
        return 1.0;
    }
    (held as f64 - (1.0 - STEM_ONLY) * stem_only as f64) / held as f64
}

/// Whether `text` (ASCII-lowercased) holds `word` (lowercased) or one of
/// its inflections (`roots`) as a whole word: no letter, digit or `_` on
/// either side. A byte past ASCII counts as a letter, as the index's
/// tokenizer reads `café` as one word. A word of one or two letters counts
/// only as written (`hi` is not `his`).
pub(super) fn holds_a_form(text: &str, word: &str) -> bool {
    let bytes = text.as_bytes();
    let joins = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let asked = roots(word);
    let Some(shortest) = asked.iter().min_by_key(|r| r.len()) else {
        return false;
    };
    // Every root is a prefix of its word, so a word sharing one starts with
    // the asked word's shortest root.
    let prefix = if word.len() <= 2 { word } else { shortest };
    text.match_indices(prefix).any(|(at, _)| {
        if at.checked_sub(1).is_some_and(|i| joins(bytes[i])) {
            return false;
        }
        let end = (at..bytes.len())
            .find(|&i| !joins(bytes[i]))
            .unwrap_or(bytes.len());
        let found = &text[at..end];
        found == word || (word.len() > 2 && roots(found).iter().any(|r| asked.contains(r)))
    })
}

/// Suffixes an inflection adds (plural, past, participle, third person);
/// derivations (`-ation`, `-al`, `-ity`, `-er`) make another word.
const INFLECTIONS: [&str; 7] = ["ing", "ies", "ied", "ed", "es", "s", "e"];

/// The word and what is left of it without each inflection it may end in
/// and then a final `y` or `i` (at least two letters), undoubled (`dropp`
/// → `drop`): two words are forms of one when their roots meet (`timing`
/// and `times` at `tim`, `studies` and `study` at `stud`); `status` keeps
/// its `s`, as `-us`, `-is` and `-ss` are no plural.
fn roots(word: &str) -> Vec<&str> {
    let mut out = vec![word];
    for suffix in INFLECTIONS {
        let Some(root) = word.strip_suffix(suffix) else {
            continue;
        };
        if root.len() < 2 || (suffix == "s" && root.ends_with(['u', 'i', 's'])) {
            continue;
        }
        out.push(root);
        let b = root.as_bytes();
        if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] {
            out.push(&root[..root.len() - 1]);
        }
    }
    // `study`, `studies` and `studying` meet at `stud`, as the stemmer's
    // `studi` has them.
    for i in 0..out.len() {
        if let Some(root) = out[i].strip_suffix(['y', 'i'])
            && root.len() >= 2
        {
            out.push(root);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_held_whole_as_written_or_inflected() {
        let text = "the status page; his statue. café hi_there; caused by times out, \
                    dropped requests, studies, used, days";
        for word in [
            "status", "statue", "causing", "cause", "timing", "time", "dropping",
        ] {
            assert!(holds_a_form(text, word), "{word}");
        }
        for word in [
            "statues",
            "requested",
            "study",
            "studying",
            "use",
            "uses",
            "day",
            "his",
        ] {
            assert!(holds_a_form(text, word), "{word}");
        }
        for word in ["stat", "caf", "organization", "hi", "timer", "dropper"] {
            assert!(!holds_a_form(text, word), "{word}");
        }
        assert!(holds_a_form("hi there", "hi"));
        assert!(!holds_a_form("the statue stood", "status"));
        assert!(!holds_a_form("an organ", "organization"));
        assert!(!holds_a_form("the universe", "university"));
        assert!(!holds_a_form("in general", "generate"));
        assert!(!holds_a_form("an animal", "animation"));
    }

    #[test]
    fn only_plain_ascii_words_are_told_from_their_stem() {
        assert_eq!(checkable("Status").as_deref(), Some("status"));
        assert_eq!(checkable("src/pay.rs"), None);
        assert_eq!(checkable("重试"), None);
        assert_eq!(checkable("naïve"), None);
    }

    #[test]
    fn a_stem_only_word_counts_less_than_a_written_one() {
        assert_eq!(share(0, 0), 1.0);
        assert_eq!(share(3, 0), 1.0);
        assert!(share(3, 1) < 1.0 && share(3, 1) > share(3, 2));
        assert!((share(1, 1) - STEM_ONLY).abs() < 1e-9);
    }
}
