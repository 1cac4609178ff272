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
}
