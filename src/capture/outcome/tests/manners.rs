//! Manners around the work are not what came of it: a good-bye after it,
//! and a reply that only agrees to do what was asked (addressing the person
//! by a title or not) before the report (the helpers are the outcome
//! tests').

use super::*;

const WORK: &str = "Added a dark mode toggle; the choice is saved in localStorage.";

#[test]
fn a_good_bye_after_the_work_and_the_reply_to_it_are_not_the_outcome() {
    for bye in [
        "thanks, bye!",
        "bye",
        "ok bye",
        "see you later",
        "goodbye and thanks",
        "再见",
        "拜拜",
        "またね",
        "tchau",
        "пока",
    ] {
        let lines = [
            user("u1", "add a dark mode toggle to the settings page"),
            said("a1", WORK),
            user("u2", bye),
            said("a2", "You're welcome, goodbye!"),
        ];
        assert_eq!(outcome(&claude(&lines)), WORK, "{bye}");
    }
}

#[test]
fn a_reply_that_only_agrees_gives_way_to_the_report_after_it() {
    for agrees in [
        "Master, as you wish.",
        "As you wish, master!",
        "Certainly!",
        "Of course.",
        "Right away, sir.",
        "遵命，主人。",
        "好的。",
        "かしこまりました。",
    ] {
        let reply = format!("{agrees}\n\n{WORK}");
        let lines = [
            user("u1", "add a dark mode toggle to the settings page"),
            said("a1", &reply),
        ];
        assert_eq!(outcome(&claude(&lines)), WORK, "{agrees}");
        // Alone, it is what the session ended on.
        let lines = [user("u1", "add a dark mode toggle"), said("a1", agrees)];
        assert_eq!(outcome(&claude(&lines)), agrees);
    }
}

/// The class: the last answer's first paragraph only agrees with what the
/// person said ("Record matches my view.", "Agreed.", "完全同意。") or
/// apologises ("Sorry for the confusion."); what
/// came of the session is the paragraph after it.
#[test]
fn a_paragraph_that_only_agrees_with_the_person_gives_way_to_the_one_after_it() {
    for agreement in [
        "Record matches my view.",
        "Agreed.",
        "That matches my understanding.",
        "Tienes razón.",
        "完全同意。",
        "You're right, I apologize.",
        "Sorry for the confusion.",
        "抱歉。",
    ] {
        let answer = format!(
            "{agreement}\n\nThe release is tagged v2.4 and the changelog lists the three fixes."
        );
        let t = claude(&[
            user(
                "u1",
                "For the record: v2.4 is tagged and the changelog is done.",
            ),
            said("a1", &answer),
        ]);
        assert_eq!(
            outcome(&t),
            "The release is tagged v2.4 and the changelog lists the three fixes.",
            "{agreement}"
        );
    }
}
