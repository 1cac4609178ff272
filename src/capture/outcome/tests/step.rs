//! How a step the person runs from the agent's instructions is told from a
//! new request (the helpers are the outcome tests').

use super::*;

/// The class: instructions with commands (fenced or inline, any shell,
/// any language around them), the person types one of those commands
/// back, the agent remarks on that step. The instructions stay the outcome.
#[test]
fn a_command_typed_back_from_the_instructions_leaves_them_the_outcome() {
    let instructions = [
        (
            "Regenerate the token, then log in again:\n\n```powershell\nnotepad token.txt\nGet-Content token.txt -Raw | gh auth login --with-token\n```",
            "notepad token.txt",
        ),
        (
            "Le correctif est sur la branche `fix/retry`. Récupérez-le :\n\n```bash\n$ git pull origin fix/retry\n$ cargo test\n```",
            "git pull origin fix/retry",
        ),
        (
            "修复已经提交。请运行 `npm run build` 然后重启服务。",
            "npm run build",
        ),
    ];
    let remarks = [
        "That opens a Notepad window on your screen.",
        "Cela va récupérer la branche.",
        "构建会花一两分钟。",
    ];
    for (given, command) in instructions {
        for remark in remarks {
            let t = claude(&[
                user("u1", "how do I get the login working again?"),
                said("a1", given),
                user("u2", command),
                said("a2", remark),
            ]);
            let got = outcome(&t);
            assert!(!got.contains(remark), "{command} / {remark}: {got}");
            assert!(got.contains(command), "{command} / {remark}: {got}");
        }
    }
}

/// What stays: a new request, a question and a command the answer never
/// gave are the person's own, and the agent's reply to them is the outcome.
#[test]
fn a_new_request_after_instructions_keeps_its_own_reply() {
    let given = "Run this:\n\n```bash\ncargo test\n```";
    for (typed, reply) in [
        ("cargo bench", "The benches ran: sync is 5% faster."),
        (
            "why does cargo test fail on CI?",
            "CI lacks the fixtures folder; I added it.",
        ),
        (
            "now add a retry to fetch.rs",
            "Added a retry with backoff to fetch.rs.",
        ),
    ] {
        let t = claude(&[
            user("u1", "how do I check it?"),
            said("a1", given),
            user("u2", typed),
            said("a2", reply),
        ]);
        assert_eq!(outcome(&t), reply, "{typed}");
    }
}
