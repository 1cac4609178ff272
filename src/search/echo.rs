//! Sessions that only asked the question again. The more memsync is used,
//! the more sessions there are whose request was the very question being
//! searched for ("what did we change in hello.py last time?"), answered with
//! nothing found; they match every word in their sentence and would outrank
//! the session that did the work. What a session did outweighs what it was
//! asked: an echo ranks below every session that did work and holds enough
//! of the question's words.
//!
//! Owns: telling an echo and moving it down. Must not: drop a hit, or touch
//! a session whose sentence says it changed something.

use super::query::content_words;

/// Whether a session with this sentence only asked (most of) the question
/// whose content words are `asked`: it changed nothing, and its request and
/// the question share 60 % of the words of each, so a session whose request
/// only touched the same subject ("plan my sister's wedding" for "what did
/// I say about my sister's wedding?") is not one.
pub fn only_asked(sentence: &str, asked: &[String]) -> bool {
    if asked.len() < 2 || sentence.contains("; changed ") {
        return false;
    }
    // The request: after `<project>: `, before what was changed, run or came of it.
    let request = sentence.split_once(": ").map_or(sentence, |(_, r)| r);
    let request = request.split("; ").next().unwrap_or(request);
    let lower = |w: &String| w.to_lowercase();
    let said: Vec<String> = content_words(request).iter().map(lower).collect();
    let asked: Vec<String> = asked.iter().map(lower).collect();
    let shared = asked.iter().filter(|w| said.contains(w)).count();
    shared * 5 >= asked.len() * 3 && shared * 5 >= said.len() * 3
}

/// Whether `matched` of a question's `words` words are enough for a session
/// to be about it: two, or 40 % of a long question's, up to four; a one-word
/// question's word.
pub fn enough_words(matched: usize, words: usize) -> bool {
    let need = match words {
        0 => 0,
        1 => 1,
        n => (n * 2).div_ceil(5).clamp(2, 4),
    };
    matched >= need
}

/// Moves each echo that ranks above the last session that did work and
/// holds enough of the words to just below it, at that session's score, so
/// the scores stay in order. `is_echo` says which entries are echoes; it is
/// asked only of entries `about_it` (an echo holds the question's words).
pub(super) fn demote<T>(
    ranked: &mut Vec<(f64, T)>,
    is_echo: impl Fn(&T) -> bool,
    about_it: impl Fn(&T) -> bool,
) {
    let about: Vec<bool> = ranked.iter().map(|(_, c)| about_it(c)).collect();
    let echo: Vec<bool> = (ranked.iter().zip(&about))
        .map(|((_, c), about)| *about && is_echo(c))
        .collect();
    let Some(bar) = (0..ranked.len()).rev().find(|&i| !echo[i] && about[i]) else {
        return;
    };
    if !echo[..bar].contains(&true) {
        return;
    }
    let floor = ranked[bar].0;
    let rest = ranked.split_off(bar + 1);
    let (mut moved, kept): (Vec<_>, Vec<_>) = std::mem::take(ranked)
        .into_iter()
        .zip(echo)
        .partition(|(_, e)| *e);
    ranked.extend(kept.into_iter().map(|(entry, _)| entry));
    for ((score, _), _) in &mut moved {
        *score = floor;
    }
    ranked.extend(moved.into_iter().map(|(entry, _)| entry));
    ranked.extend(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_session_that_asked_the_same_question_and_changed_nothing_is_an_echo() {
        let asked = words(&["change", "hello.py", "last", "time"]);
        for sentence in [
            "hello: what did we change in hello.py last time; read hello.py; outcome: could not tell.",
            "hello: What did we change in hello.py the last time?; outcome: no record of it.",
        ] {
            assert!(only_asked(sentence, &asked), "{sentence}");
        }
        for sentence in [
            // It did the work.
            "hello: what did we change in hello.py last time; changed hello.py; outcome: reverted it.",
            // The same subject, another request.
            "hello: add a greeting for the night shift to hello.py and make it say the time of the last change in words.",
        ] {
            assert!(!only_asked(sentence, &asked), "{sentence}");
        }
        assert!(!only_asked("hello: hello.py", &words(&["hello.py"])));
    }

    #[test]
    fn echoes_move_below_the_last_work_about_the_question_and_keep_their_order() {
        // (name, echo, about it)
        let entries = [
            ("echo-a", true, true),
            ("work-1", false, true),
            ("echo-b", true, true),
            ("other", false, false),
            ("work-2", false, true),
            ("tail", false, false),
            ("echo-c", true, true),
        ];
        let mut ranked: Vec<(f64, (&str, bool, bool))> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (10.0 - i as f64, *e))
            .collect();
        demote(&mut ranked, |e| e.1, |e| e.2);
        let order: Vec<&str> = ranked.iter().map(|(_, e)| e.0).collect();
        assert_eq!(
            order,
            [
                "work-1", "other", "work-2", "echo-a", "echo-b", "tail", "echo-c"
            ]
        );
        let scores: Vec<f64> = ranked.iter().map(|(s, _)| *s).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    }

    #[test]
    fn with_no_work_about_the_question_the_echoes_stay_where_they_are() {
        let mut ranked = vec![(3.0, ("echo", true)), (2.0, ("other", false))];
        demote(&mut ranked, |e| e.1, |_| false);
        assert_eq!(ranked[0].1.0, "echo");
    }
}
