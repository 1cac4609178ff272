//! What a Claude Code user message holds besides the person's words: the
//! tags it wraps reminders, command output and IDE context in, and the
//! markup of a slash command.

use crate::transcript::clean::{
    CONTROL_COMMANDS, between, is_interruption, keep, person, strip_blocks,
};

/// Claude Code tags whose whole content is the harness's, wherever they stand.
const CLAUDE_BLOCKS: &[&str] = &[
    "system-reminder",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-stdout",
    "bash-stderr",
    "task-notification",
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
    "user-prompt-submit-hook",
    "command-message",
    "reminder",
];

/// A user message of Claude Code, as the person meant it, or `None` when it
/// holds only harness text.
pub fn user_text(text: &str) -> Option<String> {
    let text = text.trim();
    if text.starts_with("Caveat: The messages below") || is_interruption(text) {
        return None;
    }
    if let Some(cmd) = slash_command(text) {
        return cmd;
    }
    let mut out = strip_blocks(text, CLAUDE_BLOCKS);
    if let Some(input) = between(&out, "<bash-input>", "</bash-input>") {
        out = format!("! {}", input.trim());
    }
    person(&without_markers(&out))
}

/// The person's words without what Claude Code's prompt box put before or
/// after them: the placeholder of a pasted image or text (`[Image #1]`,
/// `[Pasted text #2 +40 lines]`, whose content is elsewhere or gone) and the
/// keywords that set its thinking budget (`ultrathink`, `megathink`), which
/// ask nothing. Inside the words they stay: "see [Image #1]" points at it.
fn without_markers(text: &str) -> String {
    static MARKERS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let marker =
            r"(?:\[(?:Image|Pasted text) #\d+(?: \+\d+ lines)?\]|\b(?:ultra|mega)think\b)[:,.!]?";
        regex::Regex::new(&format!(r"(?i)^(?:\s*{marker})+\s*|\s*(?:{marker}\s*)+$"))
            .expect("pattern compiles")
    });
    // "ultrathink about how to split auth" asks to think about it: the
    // keyword's word for that stays.
    static ABOUT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)^(\s*)(?:ultra|mega)think(\s+(?:about|on|through|over)\s)")
            .expect("pattern compiles")
    });
    let text = ABOUT.replace(text, "${1}think$2");
    MARKERS.replace_all(&text, "").to_string()
}

/// The file whose lines the person selected in their editor, as Claude
/// Code's IDE extension names it ("<ide_selection>The user selected the
/// lines 10 to 20 from /home/dev/shop/src/cart.ts:\n…"); a path may hold
/// spaces and backslashes, and ends at the colon that closes its line.
pub fn selected_file(text: &str) -> Option<String> {
    let inside = between(text, "<ide_selection>", "</ide_selection>")?;
    let line = inside.lines().next()?;
    let (_, path) = line.split_once(" from ")?;
    let path = path.trim().strip_suffix(':')?;
    (!path.is_empty()).then(|| path.to_string())
}

/// `<command-name>/x</command-name><command-args>a</command-args>` as `/x a`;
/// `Some(None)` for a control command, `None` when there is no command markup.
fn slash_command(text: &str) -> Option<Option<String>> {
    let name = between(text, "<command-name>", "</command-name>")?;
    let name = name.trim();
    let name = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    let args = between(text, "<command-args>", "</command-args>").unwrap_or_default();
    if CONTROL_COMMANDS.contains(&name.as_str()) {
        return Some(None);
    }
    let line = format!("{name} {}", args.trim());
    Some(keep(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The class: the prompt box's placeholders and thinking keywords,
    /// before, inside or after the words, in any case: gone, the words stay.
    #[test]
    fn the_prompt_boxs_placeholders_and_thinking_keywords_are_not_the_persons_words() {
        let words = "this button is misaligned on the checkout page, fix it";
        for marker in [
            "[Image #1]",
            "[Image #12]",
            "[Pasted text #2 +40 lines]",
            "ultrathink:",
            "ULTRATHINK",
            "megathink,",
        ] {
            for text in [format!("{marker} {words}"), format!("{words} {marker}")] {
                assert_eq!(user_text(&text).as_deref(), Some(words), "{text:?}");
            }
        }
        for text in [
            "[Image #1] [Image #2] ultrathink: the same bug",
            "the same bug [Image #1] [Image #2]",
        ] {
            assert_eq!(user_text(text).as_deref(), Some("the same bug"), "{text:?}");
        }
        let inside = "see [Image #1] and [Image #2]: the same bug";
        assert_eq!(user_text(inside).as_deref(), Some(inside));
        // Thinking about thinking stays, and so does what to think about.
        let own = "think hard about the cache keys";
        assert_eq!(user_text(own).as_deref(), Some(own));
        for keyword in ["ultrathink", "Megathink"] {
            for about in ["about", "on", "through"] {
                let text = format!("{keyword} {about} how to split the auth module");
                let want = format!("think {about} how to split the auth module");
                assert_eq!(user_text(&text).as_deref(), Some(want.as_str()));
            }
        }
        assert_eq!(user_text("[Image #1]"), None);
    }

    #[test]
    fn slash_commands_keep_the_command_and_its_arguments() {
        let t = "<command-message>erk:plan-implement is running…</command-message>\n<command-name>/erk:plan-implement</command-name>\n<command-args>8107</command-args>";
        assert_eq!(user_text(t).as_deref(), Some("/erk:plan-implement 8107"));
        let clear = "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>";
        assert_eq!(user_text(clear), None);
        assert_eq!(
            user_text("<local-command-stdout></local-command-stdout>"),
            None
        );
        assert_eq!(
            user_text("[Request interrupted by user for tool use]"),
            None
        );
        assert_eq!(
            user_text("fix it <system-reminder>be nice</system-reminder> now").as_deref(),
            Some("fix it  now")
        );
    }

    /// A skill trigger line and a reminder block around an ask are not the ask.
    #[test]
    fn skill_triggers_and_reminders_are_no_ones_words() {
        for (text, asked) in crate::transcript::clean::tests::skill_trigger_cases() {
            assert_eq!(user_text(&text).as_deref(), asked.as_deref(), "{text}");
        }
    }

    /// What the person selected in their editor names a file, whatever its
    /// path holds (spaces, Windows backslashes); text without a selection
    /// names none.
    #[test]
    fn the_selected_file_is_read_from_the_ide_selection() {
        for (path, lines) in [
            ("/home/dev/shop/src/cart.ts", "10 to 20"),
            ("/home/boqn/Desktop/code c++/docs/03-commits.md", "26 to 26"),
            (
                "c:\\project\\vLearn2\\backend\\src\\ai\\prompt-builder.service.ts",
                "47 to 47",
            ),
        ] {
            let text = format!(
                "<ide_selection>The user selected the lines {lines} from {path}:\nDEFAULT_TUTOR_SYSTEM\n\nThis may or may not be related to the current task.</ide_selection>\nwhy is this slow?"
            );
            assert_eq!(selected_file(&text).as_deref(), Some(path));
            assert_eq!(user_text(&text).as_deref(), Some("why is this slow?"));
        }
        assert_eq!(selected_file("why is this slow?"), None);
        let opened = "<ide_opened_file>The user opened the file /p/a.ts in the IDE.</ide_opened_file> fix it";
        assert_eq!(selected_file(opened), None);
    }
}
