//! A fork's copy of the session it was forked from. Claude Code (`/branch`,
//! `--resume … --fork-session`), Codex before 0.150 (`codex fork`, the TUI's
//! backtrack) and pi (`/fork`, which OpenClaw writes too) open a forked
//! session's file with the parent's conversation, and the fork's own turns
//! follow it. The copy is the parent's session, captured with the parent;
//! the fork is what came after it.
//!
//! Owns: leaving the copy out of the fork. Must not: know a harness's lines
//! (each reader says which are copies).

use super::{Role, Transcript};

impl Transcript {
    /// Every message read so far is the fork's copy of `parent`'s, and so
    /// is the time it spans: the fork starts with what follows.
    pub(crate) fn copied_so_far(&mut self, parent: Option<String>) {
        self.copied = self.messages.len();
        self.started_at = None;
        if self.forked_from.is_none() {
            self.forked_from = parent;
        }
    }

    /// Leaves out the messages the fork copied, and a failure among them.
    pub(crate) fn drop_copied(&mut self) {
        let copied = std::mem::take(&mut self.copied).min(self.messages.len());
        if copied == 0 {
            return;
        }
        for m in self.messages.drain(..copied) {
            if m.elided.is_some() {
                self.elided -= 1;
            } else {
                self.budget.kept = self.budget.kept.saturating_sub(m.bytes());
            }
        }
        self.budget.next = self.budget.next.saturating_sub(copied);
        for role in [Role::User, Role::Assistant] {
            self.budget.first[role as usize] = self
                .messages
                .iter()
                .position(|m| m.role == role && !m.text.is_empty());
        }
        self.failure = self.failure.take().and_then(|mut f| {
            f.after = f.after.checked_sub(copied).filter(|&a| a > 0)?;
            Some(f)
        });
    }
}
