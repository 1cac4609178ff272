//! Chats in which the question's words were said by one speaker in one
//! session and by the other in another, the recall benchmark's `speaker`
//! questions ("What pot size did you recommend for the basil?"). The session
//! where the assistant said it answers; a newer look-alike where the person
//! said the same words, as often, does not. Both are written as capture
//! writes a chat: a summary whose `Request` and `Later requests` repeat the
//! person's turns, and the transcript that holds every turn once. Counting
//! the person's words twice puts the look-alike first (`store::touched`).
//!
//! Owns: the pairs' text and questions. Must not: be used but for generated
//! workspaces.

use chrono::{DateTime, Duration, Utc};

use super::stories::{Question, Told};
use crate::config::Config;

/// One pair: the question; the chat where the assistant said the answer
/// (the person's turns, the assistant's answer between them, its last
/// reply); and the person's turn in the look-alike that says the same words.
struct Pair {
    question: &'static str,
    asked: [&'static str; 2],
    answer: &'static str,
    last: &'static str,
    look_alike: [&'static str; 2],
}

const PAIRS: &[Pair] = &[
    Pair {
        question: "What pot size did you recommend for the basil?",
        asked: [
            "My basil keeps wilting on the kitchen windowsill.",
            "Thanks, anything else I should change?",
        ],
        answer: "Repot the basil: the pot size that suits it is 20 cm, terracotta, with a drainage hole.",
        last: "Pinch off the flower buds so it keeps growing leaves.",
        look_alike: [
            "I picked a pot size of 20 cm for the basil, terracotta with a drainage hole.",
            "How often should I water it now?",
        ],
    },
    Pair {
        question: "Which sleeping bag temperature rating did you suggest for the Dolomites trip?",
        asked: [
            "We are camping in the Dolomites in late September.",
            "Good, and what about food?",
        ],
        answer: "For the Dolomites trip I suggest a sleeping bag with a comfort temperature rating of -5 °C.",
        last: "Pack dehydrated meals and a small gas stove.",
        look_alike: [
            "My sleeping bag has a temperature rating of -5 °C, good for the Dolomites trip I think.",
            "Which tent should I bring?",
        ],
    },
    Pair {
        question: "What interval did you propose for the marathon training long runs?",
        asked: [
            "I signed up for the spring marathon and train four days a week.",
            "And how do I avoid injuries?",
        ],
        answer: "For marathon training, the long runs should grow by 10 % each week, with an easier interval week every fourth.",
        last: "Stretch after every run and replace your shoes every 700 km.",
        look_alike: [
            "My marathon training plan grows the long runs by 10 %, with an easier interval week every fourth.",
            "Is it fine to run on a treadmill?",
        ],
    },
    Pair {
        question: "Which sourdough hydration did you advise for a beginner loaf?",
        asked: [
            "I want to bake my first sourdough bread this weekend.",
            "How long should it proof?",
        ],
        answer: "A beginner loaf is easier to shape at 70 % sourdough hydration; wetter doughs spread.",
        last: "Proof it overnight in the fridge, then bake at 240 °C.",
        look_alike: [
            "I went with 70 % sourdough hydration for a beginner loaf this time.",
            "What flour is best for the starter?",
        ],
    },
    Pair {
        question: "What budget split did you recommend for my monthly salary?",
        asked: [
            "I just got my first job and want to save money each month.",
            "Should I open a savings account?",
        ],
        answer: "Try a 50/30/20 budget split of your monthly salary: needs, wants, then savings.",
        last: "Yes, a high-yield savings account for the emergency fund.",
        look_alike: [
            "I already use a 50/30/20 budget split of my monthly salary.",
            "Is investing in index funds a good idea?",
        ],
    },
    Pair {
        question: "Which watering schedule did you give for the tomato seedlings?",
        asked: [
            "I started tomato seedlings indoors under a grow light.",
            "When can I move them outside?",
        ],
        answer: "The watering schedule for tomato seedlings: every second morning, from below, until the top centimetre is damp.",
        last: "Harden them off for a week once nights stay above 10 °C.",
        look_alike: [
            "My watering schedule for the tomato seedlings is every second morning, from below.",
            "Do they need fertiliser yet?",
        ],
    },
];

/// How many pairs (each two sessions and one question).
pub fn count() -> usize {
    PAIRS.len()
}

/// A chat as capture writes it: the person's turns in the summary's
/// `Request` and `Later requests` and the last reply as its `Outcome`; every
/// turn once in the transcript.
fn chat(id: String, ended: DateTime<Utc>, turns: &[(&str, &str)]) -> Told {
    let (first, _) = turns[0];
    let later: String = turns[1..].iter().map(|(u, _)| format!("- {u}\n")).collect();
    let (_, last) = turns[turns.len() - 1];
    let transcript: String = turns
        .iter()
        .map(|(u, a)| format!("## User\n\n{u}\n\n## Assistant\n\n{a}\n\n"))
        .collect();
    Told {
        id,
        ended,
        minutes: 15,
        sentence: format!("{first}; outcome: {last}"),
        summary: format!(
            "## Request\n\n{first}\n\n## Later requests\n\n{later}\n## Outcome\n\n{last}\n"
        ),
        transcript,
    }
}

/// Pair `k`'s two chats (the assistant's answer ended at `ended`, the
/// look-alike a day later) and its question.
pub fn pair(k: usize, ended: DateTime<Utc>, config: &Config) -> (Vec<(String, String)>, Question) {
    let p = &PAIRS[k % PAIRS.len()];
    let said_id = format!("speaker-{k:02}");
    let said = chat(
        said_id.clone(),
        ended,
        &[(p.asked[0], p.answer), (p.asked[1], p.last)],
    );
    let look_alike = chat(
        format!("speaker-lookalike-{k:02}"),
        ended + Duration::days(1),
        &[
            (p.look_alike[0], "Sounds like a good plan."),
            (
                p.look_alike[1],
                "That depends on the season; keep it simple.",
            ),
        ],
    );
    let mut files = said.files(config);
    files.extend(look_alike.files(config));
    let question = Question {
        question: p.question.to_string(),
        session_id: said_id,
        form: "speaker",
    };
    (files, question)
}

/// When pair `k`'s answer was given: ten days apart, from two months ago.
pub fn ended(k: usize, now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::days(60 + 10 * k as i64)
}
