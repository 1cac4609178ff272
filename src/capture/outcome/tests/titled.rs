//! How a report under a title is told from its title (the helpers are the
//! outcome tests').

use super::*;

/// A report that opens with a title between ornaments says what it holds
/// under the title, in any frame and language; a framed sentence, or a
/// framed line alone, is the answer itself.
#[test]
fn a_framed_title_over_a_report_is_not_the_outcome() {
    let frames = [
        ("─── ✦ ", " ✦ ───"),
        ("=== ", " ==="),
        ("~~~~ ", " ~~~~"),
        ("━━━ ", " ━━━"),
    ];
    let reports = [
        (
            "朝报 · 丙午年四月初七",
            "• 七仓零提交，八份 memory 全部刷新",
        ),
        (
            "Weekly report",
            "Merged the retry fix and closed four issues.",
        ),
        ("Résumé du jour", "La migration est terminée sans erreur."),
        ("작업 결과", "배포가 끝났고 모든 테스트가 통과했습니다."),
    ];
    for (open, close) in frames {
        for (title, body) in reports {
            let answer = format!("{open}{title}{close}\n\n{body}");
            let t = claude(&[
                serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
                    "message": {"role": "user", "content": "send me today's report"}}),
                assistant("a1", serde_json::json!([{"type": "text", "text": answer}])),
            ]);
            let got = outcome(&t);
            assert!(!got.contains(title), "{answer:?} gave {got:?}");
            assert!(
                got.contains(body.trim_start_matches("• ")),
                "{answer:?} gave {got:?}"
            );
        }
    }
    for answer in [
        "★★★ Release v2.1 shipped to the store ★★★\n\nThe notes are in CHANGELOG.md.",
        "=== Weekly report ===",
    ] {
        let t = claude(&[
            serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u",
                "message": {"role": "user", "content": "ship it"}}),
            assistant("a1", serde_json::json!([{"type": "text", "text": answer}])),
        ]);
        let first = answer.lines().next().unwrap_or_default();
        let inner = first.trim_matches(|c: char| !c.is_alphanumeric());
        assert!(
            outcome(&t).contains(inner),
            "{answer:?} gave {:?}",
            outcome(&t)
        );
    }
}
