//! How work told as it goes on is told from a result (the helpers are the
//! outcome tests').

use super::*;

/// The class: a sentence that tells work still going on ("Continuing with
/// the implementation.", "I'm making the deprecation concrete now: …"), or
/// announces it after a purpose clause or manners ("To assist with the
/// packages, I will follow these steps.", "好问题，让我深度思考一下。"), in any
/// language: narration, not a result. What happened, or a purpose followed
/// by what was done, is no narration.
#[test]
fn work_told_as_it_goes_on_or_announced_after_a_purpose_is_narration() {
    for told in [
        "Continuing with the implementation.",
        "Proceeding to the migration step.",
        "Moving on to the tests.",
        "I'm making the deprecation concrete now: docs will say the labeler is retired.",
        "I am updating the docs to match.",
        "To assist with the dotfolder packages, I will follow these steps.",
        "In order to fix this, let me read the config first.",
        "Good question, let me check the scheduler code.",
        "好问题，让我深度思考一下。",
        "为了确认这一点，我先看一下配置。",
        "Understood, I'll keep the old API.",
        "Now delegating RED phase to the test-writer agent.",
        "你说得对，让我重新审视一下第二部分的内容。",
        "You're right, let me look at the second part again.",
        "Роблю: Створюю базову структуру проекту.",
        "We'll need to migrate the schema first.",
        "現行の導入フローと .devenv/config.toml 周辺の実装を確認し、変更対象と影響範囲を特定します。",
    ] {
        assert!(is_narration(told), "{told}");
    }
    for said in [
        "I'm hitting file path limits here.",
        "To fix it, I changed the loop to back off exponentially.",
        "Okay, the build passes now.",
        "Continued fractions now print in lowest terms.",
        "I'm sorry, the token cannot be recovered.",
        "Now passing: all 48 tests.",
        "You're right, the cache was never cleared.",
    ] {
        assert!(!is_narration(said), "{said}");
    }
}

/// The class: a first sentence that only says the task is finished ("I've
/// successfully completed the task.", "완료되었습니다.", "任务已完成。"), in any
/// language: an acknowledgement, so what the answer goes on to say is the
/// outcome. A sentence that names what was finished is one.
#[test]
fn a_sentence_that_only_says_the_task_is_finished_acknowledges() {
    for bare in [
        "I've successfully completed the task.",
        "All requested changes have been implemented.",
        "The task is complete.",
        "Everything is done now.",
        "완료되었습니다.",
        "任务已完成。",
        "作業が完了しました。",
    ] {
        assert!(is_acknowledgement(bare), "{bare}");
    }
    for named in [
        "I've completed the NavUser initials.",
        "The migration is complete.",
        "The upgrade went smoothly.",
        "Completed the 12 query helpers.",
    ] {
        assert!(!is_acknowledgement(named), "{named}");
    }
}

/// The class: a closing sentence about the agent's understanding ("I can
/// see the full picture now.") or a question back about what next ("What
/// would you like to continue with?", "Anything else?"): it stands beside a
/// result without being it.
#[test]
fn understanding_and_asking_what_next_are_not_results() {
    for realised in [
        "I can see the full picture now.",
        "Now I can see why it hangs.",
    ] {
        assert!(lead::is_realisation(realised), "{realised}");
    }
    for offered in [
        "What would you like to continue with?",
        "Anything else you'd like me to change?",
        "How would you like to proceed?",
    ] {
        assert!(lead::is_offer(offered), "{offered}");
    }
    assert!(!lead::is_realisation(
        "I can see requests reach the server now: the proxy was fixed."
    ));
    assert!(!lead::is_offer(
        "What would have been a crash is now a warning."
    ));
}
