//! Ties: the words that join a person's sentence to the one before it
//! ("also", "then", "además", "另外"). An ask opening with one adds to the
//! ask before it; a request's gist is read past them, and past the fillers
//! speech opens with ("so basically …").
//!
//! Owns: those words and where a sentence goes past them. Must not: choose
//! the request (summarize does) or clip it (the gist does).

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

/// A sentence that takes back the ask before it ("actually, just fix the
/// colour", "never mind, …", "no, …", "算了，…"): the ask it goes on with
/// replaces that one.
pub(super) fn takes_back(sentence: &str) -> bool {
    let sentence = sentence.trim_start();
    opening_take_back(sentence).is_some()
        || ["no,", "nope,", "nah,"]
            .iter()
            .any(|no| head(sentence, no).is_some())
}

/// The take-back a sentence opens with, and the sentence past it.
fn opening_take_back(sentence: &str) -> Option<(&'static str, &str)> {
    opening(sentence, TAKE_BACKS).or_else(|| {
        TAKE_BACKS_CJK.iter().find_map(|&word| {
            let rest = head(sentence, word)?;
            Some((word, rest.trim_start_matches(['，', ',', '、', ' '])))
        })
    })
}

/// An ask that follows up the question before it: on a condition ("If not,
/// fix it.", "Si no, arréglalo.", "如果是，就改掉。"), or in six words or
/// fewer to mend what the question asks about ("Fix it please.", "Arréglalo
/// por favor.", "修一下。"). "Is the retry thread-safe? If not, fix it."
/// asks both.
pub(super) fn follows_up_a_question(sentence: &str) -> bool {
    const CONDITIONS: &[&str] = &[
        "if so",
        "if not",
        "if yes",
        "if it is",
        "if it isn't",
        "if it does",
        "if it doesn't",
        "if there is",
        "if there are",
        "otherwise",
        "si no",
        "si es así",
        "si oui",
        "si non",
        "sinon",
        "se não",
        "se sim",
        "falls nicht",
        "falls ja",
        "wenn nicht",
        "wenn ja",
        "если нет",
        "если да",
        "иначе",
        "nếu không",
        "nếu có",
        "nếu vậy",
    ];
    const CONDITIONS_CJK: &[&str] = &["如果", "若是", "若不是", "要是", "もし", "만약", "그렇다면"];
    const MEND: &[&str] = &[
        "fix",
        "repair",
        "solve",
        "resolve",
        "arregl",
        "arrégl",
        "corrig",
        "corríg",
        "consert",
        "beheb",
        "reparier",
        "исправ",
        "почин",
        "sửa",
        "修",
        "改一下",
        "改掉",
        "直し",
        "直して",
        "고쳐",
        "수정",
    ];
    let lower = sentence.trim_start().to_lowercase();
    let short = crate::sentence::word_count(sentence) <= 6;
    let conditional = opening(sentence, CONDITIONS).is_some()
        || CONDITIONS_CJK.iter().any(|c| lower.starts_with(c));
    let mends = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| MEND.iter().any(|m| w.starts_with(m)));
    conditional || (short && mends)
}

/// An ask without what ties it to the turn before it ("ok, now rename …",
/// "then write …", "además, cambia …") and the fillers speech opens with
/// ("hey so basically the thing is …"), when the rest still says something.
pub(super) fn past_ties(ask: String) -> String {
    let mut out = super::outcome::past_acknowledging_clause(&ask);
    // "now that the cache works, drop the mutex" and "so far the tests
    // pass, …" open a clause of their own.
    let own_clause = |rest: &str| {
        ["that ", "far ", "much ", "many ", "long "]
            .iter()
            .any(|w| rest.starts_with(w))
    };
    let tie = |s| (opening_tie(s).or_else(|| opening(s, FILLERS))).or_else(|| opening_take_back(s));
    while let Some((_, rest)) =
        tie(out).filter(|(_, rest)| crate::sentence::word_count(rest) >= 3 && !own_clause(rest))
    {
        out = rest;
    }
    without_hesitations(out)
}

/// A sentence without the sounds a speaker hesitates with ("can you uh
/// remind me", "ähm, kannst du"): a voice note's transcript keeps them.
fn without_hesitations(sentence: &str) -> String {
    const HESITATIONS: &[&str] = &["um", "umm", "uh", "uhh", "uhm", "erm", "ähm", "äh", "euh"];
    let hesitates =
        |w: &str| HESITATIONS.contains(&w.trim_end_matches([',', '…']).to_lowercase().as_str());
    if !sentence.split_whitespace().any(hesitates) {
        return sentence.to_string();
    }
    let words: Vec<&str> = sentence
        .split_whitespace()
        .filter(|w| !hesitates(w))
        .collect();
    words.join(" ")
}

/// The tie a sentence opens with (lower case, as in `TIES`), and the
/// sentence past it and the comma or space after it.
fn opening_tie(sentence: &str) -> Option<(&'static str, &str)> {
    opening(sentence, TIES).or_else(|| {
        TIES_CJK.iter().find_map(|&tie| {
            let rest = head(sentence, tie)?;
            Some((tie, rest.trim_start_matches(['，', ','])))
        })
    })
}

/// The first of `words` a sentence opens with, followed by a comma, a colon
/// or a space, and the sentence past them.
fn opening<'a>(sentence: &'a str, words: &[&'static str]) -> Option<(&'static str, &'a str)> {
    words.iter().find_map(|&word| {
        let past = head(sentence, word)?.strip_prefix([',', ':', ' '])?;
        Some((word, past.trim_start()))
    })
}

/// What follows `word` at the start of `sentence`, compared in lower case.
fn head<'a>(sentence: &'a str, word: &str) -> Option<&'a str> {
    let end = sentence
        .char_indices()
        .nth(word.chars().count())
        .map_or(sentence.len(), |(i, _)| i);
    (sentence[..end].to_lowercase() == word).then(|| &sentence[end..])
}

/// Words speech opens with before it says anything, longest first where
/// one opens another.
const FILLERS: &[&str] = &[
    "hey so",
    "hi so",
    "ok so",
    "okay so",
    "so basically",
    "basically",
    "so",
    "well",
    "um",
    "uh",
    "erm",
    // Spoken (a voice note's transcript): "so like can you …".
    "like",
    "the thing is",
    "here's the thing",
    "long story short",
    "quick one",
    "real quick",
    "pues",
    "bueno",
    "o sea",
    "bon",
    "alors",
    "ну",
    "короче",
    "слушай",
];

/// Words that take back the ask before, longest first where one opens
/// another; none that also opens an ask of its own ("no tests needed",
/// "rather than …", "не надо …").
const TAKE_BACKS: &[&str] = &[
    "actually",
    "never mind",
    "nevermind",
    "forget that",
    "forget it",
    "scratch that",
    "on second thought",
    "change of plan",
    "change of plans",
    "instead",
    "en fait",
    "laisse tomber",
    "oublie ça",
    "vergiss das",
    "vergiss es",
    "eigentlich",
    "stattdessen",
    "en realidad",
    "olvida eso",
    "olvídalo",
    "na verdade",
    "esquece isso",
    "esquece",
    "на самом деле",
    "забудь это",
    "забудь",
    "вместо этого",
];

/// Take-backs written without a space after them.
const TAKE_BACKS_CJK: &[&str] = &[
    "算了",
    "其实",
    "其實",
    "不用了",
    "やっぱり",
    "やっぱ",
    "아니",
    "대신",
];

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

#[cfg(test)]
mod tests {
    use super::super::gist::request_gist;

    /// The class: a request spoken as a voice note and transcribed, with
    /// the words speech opens with ("um so like") and the sounds it
    /// hesitates with ("uh", "ähm") anywhere, in any language: the request
    /// is the ask without them. Words that only look alike stay.
    #[test]
    fn a_spoken_request_is_asked_without_its_hesitations() {
        for (spoken, asked) in [
            (
                "um so like can you uh remind me to water the plants on friday",
                "remind me to water the plants on friday",
            ),
            (
                "uh, add milk, um, eggs and bread to the list",
                "add milk, eggs and bread to the list",
            ),
            (
                "ähm kannst du äh den Termin auf Montag verschieben",
                "den Termin auf Montag verschieben",
            ),
            (
                "euh tu peux euh envoyer le rapport à Marie",
                "envoyer le rapport à Marie",
            ),
        ] {
            let got = request_gist(spoken);
            assert!(got.contains(asked), "{spoken:?} -> {got:?}");
        }
        let kept = "add an umbrella icon and a Uhhh easter egg";
        assert!(request_gist(kept).contains("umbrella icon and a Uhhh"));
    }

    /// The class: an ask that opens by taking back the one before it, in
    /// any language: its gist is the ask, without the take-back. Words
    /// that open an ask of their own ("no tests", "rather than") stay.
    #[test]
    fn an_ask_is_told_without_the_words_that_take_back_the_one_before() {
        for (said, asked) in [
            (
                "actually, just fix the colour of the button",
                "just fix the colour",
            ),
            (
                "Never mind, make the checkout button blue",
                "make the checkout button blue",
            ),
            (
                "scratch that: rename it to cart_total",
                "rename it to cart_total",
            ),
            ("算了，只把按钮颜色改成蓝色", "只把按钮颜色改成蓝色"),
            (
                "забудь это, просто поменяй цвет кнопки",
                "просто поменяй цвет кнопки",
            ),
            (
                "en fait, change juste la couleur du bouton",
                "change juste la couleur",
            ),
            (
                "vergiss das, ändere nur die Farbe des Buttons",
                "ändere nur die Farbe",
            ),
        ] {
            let got = request_gist(said);
            assert!(got.starts_with(asked), "{said:?} -> {got:?}");
            assert!(super::takes_back(said), "{said:?}");
        }
        for kept in [
            "no tests are needed, just add the endpoint",
            "rather than a modal, show an inline error",
            "make the checkout button blue",
        ] {
            assert!(!super::takes_back(kept), "{kept:?}");
        }
    }
}
