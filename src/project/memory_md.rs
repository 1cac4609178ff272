//! MEMORY.md: the head (active projects, recent compactions, the newest
//! current notes) and the `## Session Ledger (Last 30 Days)` within the
//! byte budget.
//!
//! Owns: the content of the MEMORY.md managed block. Must not: write files
//! (it hands the text to `RenderCtx::write`).

use chrono::Duration;

use super::file::{outside_block, read_existing, sealed_block};
use super::{RenderCtx, RenderOutcome, Target, inert, memory_md_path};
use crate::contract;
use crate::error::Result;
use crate::sentence;
use crate::store::{Index, ProjectInWindow, SessionRow, WindowHead};
use crate::validate::Problem;

pub const LEDGER_HEADING: &str = "## Session Ledger (Last 30 Days)";

/// Notes MEMORY.md lists at most: the newest current ones, as links (an
/// agent that reads only MEMORY.md at start learns they exist; their text
/// is a `memory_get` or a click away, and never rendered here unsanitized).
pub const HEAD_NOTES: usize = 8;

/// What MEMORY.md's notes section depends on: when it changes, every
/// agent's MEMORY.md is rendered again.
pub(super) fn notes_digest(index: &Index) -> Result<String> {
    let notes = index.current_notes(HEAD_NOTES)?;
    let key: Vec<(&str, &str, Option<&str>)> = notes
        .iter()
        .map(|n| (n.path.as_str(), n.title.as_str(), n.project.as_deref()))
        .collect();
    Ok(contract::sha256_hex(
        serde_json::to_string(&key).unwrap_or_default().as_bytes(),
    ))
}

/// Another tool's ledger in a MEMORY.md (Signet renders the whole file with
/// the same heading): a second one beside it would have each tool rewrite
/// the other's, so the file is left as it is, with this report.
pub(super) fn foreign_ledger(rel: &str, existing: &str) -> Option<Problem> {
    let (before, after) = outside_block(existing);
    (before.contains(LEDGER_HEADING) || after.contains(LEDGER_HEADING)).then(|| {
        Problem::warning(
            rel,
            "memory-md.foreign-ledger",
            format!(
                "holds a `{LEDGER_HEADING}` outside memsync's block (Signet renders one): left as it is rather than adding a second ledger; let one tool render it (`memory_md.enabled: false` here, or turn Signet's MEMORY.md off)"
            ),
        )
    })
}

impl RenderCtx<'_> {
    pub(super) fn render_memory_md(
        &self,
        index: &Index,
        agent: &str,
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        let start = self.now - Duration::days(self.cfg.memory_md.window_days as i64);
        let window = (contract::format_ts(start), contract::format_ts(self.now));
        let window = (window.0.as_str(), window.1.as_str());
        // The head's facts from per-day counts, then the newest rows until
        // the budget is spent: neither reads the whole window.
        let md = &self.cfg.memory_md;
        let facts = index.window_head(agent, window, md.head_projects, md.head_compactions)?;
        let rel = memory_md_path(agent);
        let Some(existing) = read_existing(&self.root.join(&rel), &rel, problems) else {
            return Ok(());
        };
        let (before, after) = outside_block(&existing);
        if let Some(p) = foreign_ledger(&rel, &existing) {
            problems.push(p);
            return Ok(());
        }
        let what = format!("memory-md agent={agent}");
        let mut head = self.head(&facts);
        head.push_str(&notes_section(index)?);
        let budget = self.cfg.memory_md.budget_bytes;
        let fixed = before.len() + after.len() + sealed_block(&what, "").len() + head.len();
        let room = budget.saturating_sub(fixed);
        // Rows until their lines alone overflow the room: `Ledger::render`
        // stops within them, so no row past these could have been kept.
        let (mut newest, mut lines) = (Vec::new(), 0);
        index.each_session_in_window(agent, window, |s| {
            if self.exclusions.excludes(&s) {
                return true;
            }
            lines += ledger_row(&s).len() + 1;
            newest.push(s);
            lines <= room
        })?;
        let ledger = Ledger::render(&newest, facts.in_window, room, budget);
        if ledger.over_budget {
            problems.push(Problem::warning(
                &rel,
                "memory-md.over-budget",
                format!("text outside the managed block and the head take {fixed} bytes, over the {budget}-byte budget; no ledger rows fit"),
            ));
        }
        let block = sealed_block(&what, &format!("{head}{}", ledger.text));
        let target = Target {
            path: &rel,
            agent,
            scope: "memory",
        };
        self.write(&target, &existing, block, out);
        Ok(())
    }

    /// Active projects and the newest compactions; short and never clipped.
    fn head(&self, facts: &WindowHead) -> String {
        let projects = &facts.projects;
        let mut head = String::new();
        if !projects.is_empty() {
            head.push_str("## Active Projects\n\n");
            for ProjectInWindow {
                project: p,
                sessions: n,
                newest,
            } in projects
            {
                let name = sentence::project_basename(p).unwrap_or(p);
                let plural = if *n == 1 { "" } else { "s" };
                head.push_str(&format!(
                    "- {} ({}): {n} session{plural}, last {}{}\n",
                    inert(name),
                    inert(p),
                    newest.membership_ts,
                    newest.links(&["summary"])
                ));
            }
            head.push('\n');
        }
        let compacted = &facts.compacted;
        if !compacted.is_empty() {
            head.push_str("## Recent Compactions\n\n");
            for s in compacted {
                head.push_str(&format!(
                    "- {} | session={} | {}{}\n",
                    s.compaction_at.as_deref().unwrap_or_default(),
                    inert(s.identity()),
                    s.compaction_sentence.as_deref().unwrap_or_default(),
                    s.links(&["compaction"])
                ));
            }
            head.push('\n');
        }
        head
    }
}

/// `## Notes`: the newest current notes as wikilinks with their titles.
fn notes_section(index: &Index) -> Result<String> {
    let notes = index.current_notes(HEAD_NOTES)?;
    if notes.is_empty() {
        return Ok(String::new());
    }
    let mut out = String::from("## Notes\n\n");
    // A path that would break the wikilink is left out (a person may name
    // files anything); the note is still in search and `context`.
    for n in notes
        .iter()
        .filter(|n| !n.path.contains(['[', ']', '|', '\n']))
    {
        // A title cannot close the link or start another.
        let plain: String = n
            .title
            .chars()
            .map(|c| if matches!(c, '[' | ']' | '|') { ' ' } else { c })
            .collect();
        let title = inert(&plain.split_whitespace().collect::<Vec<_>>().join(" "));
        let project = n
            .project
            .as_deref()
            .map(|p| format!(" ({})", inert(sentence::project_basename(p).unwrap_or(p))))
            .unwrap_or_default();
        out.push_str(&format!("- [[{}|{}]]{project}\n", n.path, title.trim()));
    }
    out.push('\n');
    Ok(out)
}

pub(super) fn ledger_row(s: &SessionRow) -> String {
    format!(
        "- {} | session={} | project={} | {}{}\n",
        s.membership_ts,
        inert(s.identity()),
        s.project
            .as_deref()
            .map(inert)
            .unwrap_or_else(|| "none".into()),
        s.sentence,
        s.links(&["summary", "transcript", "compaction", "manifest"]),
    )
}

/// The rendered ledger section.
struct Ledger {
    text: String,
    /// Even the heading and the notice did not fit.
    over_budget: bool,
}

impl Ledger {
    /// Renders the ledger in at most `room` bytes, newest rows first, building
    /// rows only until the budget is spent (cost follows the budget, not the window).
    /// `newest` are the first rows of the `n` in-window sessions.
    fn render(newest: &[SessionRow], n: usize, room: usize, budget: usize) -> Ledger {
        let heading = format!("{LEDGER_HEADING}\n\n");
        let notice = |k: usize| {
            format!(
                "- older ledger rows clipped: kept {k} of {n} in-window sessions within the {budget}-byte budget.\n\n"
            )
        };
        // Reserve the notice as if every row fit, so adding it never overflows.
        let reserve = heading.len() + notice(n).len();
        let mut body = String::new();
        let mut day = "";
        let mut kept = 0;
        for s in newest {
            let d = s.membership_ts.get(..10).unwrap_or("");
            let mut piece = String::new();
            if d != day {
                piece.push_str(&format!("### {d}\n\n"));
            }
            piece.push_str(&ledger_row(s));
            piece.push('\n');
            let all_fit_so_far = kept + 1 == n && heading.len() + body.len() + piece.len() <= room;
            if !all_fit_so_far && reserve + body.len() + piece.len() > room {
                break;
            }
            body.push_str(&piece);
            day = d;
            kept += 1;
        }
        let text = if kept == n {
            format!("{heading}{body}")
        } else {
            format!("{heading}{}{body}", notice(kept))
        };
        Ledger {
            text,
            over_budget: kept < n && reserve > room,
        }
    }
}
