//! What OpenClaw's gateway hands its agent in a user message besides the
//! person's words: untrusted-metadata envelopes, `[message_id: …]` lines,
//! `System:` notices, media hints, chat mentions, and its own prompts
//! (heartbeats, resets, retries, cron reminders, boot checks).
//!
//! Owns: those text rules, which drift with OpenClaw's releases. Must not:
//! parse JSON lines (pi's reader does, and asks for these through the registry).

use crate::transcript::clean::{is_interruption, keep, person};

/// A chat message as OpenClaw hands it to its agent: the untrusted-metadata
/// envelopes, `[message_id: …]` line, `System:` notices and media hints taken
/// away, the sender's prefix dropped; `None` for heartbeats and memory flushes.
pub fn user_text(text: &str) -> Option<String> {
    let text = text.trim();
    if is_heartbeat(text) || is_harness_prompt(text) || is_interruption(text) {
        return None;
    }
    // A group chat's backlog, then the message the agent answers.
    let text = text
        .split_once("[Current message - respond to this]")
        .map_or(text, |(_, current)| current.trim());
    let (body, senders) = strip_untrusted_envelopes(text);
    let mut lines: Vec<&str> = Vec::new();
    let mut skipping_hint = false;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("System:")
            || t.starts_with("System (untrusted):")
            || HARNESS_NOTES.iter().any(|n| t.starts_with(n))
        {
            continue;
        }
        if t.starts_with("[message_id:") || t.starts_with("[media attached") {
            if t.starts_with("[media attached") {
                lines.push("[media attached]");
            }
            continue;
        }
        if t.starts_with("To send an image back") {
            skipping_hint = true;
            continue;
        }
        if skipping_hint {
            skipping_hint = !t.is_empty() && !t.starts_with("Conversation");
            if skipping_hint {
                continue;
            }
        }
        lines.push(line);
    }
    let mut out = at_mentions(lines.join("\n").trim());
    for sender in senders {
        if let Some(rest) = out.strip_prefix(&format!("{sender}: ")) {
            out = rest.to_string();
            break;
        }
    }
    if out == "[media attached]" {
        return keep(out);
    }
    // A harness prompt or heartbeat behind `System:` notices is still the
    // harness's, and so is a reminder below the lines of the notice it repeats.
    let reminder = |p: &str| p.lines().any(|l| l.starts_with(CRON_REMINDER));
    person(&out).filter(|p| !is_harness_prompt(p) && !is_heartbeat(p) && !reminder(p))
}

/// Lines OpenClaw puts before a person's message about the run, not from them.
const HARNESS_NOTES: &[&str] = &["Note: The previous agent run was aborted by the user."];

/// What OpenClaw (and pi under it) sends its agent in the person's place: a
/// reset's greeting order, retries, continuations, a sub-agent's result, a
/// memory flush. Prefixes of its prompt constants, 2026.1 to 2026.9.
const HARNESS_PROMPTS: &[&str] = &[
    "A new session was started via /new or /reset",
    "Pre-compaction memory flush",
    "Continue the current task from the existing transcript",
    "Continue from the recovered transcript",
    "Continue the OpenClaw runtime event",
    "Continue pursuing the current goal.",
    "The previous attempt did not produce a user-visible answer",
    "The previous attempt compacted the conversation context",
    "The previous assistant turn recorded reasoning but did not produce",
    "The previous assistant turn completed its tool calls but did not produce",
    "Before accepting the previous final answer",
    "A completed subagent task is ready for parent review",
    "An approved async exec completed",
    "Run the following periodic tasks",
    "Reply with OK. Do not use tools.",
    "Reply with the single word OK.",
    // A cron reminder (after the `System:` notice that repeats it) and the
    // start-up check of a workspace's BOOT.md.
    CRON_REMINDER,
    BOOT_CHECK,
    // The first message of a bot hatched in the TUI.
    "Wake up, my friend!",
];

const CRON_REMINDER: &str = "A scheduled reminder has been triggered.";
const BOOT_CHECK: &str = "You are running a boot check.";

/// Whether a user turn is a chore the harness sets its agent on schedule (a
/// heartbeat poll, a cron reminder, a boot check): what the agent runs for
/// it (forty calendar lookups) is no part of the person's thread.
pub fn is_chore(text: &str) -> bool {
    let (body, _) = strip_untrusted_envelopes(text.trim());
    body.lines()
        .map(str::trim_start)
        .any(|l| is_heartbeat(l) || l.starts_with(CRON_REMINDER) || l.starts_with(BOOT_CHECK))
}

/// Whether a user turn is one of the harness's own prompts.
fn is_harness_prompt(text: &str) -> bool {
    HARNESS_PROMPTS.iter().any(|p| text.starts_with(p))
}

/// Chat mentions (`<at user_id="ou_1">demo</at>`) as `@demo`.
fn at_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<at ") {
        let Some(open_end) = rest[start..].find('>').map(|i| start + i + 1) else {
            break;
        };
        let Some(close) = rest[open_end..].find("</at>").map(|i| open_end + i) else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push('@');
        out.push_str(rest[open_end..close].trim());
        rest = &rest[close + "</at>".len()..];
    }
    out.push_str(rest);
    out
}

/// Whether a user message is a harness heartbeat poll.
pub fn is_heartbeat(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("[OpenClaw heartbeat poll]")
        || t.starts_with("Read HEARTBEAT.md if it exists")
        || t.starts_with("Follow the heartbeat monitor scratch context")
        // A heartbeat prompt of the person's own config keeps the harness's
        // token and its condition: "If nothing needs attention, reply HEARTBEAT_OK."
        || (t.contains("HEARTBEAT_OK") && t.to_lowercase().contains("nothing needs"))
        || t == "HEARTBEAT"
}

/// Removes `Label (untrusted …):` followed by a fenced JSON block, returning
/// the rest and the sender names the blocks declared.
fn strip_untrusted_envelopes(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut senders = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find("(untrusted") {
        let line_start = rest[..pos].rfind('\n').map_or(0, |i| i + 1);
        let Some(fence) = rest[pos..].find("```") else {
            break;
        };
        let fence_at = pos + fence;
        let Some(close) = rest[fence_at + 3..].find("```") else {
            break;
        };
        let block_end = fence_at + 3 + close + 3;
        let json = &rest[fence_at + 3..fence_at + 3 + close];
        let json = json.trim_start_matches("json").trim();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
            for key in ["sender", "name", "label", "id", "sender_id"] {
                if let Some(s) = v.get(key).and_then(serde_json::Value::as_str) {
                    senders.push(s.to_string());
                }
            }
        }
        out.push_str(&rest[..line_start]);
        rest = &rest[block_end..];
    }
    out.push_str(rest);
    senders.sort_by_key(|s| std::cmp::Reverse(s.len()));
    senders.dedup();
    (out, senders)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::clean::assistant;

    #[test]
    fn openclaw_envelopes_are_unwrapped_to_the_message() {
        let t = "Conversation info (untrusted metadata):\n```json\n{\n  \"message_id\": \"om_1\",\n  \"sender\": \"ou_0bc2\"\n}\n```\n\nSender (untrusted metadata):\n```json\n{\n  \"label\": \"ou_0bc2\",\n  \"name\": \"ou_0bc2\"\n}\n```\n\n[message_id: om_1]\nou_0bc2: 给我出一个 codex 的大纲";
        assert_eq!(user_text(t).as_deref(), Some("给我出一个 codex 的大纲"));
        assert_eq!(user_text("[OpenClaw heartbeat poll]"), None);
        assert_eq!(
            user_text("System: [2026-03-18 14:31:17 GMT+8] Exec completed\n\nfix the gateway")
                .as_deref(),
            Some("fix the gateway")
        );
        assert_eq!(assistant("HEARTBEAT_OK"), None);
        assert_eq!(
            assistant("<final>\n我是 demo").as_deref(),
            Some("我是 demo")
        );
    }

    #[test]
    fn openclaw_own_prompts_are_not_the_persons_request() {
        for prompt in [
            "A new session was started via /new or /reset. Say hi briefly (1-2 sentences) and ask what the user wants to do next.",
            "A new session was started via /new or /reset. Execute your Session Startup sequence now - read the required files before responding to the user.",
            "Follow the heartbeat monitor scratch context when provided. If nothing needs attention, reply NO_REPLY.",
            "Continue the current task from the existing transcript, preserving completed work.",
            "Wake up, my friend!",
            "Check the shop's orders and my calendar. If nothing needs attention, reply HEARTBEAT_OK.",
        ] {
            // Behind any of the notices OpenClaw puts first, and with its id line after.
            for before in [
                "",
                "System: [2026-01-31 13:34:27 GMT+9] WhatsApp gateway connected.\n\n",
                "System: [2026-03-23 23:03:04 UTC] Exec completed (swift-sh, code 0) :: ok\nSystem: [2026-03-23 23:04:10 UTC] Exec completed (tidy-bay, code 1) :: no\n\n",
                "Note: The previous agent run was aborted by the user. Resume carefully or ask for clarification.\n\n",
            ] {
                let text = format!("{before}{prompt}\n[message_id: b802f64b]");
                assert_eq!(user_text(&text), None, "{text}");
            }
        }
        assert_eq!(
            user_text("Note: The previous agent run was aborted by the user. Resume carefully or ask for clarification.\n\n[WhatsApp +59168779297 +2m 2026-02-03 17:30 UTC] find three hotels in Potosi").as_deref(),
            Some("find three hotels in Potosi")
        );
        // The person's words keep their place, even when they quote a prompt.
        assert_eq!(
            user_text("why did you say: A new session was started?").as_deref(),
            Some("why did you say: A new session was started?")
        );
    }

    #[test]
    fn a_group_chat_backlog_gives_way_to_the_message_being_answered() {
        let t = "[Chat messages since your last reply - for context]\n[WhatsApp Bo 2026-03-01 09:00] lunch?\n\n[Current message - respond to this]\n[WhatsApp Ana 2026-03-01 09:02] deploy the bot to staging";
        assert_eq!(user_text(t).as_deref(), Some("deploy the bot to staging"));
    }
}
