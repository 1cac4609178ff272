//! Manners, not matter: thanks and praise ("Fantastic, well reported."), an
//! acknowledgement ("OK", "好的", "承知しました。") and an acknowledging clause
//! before what a sentence says ("Sure, I fixed it.").
//!
//! Owns: the words of courtesy and acknowledgement in the languages the
//! harnesses are used in. Must not: choose the outcome.

/// Thanks or praise alone ("Fantastic, well reported.", "Thanks!").
pub(crate) fn is_courtesy(sentence: &str) -> bool {
    const WORDS: &[&str] = &[
        "fantastic",
        "great",
        "perfect",
        "thanks",
        "thank",
        "you",
        "awesome",
        "nice",
        "good",
        "job",
        "well",
        "done",
        "reported",
        "excellent",
        "ok",
        "okay",
        "cool",
        "wonderful",
        "amazing",
        "brilliant",
        "so",
        "much",
        "very",
        "that",
        "works",
        "worked",
        "looks",
        "谢谢",
        "感谢",
        "多谢",
        "ありがとう",
        "감사합니다",
        "고마워",
        "merci",
        "danke",
        "gracias",
        "grazie",
        "obrigado",
        "спасибо",
        // Good-byes close a session as thanks do.
        "fine",
        "alright",
        "bye",
        "goodbye",
        "see",
        "later",
        "soon",
        "cya",
        "and",
        "再见",
        "拜拜",
        "またね",
        "さようなら",
        "안녕히",
        "tchau",
        "adiós",
        "adios",
        "tschüss",
        "пока",
    ];
    only_words(sentence, WORDS, 6)
}

/// A short sentence that opens with thanks ("thanks for last time!",
/// "谢谢你昨天的帮助！"): manners before the ask, not the ask ("thanks to
/// the cache…" is no thanks).
pub(crate) fn is_thanks(sentence: &str) -> bool {
    const THANKS: &[&str] = &[
        "thanks",
        "thank you",
        "thx",
        "merci",
        "danke",
        "gracias",
        "grazie",
        "obrigad",
        "спасибо",
        "dank",
        "cảm ơn",
        "谢谢",
        "感谢",
        "多谢",
        "ありがとう",
        "감사",
        "고마",
    ];
    let lower = sentence.trim().to_lowercase();
    THANKS.iter().any(|w| lower.starts_with(w))
        && !lower.starts_with("thanks to ")
        && !lower.ends_with(['?', '？'])
        && crate::sentence::word_count(&lower) <= 8
}

/// Whether every word of `sentence` (at most `max`, at least one) is in `words`.
pub(crate) fn only_words(sentence: &str, words: &[&str], max: usize) -> bool {
    let found: Vec<String> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    !found.is_empty() && found.len() <= max && found.iter().all(|w| words.contains(&w.as_str()))
}

/// A reply or sentence that only acknowledges ("OK", "Done.", "好的",
/// "네, 알겠습니다.", "承知しました。", "👍").
pub(crate) fn is_acknowledgement(reply: &str) -> bool {
    let t = bare(reply);
    !t.is_empty()
        && (t.chars().count() <= 3
            || ACKS.contains(&t.to_lowercase().as_str())
            || is_bare_completion(t))
}

/// A reply that only agrees to do what was asked ("Certainly!", "Master,
/// as you wish.", "遵命，主人。"): not a status line ("✅ Done"), which
/// reports.
pub(crate) fn only_complies(reply: &str) -> bool {
    let t = bare(reply).to_lowercase();
    ACKS.contains(&t.as_str()) && t != "done"
}

/// A reply as the acknowledgement checks read it: without the title it
/// addresses the person by and without its closing marks.
pub(super) fn bare(reply: &str) -> &str {
    without_address(reply.trim())
        .trim_end_matches(['.', '!', '。', '！', '、', ','])
        .trim()
}

/// A reply without the title it addresses the person by, before or after
/// it ("Master, as you wish.", "遵命，主人。").
fn without_address(reply: &str) -> &str {
    const TITLES: &[&str] = &[
        "master",
        "sir",
        "madam",
        "boss",
        "captain",
        "chief",
        "my lord",
        "主人",
        "老板",
        "大人",
        "ご主人様",
        "주인님",
        "사장님",
        "господин",
        "señor",
        "monsieur",
    ];
    let lower = reply.to_lowercase();
    for title in TITLES {
        if lower.starts_with(title)
            && let Some(rest) = reply
                .get(title.len()..)
                .and_then(|r| r.strip_prefix([',', '，', '!', '！']))
        {
            return rest.trim();
        }
        let bare = lower.trim_end_matches(['.', '!', '。', '！']);
        if let Some(head) = bare.strip_suffix(title)
            && let Some(head) = head.trim_end().strip_suffix([',', '，', '、'])
        {
            return reply.get(..head.len()).map_or(reply, str::trim);
        }
    }
    reply
}

/// "I've successfully completed the task.", "All requested changes have
/// been implemented.": finished, and nothing named but the task itself.
fn is_generic_completion(words: &[&str]) -> bool {
    const DONE: &[&str] = &[
        "completed",
        "complete",
        "finished",
        "done",
        "implemented",
        "applied",
        "made",
        "smoothly",
        "succeeded",
        "successful",
        "worked",
        "perfectly",
    ];
    const GENERIC: &[&str] = &[
        // "Great news — everything went smoothly!"
        "great",
        "good",
        "news",
        "went",
        "without",
        "any",
        "issues",
        "problems",
        "i",
        "ve",
        "have",
        "has",
        "been",
        "successfully",
        "the",
        "task",
        "tasks",
        "request",
        "requested",
        "changes",
        "change",
        "work",
        "everything",
        "all",
        "it",
        "is",
        "are",
        "now",
        "were",
        "was",
        "as",
        "you",
        "your",
        "asked",
        "for",
        "my",
        "this",
        "that",
        // "All implementation phases are complete.": the plan's own parts.
        "implementation",
        "phases",
        "phase",
        "steps",
        "step",
        "items",
        "item",
        "todos",
        "planned",
        "of",
        "every",
    ];
    (2..=9).contains(&words.len())
        && words.iter().any(|w| DONE.contains(w))
        && words
            .iter()
            .all(|w| DONE.contains(w) || GENERIC.contains(w))
}

/// A reply that says work is finished and names nothing of it: "Filled and
/// validated.", "Updated.", "All set!", "Готово.", "完成了", "Erledigt.".
/// Bare participles and finishing words, at most four.
fn is_bare_completion(reply: &str) -> bool {
    const FINISHED: &[&str] = &[
        "done",
        "built",
        "set",
        "made",
        "run",
        "written",
        "sent",
        "complete",
        "ready",
        "all",
        "and",
        "both",
        "now",
        "готово",
        "сделано",
        "выполнено",
        "fertig",
        "erledigt",
        "fait",
        "terminé",
        "hecho",
        "listo",
        "pronto",
        "feito",
        "klaar",
        "gedaan",
        "xong",
        "rồi",
    ];
    const FINISHED_CJK: &[&str] = &[
        "完成",
        "完成了",
        "已完成",
        "搞定",
        "搞定了",
        "好了",
        "完了",
        "完了しました",
        "できました",
        "완료",
        "완료했습니다",
        "끝났습니다",
        "완료되었습니다",
        "완료됐습니다",
        "작업이 완료되었습니다",
        "任务完成",
        "已经完成了",
        "我已经完成了",
        "已经搞定了",
        "我已经搞定了",
        "都完成了",
        "全部完成了",
        "任务已完成",
        "全部完成",
        "作業が完了しました",
        "全て完了しました",
    ];
    let lower = reply.to_lowercase();
    if FINISHED_CJK.contains(&lower.as_str()) {
        return true;
    }
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '&')
        .filter(|w| !w.is_empty())
        .collect();
    if is_generic_completion(&words) {
        return true;
    }
    let participle = |w: &str| w.len() >= 5 && w.ends_with("ed") && w.is_ascii();
    (1..=4).contains(&words.len())
        && words.iter().any(|w| participle(w) || FINISHED.contains(w))
        && words
            .iter()
            .all(|w| participle(w) || FINISHED.contains(w) || *w == "&")
}

/// A sentence past its acknowledging clause: "好的，我已经修复了…" says
/// "我已经修复了…", "Sure, I fixed it." says "I fixed it.".
pub(crate) fn past_acknowledging_clause(sentence: &str) -> &str {
    let Some((i, mark)) = [", ", "，", "、", "! ", "！"]
        .iter()
        .filter_map(|m| sentence.find(m).map(|i| (i, *m)))
        .min()
    else {
        return sentence;
    };
    let head = sentence[..i].trim().to_lowercase();
    let rest = sentence[i + mark.len()..].trim_start();
    // "Yes, it is saved on disk." answers a question: the "Yes" is the answer.
    let acknowledges = (ACKS.contains(&head.as_str()) && head != "yes") || is_courtesy(&head);
    if acknowledges && crate::sentence::word_count(rest) >= 3 {
        rest
    } else {
        sentence
    }
}

/// Words that only acknowledge, in the languages the harnesses are used in.
const ACKS: &[&str] = &[
    "ok",
    "okay",
    "done",
    "sure",
    "certainly",
    "of course",
    "absolutely",
    "alright",
    "all right",
    "当然",
    "没问题",
    "もちろん",
    "물론이죠",
    "물론입니다",
    "yes",
    "got it",
    "noted",
    "understood",
    "will do",
    "好的",
    "好",
    "收到",
    "明白了",
    "明白",
    "了解",
    "はい",
    "了解です",
    "了解しました",
    "承知しました",
    "かしこまりました",
    "わかりました",
    "네",
    "네, 알겠습니다",
    "알겠습니다",
    "네 알겠습니다",
    "понял",
    "хорошо",
    "d'accord",
    "entendido",
    "compris",
    "bien compris",
    "entendi",
    "capito",
    "claro",
    "verstanden",
    "as you wish",
    "at your service",
    "with pleasure",
    "my pleasure",
    "right away",
    "遵命",
];
