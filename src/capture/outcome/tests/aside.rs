//! A short question off the work, asked after it was reported and answered
//! without a change, leaves the work's report the outcome and is told after
//! it; a question about the work, a long one, or one whose answer changed a
//! file stays the outcome (the helpers are the outcome tests').

use super::*;

fn edit(uuid: &str, path: &str) -> serde_json::Value {
    assistant(
        uuid,
        serde_json::json!([{"type": "tool_use", "id": format!("t{uuid}"), "name": "Edit",
            "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]),
    )
}

fn done(uuid: &str) -> serde_json::Value {
    serde_json::json!({"type": "user", "sessionId": "s", "uuid": uuid,
        "message": {"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": format!("t{}", &uuid[1..]), "content": "ok"}]}})
}

/// The work: a request, an edit and its report.
fn work(request: &str, path: &str, report: &str) -> Vec<serde_json::Value> {
    vec![
        user("u1", request),
        edit("a1", path),
        done("r1"),
        said("a2", report),
    ]
}

const WORKS: &[(&str, &str, &str)] = &[
    (
        "add exponential backoff to the payment client",
        "/p/src/pay.rs",
        "Added exponential backoff in src/pay.rs; it doubles up to 10 s.",
    ),
    (
        "给登录页面加一个记住我的选项",
        "/p/web/login.tsx",
        "已在登录页面加入记住我的选项，默认关闭。",
    ),
    (
        "corrige le calcul de la TVA dans facture.py",
        "/p/facture.py",
        "Le calcul de la TVA arrondit maintenant chaque ligne avant la somme.",
    ),
];

const ASIDES: &[&str] = &[
    "what's the date today?",
    "btw, what model are you?",
    "how do I quit vim?",
    "你是什么模型？",
    "今日は何曜日ですか？",
    "quelle heure est-il à Tokyo ?",
];

#[test]
fn a_short_question_off_the_work_leaves_the_works_report_the_outcome() {
    for (request, path, report) in WORKS {
        for aside in ASIDES {
            let mut lines = work(request, path, report);
            lines.push(user("u2", aside));
            lines.push(said("a3", "It is the answer to the aside."));
            let decided = decide(&claude(&lines));
            assert_eq!(decided.report, *report, "{aside}");
            assert_eq!(
                decided.errand.map(|e| e.ask),
                Some(aside.to_string()),
                "{aside}"
            );
        }
    }
}

#[test]
fn a_question_on_the_work_a_long_one_or_one_that_changed_a_file_stays_the_outcome() {
    let (request, path, report) = WORKS[0];
    let answer = "No: a 429 is retried once, without backoff.";
    let on_the_work = [
        "does the backoff handle 429s?",
        "is pay.rs covered by tests?",
        "and the payment client's timeouts?",
    ];
    for question in on_the_work {
        let mut lines = work(request, path, report);
        lines.push(user("u2", question));
        lines.push(said("a3", answer));
        assert_eq!(outcome(&claude(&lines)), answer, "{question}");
    }
    let long =
        "what do you think the best way to structure a larger rust workspace with many crates is?";
    let mut lines = work(request, path, report);
    lines.push(user("u2", long));
    lines.push(said("a3", answer));
    assert_eq!(outcome(&claude(&lines)), answer);
    let mut lines = work(request, path, report);
    lines.push(user("u2", "what's the date today?"));
    lines.push(edit("a3", "/p/CHANGELOG.md"));
    lines.push(done("r3"));
    lines.push(said("a4", "It is March 3; I dated the changelog entry."));
    assert_eq!(
        outcome(&claude(&lines)),
        "It is March 3; I dated the changelog entry."
    );
    // A question with no subject prods the agent on: its reply stands.
    for prod in ["?", "？", "huh?"] {
        let mut lines = work(request, path, report);
        lines.push(user("u2", prod));
        lines.push(said("a3", answer));
        assert_eq!(outcome(&claude(&lines)), answer, "{prod}");
    }
    // With no work before it, the question is the session.
    let lines = [
        user("u1", "what's the date today?"),
        said("a1", "It is March 3, 2026."),
    ];
    assert_eq!(outcome(&claude(&lines)), "It is March 3, 2026.");
}

/// The work of `request` over three files, and its report.
fn big_work(request: &str, dir: &str, report: &str) -> Vec<serde_json::Value> {
    let mut lines = vec![user("u1", request)];
    for (i, file) in ["a.rs", "b.rs", "c.rs"].iter().enumerate() {
        lines.push(edit(&format!("a1{i}"), &format!("{dir}/{file}")));
        lines.push(done(&format!("r1{i}")));
    }
    lines.push(said("a2", report));
    lines
}

/// The class: after work over several files was reported, a short task off
/// that work ("also fix the typo in the README"), in any language, done in
/// one file the work had not touched: the work's report stays the outcome
/// and the task is told after it.
#[test]
fn a_small_task_off_the_work_leaves_the_works_report_the_outcome() {
    let report = "GitHub OAuth login works end to end; 40 tests pass.";
    let tasks = [
        ("also fix the typo in the README", "/p/README.md"),
        ("and bump the version in Cargo.toml", "/p/Cargo.toml"),
        ("顺便把 CHANGELOG 的日期改一下", "/p/CHANGELOG.md"),
        (
            "corrige aussi la faute dans le titre de la doc",
            "/p/docs/index.md",
        ),
    ];
    for (task, path) in tasks {
        let mut lines = big_work("implement OAuth login with GitHub", "/p/src/auth", report);
        lines.push(user("u3", task));
        lines.push(edit("a3", path));
        lines.push(done("r3"));
        lines.push(said("a4", "Fixed."));
        let decided = decide(&claude(&lines));
        assert_eq!(decided.report, report, "{task}");
        assert_eq!(decided.errand.map(|e| e.ask), Some(task.to_string()));
    }
}

#[test]
fn a_fix_to_the_work_or_a_task_after_little_work_stays_the_outcome() {
    let report = "GitHub OAuth login works end to end; 40 tests pass.";
    let fixed = "Fixed: the callback route was not registered.";
    // On the work: its words, or a file it changed.
    for (task, path) in [
        ("the GitHub callback returns 404", "/p/src/routes.rs"),
        ("fix the failing test please", "/p/src/auth/a.rs"),
    ] {
        let mut lines = big_work("implement OAuth login with GitHub", "/p/src/auth", report);
        lines.push(user("u3", task));
        lines.push(edit("a3", path));
        lines.push(done("r3"));
        lines.push(said("a4", fixed));
        assert_eq!(outcome(&claude(&lines)), fixed, "{task}");
    }
    // After work in one file, the next task is as much the session's.
    let mut lines = work("add exponential backoff", "/p/src/pay.rs", "Added backoff.");
    lines.push(user("u3", "also fix the typo in the README"));
    lines.push(edit("a3", "/p/README.md"));
    lines.push(done("r3"));
    lines.push(said("a4", fixed));
    assert_eq!(outcome(&claude(&lines)), fixed);
}
