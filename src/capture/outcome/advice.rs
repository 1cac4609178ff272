//! Advice: a sentence that tells the person what to do ("Switch to the
//! maintained fork.", "To fix this, …", "建议改用 …"). An answer that finds
//! what is wrong and then advises keeps the advice with the finding.
//!
//! Owns: telling advice from other sentences. Must not: join it to
//! anything (the report and the gist do).

/// Whether a sentence tells the person what to do: it opens with a verb
/// to do it by ("Switch to …", "Install …", "Pin react to 18.2."), "To
/// fix this, …", "You need to …", or its like in the languages capture
/// reads ("建议改用 …", "Usa …", "Installe …").
pub(crate) fn is_advice(sentence: &str) -> bool {
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
        "create ",
        "either ",
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
        "ejecuta ",
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
        "先用",
        "运行",
        "执行",
    ];
    let lower = sentence.trim_start().to_lowercase();
    let asks_back = lower.trim_end().ends_with(['?', '？']);
    !asks_back && OPENERS.iter().any(|o| lower.starts_with(o))
}
