//! What chat bridges, schedulers and queues put before a person's words:
//! `[Telegram Ana (@ana) id:42 2026-02-09 18:46 GMT+1] hi`, `[Thu 2026-03-05
//! 21:54 GMT+8] …`, `[cron:<id> nightly report] …`, `[Queued messages while
//! agent was busy]` with its `---` / `Queued #1` lines, `[System: …]`, and the
//! "Full transcript available at …" line a Claude Code task notification
//! leaves. Taken off, so the request is what the person (or the job) asked.
//!
//! Owns: the text rules for envelopes. Must not: parse JSON lines.

/// Chat networks whose name opens a bridge's envelope.
const NETWORKS: &[&str] = &[
    "telegram",
    "whatsapp",
    "discord",
    "slack",
    "signal",
    "imessage",
    "feishu",
    "lark",
    "wechat",
    "weixin",
    "matrix",
    "teams",
    "line",
    "google chat",
    "mattermost",
    "dingtalk",
    "qq",
    "email",
    "sms",
    "webchat",
    "zalo",
    "messenger",
    "instagram",
    "viber",
    "kakaotalk",
    "irc",
    "nostr",
    "bluebubbles",
    "nextcloud",
];

/// Lines a harness adds around a message, dropped wherever they stand.
const HARNESS_LINES: &[&str] = &[
    "Full transcript available at",
    "Read the output file to retrieve the result",
];

/// `Use the "report" skill for this request.`: the line a harness adds when
/// a skill is invoked for the person's words, not their words.
fn is_skill_trigger(line: &str) -> bool {
    let line = line.trim().trim_end_matches('.');
    line.strip_prefix("Use the ")
        .and_then(|rest| rest.strip_suffix(" skill for this request"))
        .is_some_and(|name| name.len() > 2 && name.starts_with(['"', '`', '\'']))
}

/// The person's words without the envelopes before them.
pub fn unwrap(text: &str) -> String {
    let mut rest = text.trim_start();
    let mut described = false;
    loop {
        let before = rest;
        if let Some(after) = leading_envelope(rest) {
            rest = after.trim_start();
        }
        if let Some((after, image)) = media_understanding(rest) {
            rest = after.trim_start();
            described |= image;
        }
        // A queue's separators: `---`, `Queued #1`.
        for marker in ["---", "Queued #"] {
            if rest.starts_with(marker) {
                rest = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    // What a model saw in the picture follows the person's words.
    if described && let Some((words, _)) = rest.split_once("Description:") {
        rest = words;
    }
    rest.lines()
        .filter(|l| !HARNESS_LINES.iter().any(|h| l.trim_start().starts_with(h)))
        .filter(|l| !is_skill_trigger(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// Who a chat bridge's envelope says sent the message: the words between
/// the network's name and the time (`[WhatsApp +51935507781 +2m 2026-02-03
/// 17:30 UTC]` gives `+51935507781`, a Telegram one `Ana (@ana) id:8812`).
pub fn sender(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim_start();
        let line = media_understanding(line).map_or(line, |(rest, _)| rest.trim_start());
        let inner = &line[1..line.find(']').filter(|_| line.starts_with('['))?];
        let network = network_of(inner, &[' '])?;
        let words: Vec<&str> = inner[network.len()..]
            .split_whitespace()
            .take_while(|w| !is_time_word(w))
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    })
}

/// A word of an envelope's time: `+2m`, `+36s`, `Fri`, `2026-02-03`.
fn is_time_word(word: &str) -> bool {
    const DAYS: &[&str] = &["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let delta = word.strip_prefix('+').is_some_and(|d| {
        d.len() <= 4
            && d.ends_with(['s', 'm', 'h', 'd'])
            && d[..d.len() - 1].bytes().all(|b| b.is_ascii_digit())
    });
    delta || DAYS.contains(&word) || has_date_time(&format!("{word} 00:00"))
}

/// The text after the mark of a bridge's media understanding (`[Image]
/// User text: …`, `[Audio]\nTranscript: …`), and whether a model's
/// description of a picture or video follows the words.
fn media_understanding(text: &str) -> Option<(&str, bool)> {
    let (kind, rest) = ["[Image]", "[Video]", "[Audio]", "[Document]", "[File]"]
        .iter()
        .find_map(|k| Some((*k, text.strip_prefix(k)?)))?;
    let rest = rest.trim_start();
    let rest = ["User text:", "Transcript:"]
        .iter()
        .find_map(|mark| rest.strip_prefix(mark))
        .unwrap_or(rest);
    Some((rest, matches!(kind, "[Image]" | "[Video]")))
}

/// The text after a leading `[…]` that is an envelope, not the person's.
fn leading_envelope(text: &str) -> Option<&str> {
    let inner_end = text.strip_prefix('[')?.find(']')? + 1;
    let inner = &text[1..inner_end];
    if inner.contains('\n') || inner.len() > 300 {
        return None;
    }
    let lower = inner.to_lowercase();
    let envelope = has_date_time(inner)
        || lower.starts_with("cron:")
        || lower.starts_with("queued messages")
        || lower.starts_with("system:")
        || lower.starts_with("heartbeat")
        || network_of(inner, &[' ', ':']).is_some();
    envelope.then(|| &text[inner_end + 1..])
}

/// The chat network an envelope opens with (`WhatsApp +5916…`,
/// `Telegram: …`), followed by one of `then`.
fn network_of(inner: &str, then: &[char]) -> Option<&'static str> {
    let lower = inner.to_lowercase();
    NETWORKS
        .iter()
        .find(|n| lower.starts_with(*n) && lower[n.len()..].starts_with(then))
        .copied()
}

/// `2026-02-09 18:46` or `2026-02-09T18:46` somewhere in the text.
fn has_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    (0..b.len()).any(|i| {
        digits(i..i + 4)
            && b.get(i + 4) == Some(&b'-')
            && digits(i + 5..i + 7)
            && b.get(i + 7) == Some(&b'-')
            && digits(i + 8..i + 10)
            && matches!(b.get(i + 10), Some(b' ' | b'T'))
            && digits(i + 11..i + 12)
            && (b.get(i + 12) == Some(&b':')
                || (digits(i + 12..i + 13) && b.get(i + 13) == Some(&b':')))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_scheduler_and_queue_envelopes_give_way_to_the_words() {
        for (wrapped, words) in [
            (
                "[Telegram Ana Lima (@ana) id:8812 2026-02-09 18:46 GMT+1] fix the cron backup",
                "fix the cron backup",
            ),
            (
                "[Thu 2026-03-05 21:54 GMT+8] 帮我整理一下周报",
                "帮我整理一下周报",
            ),
            (
                "[cron:1f0c2a7e-9b1d-4c55-8e0f-3a2b1c0d9e8f nightly report] Summarise yesterday's errors",
                "Summarise yesterday's errors",
            ),
            (
                "[Queued messages while agent was busy]\n\n---\nQueued #1\nalso update the README",
                "also update the README",
            ),
            (
                "[System: restarted] [Feishu 张三 2026-03-01 09:00] 部署到测试环境",
                "部署到测试环境",
            ),
            (
                "[Image] User text: [Telegram Akan (@ak) id:76 +7m Fri 2026-02-20 09:12 GMT+1] build me a LinkedIn agent Description: Screenshot of a chat.",
                "build me a LinkedIn agent",
            ),
            (
                "Summarise the run.\nFull transcript available at: /tmp/x.output",
                "Summarise the run.",
            ),
            (
                "[Audio]\nTranscript: can you check if the backup ran last night",
                "can you check if the backup ran last night",
            ),
        ] {
            assert_eq!(unwrap(wrapped), words, "{wrapped}");
        }
    }

    #[test]
    fn the_sender_is_read_from_a_bridges_envelope() {
        for (text, want) in [
            (
                "System: [2026-02-03 17:23:11 UTC] WhatsApp gateway connected.\n\n[WhatsApp +51935507781 2026-02-03 17:24 UTC] Anna tu es la ?",
                Some("+51935507781"),
            ),
            (
                "[WhatsApp +59168779297 +36s 2026-02-03 17:25 UTC] Buenas tardes",
                Some("+59168779297"),
            ),
            (
                "[Image] User text: [Telegram Akan (@ak) id:76 +7m Fri 2026-02-20 09:12 GMT+1] hi",
                Some("Akan (@ak) id:76"),
            ),
            ("[Thu 2026-03-05 21:54 GMT+8] 帮我整理一下周报", None),
            ("fix the parser", None),
        ] {
            assert_eq!(sender(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn brackets_that_are_the_persons_words_stay() {
        for text in [
            "[WIP] fix the parser",
            "[1, 2, 3] is the input",
            "[draft] 2026 plan",
        ] {
            assert_eq!(unwrap(text), text);
        }
    }
}
