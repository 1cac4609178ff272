//! What closes an answer around its result: a conclusion after the
//! details, an offer after the report (the helpers are the outcome tests').

use super::*;

#[test]
fn a_closing_tldr_is_the_outcome_of_the_answer_before_it() {
    let t = claude(&[
        user("u1", "review the auth module for security issues"),
        said(
            "a1",
            "I went through the login, session and reset flows.\n\nThe reset token is compared with `==`.\n\nTL;DR: three issues, the token comparison first.",
        ),
    ]);
    assert_eq!(outcome(&t), "three issues, the token comparison first.");
}

/// The class: the agent's last message only offers more ("Let me know if
/// you want any changes!", "Would you like me to add tests too?",
/// "需要我再加测试吗？", "Is there anything else …?" in any language),
/// after the message that reported the work: the report is what came of
/// it. An offer that is all the agent said stays.
#[test]
fn an_offer_alone_after_the_report_gives_way_to_it() {
    let report = "Added validation: email format, password length and matching confirmation.";
    for offer in [
        "Let me know if you want any changes!",
        "Would you like me to add tests for it too?",
        "Anything else?",
        "需要我再加测试吗？",
        "Is there anything else you'd like me to do?",
        "Can I help with anything else?",
        "¿Necesitas algo más?",
        "Y a-t-il autre chose que je puisse faire ?",
        "Brauchst du noch etwas?",
        "Precisa de mais alguma coisa?",
        "Что-нибудь ещё?",
        "还有什么需要帮忙的吗？",
        "他に何かお手伝いできることはありますか？",
        "더 도와드릴 일이 있을까요?",
    ] {
        let t = claude(&[
            user("u1", "add input validation to the signup form"),
            said("a1", report),
            said("a2", offer),
        ]);
        assert_eq!(outcome(&t), report, "{offer}");
        let alone = claude(&[user("u1", "add validation"), said("a1", offer)]);
        assert_eq!(outcome(&alone), offer, "{offer}");
    }
}
