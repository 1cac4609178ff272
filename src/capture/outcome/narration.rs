//! Narration: a sentence that announces what the agent is about to do ("I'll
//! …", "Let me …", "…하겠습니다", "…します") instead of reporting what it did.
//!
//! Owns: recognising it from how the sentence opens or ends. Must not:
//! choose the outcome (`outcome` does, by position first).

/// Openings of a sentence that announces work instead of reporting it.
const INTENT_OPENINGS: &[&str] = &[
    "i'll ",
    "i will ",
    "let me ",
    "let's ",
    "now i'll ",
    "now i will ",
    "now let me ",
    "now i need to ",
    "now i ",
    "next, i",
    "next i",
    "first, i",
    "first i",
    "i'm going to ",
    "i am going to ",
    "i need to ",
    "i'll now ",
    "okay, let me",
    "ok, let me",
    "great, let me",
    "perfect! let me",
    "perfect! now",
    "i'm checking ",
    "i'm inspecting ",
    "i'm looking ",
    "i'm reading ",
    "i'm searching ",
    "continuing ",
    "proceeding ",
    "moving on ",
    "now continuing ",
    "now proceeding ",
    "now moving on ",
    "we will ",
    "we'll ",
    "we need to ",
    "роблю",
    "делаю",
    "зараз ",
    // French, German, Spanish, Portuguese, Italian, Dutch, Russian, Vietnamese.
    "je vais ",
    "laissez-moi ",
    "laisse-moi ",
    "ich werde ",
    "lass mich ",
    "lassen sie mich ",
    "voy a ",
    "déjame ",
    "vamos a ",
    "vou ",
    "deixe-me ",
    "deixa eu ",
    "vado a ",
    "lasciami ",
    "ik ga ",
    "laat me ",
    "сейчас я ",
    "давайте ",
    "позвольте ",
    "tôi sẽ ",
    "để tôi ",
    "我来",
    "让我",
    "现在让我",
    "现在查看",
    "现在检查",
    "现在看看",
    "继续查看",
    "继续检查",
    "接着看",
    "現在讓我",
    "讓我",
    "我将",
    "我將",
    "我会",
    "我會",
    "我先",
    "接下来",
    "下面我",
    "现在我",
    "現在我",
    "首先",
    "まず",
    "次に",
    "では、",
    "それでは",
    "먼저",
    "이제 ",
    "다음으로",
    "다음 단계로",
];

/// Openings that are courtesy, before what a sentence really says.
const COURTESY: &[&str] = &[
    "as per your request, ",
    "as requested, ",
    "sure, ",
    "sure! ",
    "certainly, ",
    "certainly! ",
    "of course, ",
    "of course! ",
    "absolutely, ",
    "absolutely! ",
    "alright, ",
    "all right, ",
];

/// Endings of a sentence that announces work: Japanese "…します" / "…しましょう"
/// / "…していきます", Korean "…하겠습니다" / "…할게요" / "…하겠습니다.".
const INTENT_ENDINGS: &[&str] = &[
    "します",
    "しましょう",
    "していきます",
    "してみます",
    "確認します",
    "하겠습니다",
    "할게요",
    "하겠어요",
    "해보겠습니다",
    "살펴보겠습니다",
];

/// Whether a paragraph or sentence announces what the agent is about to do.
pub fn is_narration(text: &str) -> bool {
    let t = text.trim().trim_start_matches(['*', '-', '>', ' ']);
    let lower = super::lead::folded(t);
    // "As per your request, I'll provide …": the courtesy does not make it a report.
    let lower = COURTESY
        .iter()
        .find_map(|c| lower.strip_prefix(c))
        .map_or(lower.clone(), str::to_string);
    let first_sentence = lower[..first_sentence_end(&lower)].trim();
    let core = first_sentence.trim_end_matches(['.', '!', '?', '。', '！', '？', '…', ' ']);
    // A lead-in ending in a colon is not narration here: before a tool call
    // it is outside the report already, and inside it it introduces the
    // result ("Here is metrics_check.py:"), which the outcome joins.
    let opens = |text: &str| {
        INTENT_OPENINGS
            .iter()
            .any(|o| super::lead::after_phrase(text, o).is_some())
            || in_progress(text)
    };
    opens(&lower)
        || past_purpose_or_manners(&lower).is_some_and(opens)
        || INTENT_ENDINGS.iter().any(|e| core.ends_with(e))
}

/// "I'm making the deprecation concrete now: …", "I am updating the
/// docs.", "Now delegating the RED phase…": work going on, told as it
/// happens.
fn in_progress(lower: &str) -> bool {
    let rest = ["i'm ", "i am ", "now "]
        .iter()
        .find_map(|p| lower.strip_prefix(p));
    const DOING: &[&str] = &[
        "making",
        "updating",
        "adding",
        "fixing",
        "running",
        "writing",
        "creating",
        "implementing",
        "working",
        "building",
        "applying",
        "moving",
        "preparing",
        "starting",
        "continuing",
        "proceeding",
        "testing",
        "patching",
        "wiring",
        "refactoring",
        "removing",
        "installing",
        "setting",
        "switching",
        "converting",
        "tightening",
        "delegating",
        "checking",
        "looking",
        "reading",
        "verifying",
        "waiting",
        "launching",
        "dispatching",
    ];
    rest.and_then(|r| r.split_whitespace().next())
        .is_some_and(|verb| DOING.contains(&verb))
}

/// What a sentence says after a purpose clause or manners before it: "to
/// assist with the packages, I will follow these steps" and "好问题，让我
/// 深度思考一下" announce work as much as "I will …" does.
fn past_purpose_or_manners(lower: &str) -> Option<&str> {
    const PURPOSE: &[&str] = &[
        "to ",
        "in order to ",
        "para ",
        "pour ",
        "um ",
        "为了",
        "為了",
    ];
    const MANNERS: &[&str] = &[
        "good question",
        "great question",
        "got it",
        "understood",
        "okay",
        "ok",
        "you're right",
        "you are right",
        "good point",
        "fair point",
        "你说得对",
        "你說得對",
        "说得对",
        "有道理",
        "好问题",
        "好問題",
        "明白",
        "收到",
        "好的",
    ];
    let (head, rest) = [", ", "，"]
        .iter()
        .filter_map(|m| lower.split_once(m))
        .min_by_key(|(head, _)| head.len())?;
    let purpose = PURPOSE.iter().any(|p| head.starts_with(p));
    let manners = MANNERS.contains(&head.trim_end_matches(['!', '！']));
    ((purpose || manners) && crate::sentence::word_count(head) <= 12).then(|| rest.trim_start())
}

/// Where a text's first sentence ends: as the sentence module ends one,
/// and at the end of its first line at the latest.
pub(super) fn first_sentence_end(text: &str) -> usize {
    let line = text.split_inclusive('\n').next().unwrap_or(text);
    crate::sentence::first_sentence_end(line)
}
