//! A transcript as markdown: the body of a transcript artifact, and the
//! digest of each message a capture's cursor keeps.
//!
//! Owns: the layout of messages and tool lines. Must not: read a harness's
//! format (the readers do) or decide what is kept.

use super::{Message, Transcript};

/// How a message's tool calls are laid out.
#[derive(Clone, Copy)]
pub(crate) enum Layout {
    /// Where they happened, paths relative to the project: what a person reads.
    AsHappened,
    /// After all of the text, paths as recorded: the form capture cursors digest.
    CursorV1,
}

impl Transcript {
    /// The transcript as the markdown body of a transcript artifact
    /// (unsanitized): every message.
    pub fn to_markdown(&self) -> String {
        self.render(0..self.messages.len())
    }

    /// Messages `range` as markdown: `## User` / `## Assistant` sections, the
    /// agent's tool calls as a list where they happened: after what it said
    /// before its last call, before its report. Paths inside the project
    /// are shown relative to it.
    pub fn render(&self, range: std::ops::Range<usize>) -> String {
        self.render_as(range, Layout::AsHappened)
    }

    fn render_as(&self, range: std::ops::Range<usize>, layout: Layout) -> String {
        if let Some(text) = &self.plain {
            return text.clone();
        }
        let mut out = String::new();
        let mut gap = 0;
        for m in self.messages.get(range).unwrap_or_default() {
            if m.elided.is_some() {
                gap += 1;
                continue;
            }
            self.note_gap(&mut out, std::mem::take(&mut gap));
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str("## ");
            out.push_str(m.role.heading());
            out.push_str("\n\n");
            out.push_str(&self.message_body(m, layout));
        }
        self.note_gap(&mut out, gap);
        out
    }

    /// One message's text and tool lines, joined by blank lines.
    fn message_body(&self, m: &Message, layout: Layout) -> String {
        let lines = |project: Option<&str>| -> String {
            let calls: Vec<String> = m.tools.iter().map(|t| t.line_in(project)).collect();
            calls.join("\n")
        };
        let (before, tools, after) = match layout {
            Layout::AsHappened if !m.tools.is_empty() => {
                let split = (m.report_from..=m.text.len())
                    .find(|&i| m.text.is_char_boundary(i))
                    .unwrap_or(m.text.len());
                let (before, after) = m.text.split_at(split);
                (before, lines(self.project.as_deref()), after)
            }
            _ => (m.text.as_str(), lines(None), ""),
        };
        [before.trim(), tools.as_str(), after.trim()]
            .into_iter()
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// The marker where `gap` messages were left out.
    fn note_gap(&self, out: &mut String, gap: usize) {
        if gap == 0 {
            return;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&format!(
            "[… {gap} message{} left out by memsync: a transcript keeps its first request and answer and its newest {} KiB (capture.max_transcript_bytes)]",
            if gap == 1 { "" } else { "s" },
            self.budget.keep / 1024
        ));
    }

    /// A digest of message `i` as rendered, even when it was left out: a
    /// capture's cursor, which notices a message that grew.
    pub fn message_digest(&self, i: usize) -> String {
        match self.messages.get(i).and_then(|m| m.elided.clone()) {
            Some(digest) => digest,
            // The layout captures had when cursors were first written, so a
            // cursor stays valid whatever the rendering becomes.
            None => crate::contract::body_sha256(&self.render_as(i..i + 1, Layout::CursorV1)),
        }
    }
}
