//! An answer that tells the person what to do about what it found
//! ("react-beautiful-dnd 13 only supports React 17. Switch to its fork
//! `@hello-pangea/dnd`, …"): the finding alone says why, not what to do;
//! said together, within the sentence's room, the outcome is both.
//!
//! Owns: telling advice from other sentences and joining it to the finding.
//! Must not: choose the answer's sentence (the answer gist does).

use crate::sentence::word_count;

/// Words the finding and the advice stay within together.
const ADVICE_WORDS: usize = 20;

/// Words a finding opens with to be joined to advice: a longer one is an
/// explanation that says enough.
const FINDING_WORDS: usize = 12;

/// What an answer opening with `finding` tells to do in `next`, said
/// together ("react-beautiful-dnd 13 only supports React 17; switch to its
/// maintained fork @hello-pangea/dnd"); the advice cut at its first comma
/// when whole it does not fit. `None` when `next` is no advice, or
/// `finding` reports work done (the agent did it, nothing is left to do).
pub(super) fn with_advice(finding: &str, next: &str) -> Option<String> {
    use crate::capture::outcome::{is_cause, tells_a_change};
    let short = word_count(finding) <= FINDING_WORDS;
    if !short || (tells_a_change(finding) && !is_cause(finding)) || !is_advice(next) {
        return None;
    }
    let room = ADVICE_WORDS.saturating_sub(word_count(finding));
    let advice = next.trim_end_matches(['.', '。', '!', '！']);
    let advice = match word_count(advice) <= room {
        true => advice,
        false => advice
            .split_once([',', '，', ';', '；'])
            .map(|(head, _)| head.trim_end())
            .filter(|head| word_count(head) <= room && word_count(head) >= 3)?,
    };
    let finding = finding.trim_end_matches(['.', '。', '!', '！']);
    let mut chars = advice.chars();
    let first = chars.next()?;
    let lowered: String = first.to_lowercase().chain(chars).collect();
    let cjk = crate::sentence::is_cjk(first);
    Some(match cjk {
        true => format!("{finding}；{advice}"),
        false => format!("{finding}; {lowered}"),
    })
}

/// Whether a sentence tells the person what to do: it opens with a verb
/// to do it by ("Switch to …", "Install …", "Pin react to 18.2."), "To
/// fix this, …", "You need to …", or its like in the languages capture
/// reads ("建议改用 …", "Usa …", "Installe …").
pub(super) fn is_advice(sentence: &str) -> bool {
    const OPENERS: &[&str] = &[
        "switch to ",
        "use ",
        "install ",
        "reinstall ",
        "uninstall ",
        "run ",
        "upgrade ",
        "downgrade ",
        "update ",
        "pin ",
        "replace ",
        "remove ",
        "delete ",
        "add ",
        "set ",
        "change ",
        "rename ",
        "restart ",
        "enable ",
        "disable ",
        "try ",
        "clear ",
        "wrap ",
        "move ",
        "import ",
        "pass ",
        "call ",
        "increase ",
        "raise ",
        "lower ",
        "reduce ",
        "to fix this",
        "to fix it",
        "to fix that",
        "to solve this",
        "to resolve this",
        "the fix is to ",
        "the solution is to ",
        "you need to ",
        "you'll need to ",
        "you should ",
        "you can ",
        "you have to ",
        "just ",
        "simply ",
        "usa ",
        "instala ",
        "cambia ",
        "prueba ",
        "utilise ",
        "installe ",
        "essaie ",
        "remplace ",
        "verwende ",
        "installiere ",
        "ersetze ",
        "используй",
        "установи",
        "замени",
        "建议",
        "改用",
        "可以改用",
        "你需要",
        "需要",
        "请改",
        "试试",
        "使用",
    ];
    let lower = sentence.trim_start().to_lowercase();
    let asks_back = lower.trim_end().ends_with(['?', '？']);
    !asks_back && OPENERS.iter().any(|o| lower.starts_with(o))
}

#[cfg(test)]
mod tests {
    use super::super::answer::outcome_gist;

    /// The class: an answer that finds why something fails and tells the
    /// person what to do about it, in any language and with any of the
    /// ways advice opens: the outcome says both. A report of work done
    /// followed by a way to check it, a long explanation, and a question
    /// back keep their first sentence.
    #[test]
    fn a_finding_and_the_advice_after_it_are_said_together() {
        let findings = [
            "react-beautiful-dnd 13 only supports React 17.",
            "The venv has no numpy installed.",
            "Your PATH lacks /usr/local/bin under cron.",
        ];
        let advice = [
            "Switch to the maintained fork.",
            "You need to install it in the venv.",
            "To fix this, add it to the crontab's PATH line.",
            "Use an absolute path in the job.",
        ];
        for finding in findings {
            for tip in advice {
                let answer = format!("{finding} {tip} That should do it.");
                let got = outcome_gist(&answer);
                let head = finding.trim_end_matches('.');
                let tip = tip.trim_end_matches('.');
                let tail = format!("{}{}", tip[..1].to_lowercase(), &tip[1..]);
                assert_eq!(got, format!("{head}; {tail}"), "{answer}");
            }
        }
        assert_eq!(
            outcome_gist("这个包只支持 React 17。建议改用维护中的分支。"),
            "这个包只支持 React 17；建议改用维护中的分支"
        );
        // Too long whole: the advice to its first comma.
        assert_eq!(
            outcome_gist(
                "The venv has no numpy installed. Install it with pip inside the venv, then add it to requirements.txt so the next setup gets it too."
            ),
            "The venv has no numpy installed; install it with pip inside the venv"
        );
        for answer in [
            "Added GET /health to the router. Run npm test to verify.",
            "I installed numpy in the venv. You can run the script now.",
            "The venv has no numpy installed. Use the system Python instead?",
            "The venv has no numpy installed. That is why the import fails.",
            "The job runs under cron with a minimal environment that has no /usr/local/bin and no HOME set. Use an absolute path.",
        ] {
            let first = &answer[..crate::sentence::first_sentence_end(answer)];
            let got = outcome_gist(answer);
            assert_eq!(
                got.trim_end_matches('.'),
                first.trim_end_matches('.'),
                "{answer}"
            );
        }
    }
}
