//! One turn of a [`Transcript`](super::Transcript): the text, the tool
//! calls, and where in the text the agent's report and last words begin.
//!
//! Owns: reading a turn's parts. Must not: build turns (the transcript's
//! `push` does) or judge what they say (capture does).

use super::{Role, ToolUse};

/// One turn of the conversation: its text (cleaned of harness wrappers) and,
/// for the agent, the tools it called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub text: String,
    pub tools: Vec<ToolUse>,
    /// Lines of one streamed response share this id and are joined.
    pub(super) id: Option<String>,
    /// Where the text written after the turn's last tool call begins: the
    /// agent's report, as opposed to what it said it was about to do.
    pub(super) report_from: usize,
    /// Where the turn's last words begin: the newest text it said, with or
    /// without tool calls after it.
    pub(super) said_from: usize,
    /// Left out to keep the transcript in its budget: the digest its
    /// rendering had, for the capture cursor.
    pub(super) elided: Option<String>,
    /// Who sent a person's message through a chat bridge (`+51935507781`,
    /// `id:7627639740`), when the envelope says.
    pub sender: Option<String>,
    /// The turn's last words (with or without calls after them) were said
    /// while it worked, by the harness's own mark (Codex's `commentary`
    /// phase): a turn that ends on them was cut off before its answer.
    pub(super) working: bool,
}

impl Message {
    /// What the agent said after its last tool call in this turn; the whole
    /// text when it said nothing after it.
    pub fn report(&self) -> &str {
        match self.text_from(self.report_from).trim() {
            "" => self.text.trim(),
            after => after,
        }
    }

    /// What the turn said last: its report, or the words before its last
    /// tool call when it said nothing after it ("Upgraded tokio." before
    /// the push a limit stopped), never words from earlier in the turn.
    pub fn last_words(&self) -> &str {
        self.text_from(self.said_from).trim()
    }

    /// The text from byte `at` on, moved forward to a character boundary
    /// (an offset kept while the text was joined may fall inside one).
    fn text_from(&self, at: usize) -> &str {
        let from = (at..=self.text.len())
            .find(|&i| self.text.is_char_boundary(i))
            .unwrap_or(self.text.len());
        &self.text[from..]
    }

    /// What the turn said before its last tool call, when it also said
    /// something after it (`None` otherwise: then that text is the report).
    pub fn said_before_report(&self) -> Option<&str> {
        let before = self.text.get(..self.report_from)?.trim();
        (self.reported() && !before.is_empty()).then_some(before)
    }

    /// Whether the turn's last words are ones its harness marked as said
    /// while working, with no answer after them.
    pub fn ends_working(&self) -> bool {
        self.working
    }

    /// Whether the turn says anything after its last tool call.
    pub fn reported(&self) -> bool {
        self.text
            .get(self.report_from..)
            .is_some_and(|after| !after.trim().is_empty())
    }

    pub(crate) fn bytes(&self) -> usize {
        self.text.len()
            + self
                .tools
                .iter()
                .map(|t| t.target.len() + 16)
                .sum::<usize>()
    }
}
