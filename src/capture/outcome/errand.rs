//! A trailing errand: a routine step the person asks for after the work was
//! reported ("push it", "also run the tests", "open a PR"). Its reply
//! ("Pushed to origin/main.") is not what came of the session; the report
//! before it is, and the summary tells the errand after it.
//!
//! Owns: recognising an errand from the person's words. Must not: choose
//! the report (the outcome module does).

use super::lead::{after_phrase, folded};

/// Words before the errand itself ("ok, now also …").
const FILLERS: &[&str] = &[
    "ок",
    "хорошо",
    "теперь",
    "vale",
    "ahora",
    "ora",
    "jetzt",
    "bitte",
    "ok",
    "okay",
    "great",
    "perfect",
    "nice",
    "cool",
    "good",
    "thanks",
    "thank you",
    "now",
    "also",
    "and",
    "then",
    "please",
    "pls",
    "can you",
    "could you",
    "would you",
    "go ahead and",
    "let's",
    "lets",
    "finally",
    "next",
    "好的",
    "好",
    "然后",
    "再",
    "请",
    "帮我",
    "네",
    "좋아요",
    "좋아",
    "그럼",
];

/// How routine steps start, in the languages the harnesses are used in.
const ERRANDS: &[&str] = &[
    "push",
    "git push",
    "commit",
    "git commit",
    "run the tests",
    "run tests",
    "run the test suite",
    "run the linter",
    "run lint",
    "run clippy",
    "run cargo test",
    "run cargo fmt",
    "run cargo clippy",
    "run npm test",
    "run pytest",
    "run the build",
    "lint",
    "format the code",
    "open a pr",
    "open a pull request",
    "create a pr",
    "create a pull request",
    "make a pr",
    "raise a pr",
    "merge it",
    "merge the pr",
    "deploy",
    "tag ",
    "bump the version",
    "update the changelog",
    "add a changelog entry",
    "update the readme",
    "rebase",
    "ship it",
    "提交",
    "推送",
    "运行测试",
    "跑一下测试",
    "跑测试",
    "커밋",
    "푸시",
    "테스트 실행",
    "コミット",
    "プッシュ",
    "テストを実行",
    "закоммить",
    "запушь",
    "сделай коммит",
    "запусти тесты",
    "haz commit",
    "haz push",
    "sube los cambios",
    "fai il commit",
    "fai commit",
    "fai il push",
    "committe",
    "pushe",
    "fais un commit",
    "faz commit",
    "faz push",
];

/// Whether the person's message asks only for a routine step.
pub(super) fn is_errand(text: &str) -> bool {
    let lower = folded(text.trim());
    if crate::sentence::word_count(&lower) > 10 || lower.contains('\n') {
        return false;
    }
    let mut rest = lower.as_str();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || ",.!;:-，。！、".contains(c));
        match FILLERS.iter().find_map(|f| after_phrase(rest, f)) {
            Some(after) => rest = after,
            None => break,
        }
    }
    ERRANDS.iter().any(|e| after_phrase(rest, e).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_steps_after_the_work_are_errands_and_new_work_is_not() {
        for errand in [
            "push it",
            "ok, now push",
            "also run the tests",
            "Great, can you open a PR?",
            "commit and push",
            "thanks! update the changelog",
            "好的，提交一下",
            "커밋해줘",
            "ок, закоммить",
            "fai il commit e il push",
        ] {
            assert!(is_errand(errand), "{errand}");
        }
        for work in [
            "pushing to the queue drops messages, fix it",
            "now add a --verbose flag",
            "the tests fail on CI with a timeout in pool.rs, look into why and fix the fixture",
            "yes please",
            "committee names are wrong in the report",
            "deployment docs are stale\nplease rewrite them",
        ] {
            assert!(!is_errand(work), "{work}");
        }
    }
}
