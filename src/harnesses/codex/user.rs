//! What a Codex user message holds besides the person's words: the context
//! blocks Codex injects as user messages, and an IDE's preamble.

use crate::transcript::clean::{person, strip_blocks};

/// Codex context blocks injected as user messages.
const INJECTED: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<user_action>",
    "<turn_aborted>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<skill>",
];

/// A user message of Codex (an `event_msg` `user_message`): the text after
/// `## My request for Codex:` when an IDE preamble wraps it; `None` for
/// injected context.
pub fn user_text(text: &str) -> Option<String> {
    let text = text.trim();
    if INJECTED.iter().any(|p| text.starts_with(p)) {
        return None;
    }
    // IDE preambles ("# Context from my IDE setup:", "# Files mentioned by
    // the user:") end where the person's request begins.
    if text.starts_with("# Context from my IDE setup:")
        || text.starts_with("# Files mentioned by the user:")
    {
        let (_, request) = text.split_once("## My request for Codex:")?;
        return person(request);
    }
    person(&strip_blocks(
        text,
        &["environment_context", "user_instructions"],
    ))
}

/// The file whose lines the person selected, when the IDE extension's
/// preamble holds a selection: "## Active file: src/server.ts" over "##
/// Active selection of the file:" (an active file alone may be unrelated).
pub fn selected_file(text: &str) -> Option<String> {
    let text = text.trim_start();
    if !text.starts_with("# Context from my IDE setup:")
        || !text.contains("\n## Active selection of the file:")
    {
        return None;
    }
    let file = text
        .lines()
        .find_map(|l| l.strip_prefix("## Active file:"))?
        .trim();
    (!file.is_empty()).then(|| file.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_ide_preambles_keep_the_request() {
        let t = "# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n## My request for Codex:\nWhy 4 queries?\n";
        assert_eq!(user_text(t).as_deref(), Some("Why 4 queries?"));
        assert_eq!(
            user_text("<environment_context>\n<cwd>/x</cwd>\n</environment_context>"),
            None
        );
        assert_eq!(
            user_text("# Context from my IDE setup:\n\n## Open tabs:\n- a"),
            None
        );
    }

    #[test]
    fn the_selected_file_is_the_active_file_when_the_preamble_holds_a_selection() {
        let selected = "# Context from my IDE setup:\n\n## Active file: src/server.ts\n\n## Active selection of the file:\napp.listen(3000)\n## Open tabs:\n- server.ts: src/server.ts\n\n## My request for Codex:\nwhy does this hang?\n";
        assert_eq!(selected_file(selected).as_deref(), Some("src/server.ts"));
        assert_eq!(user_text(selected).as_deref(), Some("why does this hang?"));
        let active = "# Context from my IDE setup:\n\n## Active file: src/server.ts\n\n## My request for Codex:\nadd a health route\n";
        assert_eq!(selected_file(active), None);
        assert_eq!(selected_file("why does this hang?"), None);
    }
}
