//! Ties: the words that join a person's sentence to the one before it
//! ("also", "then", "además", "另外"). An ask opening with one adds to the
//! ask before it; a request's gist is read past them. Reads text only.

use super::remarks::opens_an_ask;

/// A sentence that adds an ask to the one before it: it opens with a tie
/// ("Also switch to pnpm.", "Then write a test for it.", "另外…"), or asks
/// with one just after its first words ("Please also bump the version.",
/// "Can you also …", "Kannst du auch …").
pub(super) fn adds_an_ask(sentence: &str) -> bool {
    let adding = |tie: &str| !STATEMENT_TIES.contains(&tie);
    if opening_tie(sentence).is_some_and(|(tie, _)| adding(tie)) {
        return true;
    }
    let tied_word = |w: &str| {
        let w = w.trim_matches([',', '，']).to_lowercase();
        TIES.contains(&w.as_str()) && adding(&w)
    };
    opens_an_ask(sentence) && sentence.split_whitespace().take(4).skip(1).any(tied_word)
}

/// An ask without what ties it to the turn before it ("ok, now rename …",
/// "then write …", "además, cambia …"), when the rest still says something.
pub(super) fn past_ties(ask: String) -> String {
    let mut out = super::outcome::past_acknowledging_clause(&ask);
    // "now that the cache works, drop the mutex" opens a clause of its own.
    while let Some((_, rest)) = opening_tie(out)
        .filter(|(_, rest)| crate::sentence::word_count(rest) >= 3 && !rest.starts_with("that "))
    {
        out = rest;
    }
    out.to_string()
}

/// The tie a sentence opens with (lower case, as in `TIES`), and the
/// sentence past it and the comma or space after it.
fn opening_tie(sentence: &str) -> Option<(&'static str, &str)> {
    let head = |tie: &str| {
        let end = sentence
            .char_indices()
            .nth(tie.chars().count())
            .map_or(sentence.len(), |(i, _)| i);
        (sentence[..end].to_lowercase() == tie).then(|| &sentence[end..])
    };
    let spaced = TIES.iter().find_map(|&tie| {
        let rest = head(tie)?;
        let past = rest.strip_prefix([',', ' '])?;
        Some((tie, past.trim_start()))
    });
    spaced.or_else(|| {
        TIES_CJK
            .iter()
            .find_map(|&tie| Some((tie, head(tie)?.trim_start_matches(['，', ',']))))
    })
}

/// Words that tie a sentence to the one before it, longest first where one
/// opens another ("and also" before "and").
const TIES: &[&str] = &[
    "and also",
    "also",
    "then",
    "next",
    "now",
    "and",
    "additionally",
    "plus",
    "aussi",
    "puis",
    "además",
    "también",
    "luego",
    "außerdem",
    "dann",
    "auch",
    "também",
    "além disso",
    "depois",
    "а также",
    "также",
    "ещё",
    "еще",
    "потом",
    "ngoài ra",
    "sau đó",
];

/// Ties written without a space after them.
const TIES_CJK: &[&str] = &[
    "另外",
    "还有",
    "還有",
    "然后",
    "然後",
    "同时",
    "また",
    "それと",
    "그리고",
    "또한",
];

/// Ties that open a statement as often as an ask ("And it still fails.",
/// "Now the build passes."): taken off an ask, never read as adding one.
const STATEMENT_TIES: &[&str] = &["and", "now"];
