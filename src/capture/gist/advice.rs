//! An answer that tells the person what to do about what it found
//! ("react-beautiful-dnd 13 only supports React 17. Switch to its fork
//! `@hello-pangea/dnd`, …"): the finding alone says why, not what to do;
//! said together, within the sentence's room, the outcome is both.
//!
//! Owns: telling advice from other sentences and joining it to the finding.
//! Must not: choose the answer's sentence (the answer gist does).

use crate::capture::outcome::is_advice;
use crate::sentence::word_count;

/// Words the finding and the advice stay within together.
const ADVICE_WORDS: usize = 20;

/// Words a finding opens with to be joined to advice: a longer one is an
/// explanation that says enough.
const FINDING_WORDS: usize = 12;

/// What an answer opening with `finding` tells to do in `next`, said
/// together ("react-beautiful-dnd 13 only supports React 17; switch to its
/// maintained fork @hello-pangea/dnd"); a long finding by what comes before
/// its ", so", the advice cut at its first comma when whole it does not
/// fit. `None` when `next` is no advice, or
/// `finding` reports work done (the agent did it, nothing is left to do).
pub(super) fn with_advice(finding: &str, next: &str) -> Option<String> {
    use crate::capture::outcome::{is_cause, tells_a_change};
    if (tells_a_change(finding) && !is_cause(finding)) || !is_advice(next) {
        return None;
    }
    // "Your user is not in the docker group, so it cannot open the
    // socket.": what was found is before ", so", what follows from it after.
    let finding = match word_count(finding) <= FINDING_WORDS {
        true => finding,
        false => finding
            .split_once(", so ")
            .map(|(head, _)| head)
            .filter(|head| word_count(head) <= FINDING_WORDS)?,
    };
    let room = ADVICE_WORDS.saturating_sub(word_count(finding));
    let advice = next.trim_end_matches(['.', '。', '!', '！', ':', '：']);
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
        // A long finding by what comes before its ", so"; the advice on
        // the next line, or the first step of the list under it.
        let docker = "Your user is not in the `docker` group, so it cannot open the daemon socket.";
        for steps in [
            "\n\n1. Add yourself: `sudo usermod -aG docker $USER`\n2. Log out and back in.",
            "\n- Add yourself: `sudo usermod -aG docker $USER`\n- Log out and back in.",
            "\nAdd yourself: `sudo usermod -aG docker $USER`",
        ] {
            assert_eq!(
                outcome_gist(&format!("{docker}{steps}")),
                "Your user is not in the docker group; add yourself: sudo usermod -aG docker $USER"
            );
        }
        for answer in [
            "Fixed the login redirect loop.\n\nRestart the server to pick it up.",
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

    /// The same class through a whole session: the report keeps the steps
    /// under a one-line finding, so the sentence can say the first.
    #[test]
    fn a_session_that_ends_in_a_finding_and_its_steps_says_the_first_step() {
        let answer = "Your user is not in the `docker` group, so it cannot open the daemon socket.\n\n1. Add yourself: `sudo usermod -aG docker $USER`\n2. Log out and back in.\n3. Check with `docker run hello-world`.";
        let t = super::super::tests::session(
            "docker: permission denied on /var/run/docker.sock",
            answer,
        );
        let said = super::super::compose(&t, None).unwrap_or_default();
        assert!(
            said.ends_with("outcome: Your user is not in the docker group; add yourself: sudo usermod -aG docker $USER."),
            "{said}"
        );
    }
}
