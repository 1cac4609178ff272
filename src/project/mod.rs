//! Project stage: render MEMORY.md per agent and OpenClaw daily logs from the index.
//!
//! Owns: deciding which projections are dirty, and rendering them into their
//! managed blocks. Must not: read canonical files (only the index), or change a
//! byte of a projection file outside its managed block.

mod daily_log;
mod dirty;
mod edits;
pub mod file;
pub mod ledger;
mod memory_md;
pub mod mirror;

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use globset::GlobSet;
use rayon::prelude::*;

pub use file::{BLOCK_BEGIN, BLOCK_END, WriterLock, splice};
pub use ledger::{LedgerAccount, ledger_account};
pub use memory_md::LEDGER_HEADING;

use crate::config::{Config, Settings, glob_set};
use crate::contract::{self, DayZone};
use crate::error::{Error, Result};
use crate::files::{Replaced, WhileHeld};
use crate::scan::FileStat;
use crate::sentence;
use crate::store::{Index, Judge, Phase, SessionRow};
use crate::validate::Problem;
use dirty::Dirty;

/// What a render pass did.
#[derive(Debug, Default)]
pub struct RenderOutcome {
    /// Workspace-relative paths whose bytes changed.
    pub written: Vec<String>,
    /// Projection files rendered (written or confirmed unchanged).
    pub rendered: Vec<RenderedFile>,
    /// Files left as they were because another process holds them open for
    /// writing (one-shot commands only): they stay dirty for a later pass.
    pub held: Vec<String>,
    /// Why nothing was written: git began to work while the pass rendered.
    pub deferred: Option<&'static str>,
    /// `git_at_work` was asked in this pass.
    git_asked: bool,
    pending: Vec<Pending>,
    /// The blocks memsync last wrote and is writing now, by digest.
    blocks: edits::Blocks,
    /// Blocks a person edited, as they were before this render replaced them.
    edited: Vec<edits::EditedBlock>,
}

/// A projection file as rendered, for the projection state the next pass compares.
#[derive(Debug, Clone)]
pub struct RenderedFile {
    pub path: String,
    pub agent_id: String,
    pub scope: String,
    pub stat: FileStat,
}

pub use crate::contract::memory_md_path;

/// Where an agent's daily log for `day` lives, relative to the root.
pub fn daily_log_path(agent_id: &str, day: NaiveDate) -> String {
    if agent_id == "default" {
        format!("memory/{day}.md")
    } else {
        format!("agents/{agent_id}/memory/{day}.md")
    }
}

/// Which projection files a render compares with what it last wrote: one
/// edited or deleted behind memsync's back is rendered again.
#[derive(Debug, Clone, Copy)]
pub enum Compare<'a> {
    /// Every one (a stat each).
    Every,
    /// Only these workspace-relative paths: a watcher names every projection
    /// file that changes, so the rest are as rendered.
    Only(&'a [String]),
}

impl Compare<'_> {
    fn includes(&self, path: &str) -> bool {
        match self {
            Compare::Every => true,
            Compare::Only(paths) => paths.iter().any(|p| p == path),
        }
    }
}

/// Renders every dirty projection. Holds the writer lock while it writes.
/// For a run that renders nothing (`check`): reports each agent's MEMORY.md
/// that holds another tool's ledger, as a render would, so it is seen
/// without a sync first. Nothing is written but the report.
pub fn report_foreign_ledgers(index: &mut Index, settings: &Settings) -> Result<()> {
    let found: Vec<Problem> = index
        .agent_counts(("", "~"))?
        .into_iter()
        .filter_map(|a| {
            let rel = memory_md_path(&a.agent_id);
            let text = crate::files::read_text_at(settings.root.join(&rel)).ok()?;
            memory_md::foreign_ledger(&rel, &text)
        })
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    index.batch(|b| {
        for p in &found {
            b.replace_problems(&p.path, Phase::Projection, None, std::slice::from_ref(p))?;
        }
        Ok(())
    })
}

/// Renders the dirty projections and writes those whose bytes changed.
/// `git_at_work` is asked once more right before files are written: a git
/// command that began while this pass rendered (a pull between its
/// autostash and its merge) would refuse on a file written now ("local
/// changes would be overwritten"), so nothing more is written and the
/// dirty marks stay for the next pass (`RenderOutcome::deferred`).
pub fn render(
    index: &mut Index,
    settings: &Settings,
    now: DateTime<Utc>,
    while_held: WhileHeld<'_>,
    compare: Compare<'_>,
    git_at_work: &(dyn Fn() -> Option<&'static str> + Sync),
) -> Result<RenderOutcome> {
    let cfg = &settings.config;
    let _lock = WriterLock::acquire(&settings.state_dir())?;
    let state = match compare {
        Compare::Every => index.projection_state()?,
        Compare::Only(paths) => index.projection_state_of(paths)?,
    };
    // On the real clock projections never move back in time: a process that
    // read the clock before another rendered (two captures racing) renders as
    // of the later clock, so it cannot drop the other's session from the
    // window. A fixed clock (`--now`) is used as given.
    let last = index
        .last_rendered_now()?
        .as_deref()
        .and_then(contract::parse_ts);
    let now = match last {
        Some(last) if !settings.fixed_clock => last.max(now),
        _ => now,
    };
    let zone =
        DayZone::parse(&cfg.daily_logs.timezone).map_err(|r| Error::config("<config>", r))?;
    let exclusions = Exclusions::new(cfg)?;
    let dirty = Dirty::collect(index, &state, settings, now, zone, compare)?;
    exclusions.judge_sessions(index)?;
    let ctx = RenderCtx {
        root: &settings.root,
        cfg,
        now,
        zone,
        exclusions: &exclusions,
        while_held,
        git_at_work,
    };
    let mut out = RenderOutcome {
        blocks: edits::Blocks::load(index)?,
        ..RenderOutcome::default()
    };
    let mut problems = Vec::new();
    if cfg.memory_md.enabled {
        for agent in &dirty.agents {
            ctx.render_memory_md(index, agent, &mut out, &mut problems)?;
        }
    }
    if cfg.daily_logs.enabled {
        let mut by_agent: BTreeMap<&str, Vec<NaiveDate>> = BTreeMap::new();
        for (agent, day) in &dirty.days {
            by_agent.entry(agent).or_default().push(*day);
        }
        for (agent, days) in by_agent {
            ctx.render_daily_logs(index, agent, &days, &mut out, &mut problems)?;
        }
    }
    let writing = std::time::Instant::now();
    out.finish(
        index,
        &settings.root,
        while_held,
        git_at_work,
        &mut problems,
    )?;
    let notices = edits::keep_edited_blocks(&settings.state_dir(), &out.edited, now);
    let held_mirrors =
        mirror::mirror_rendered(&settings.root, &cfg.mirrors, &out.rendered, while_held);
    out.held
        .extend(held_mirrors.iter().map(|p| p.display().to_string()));
    let today = zone.date(now);
    let start_up_days: Vec<NaiveDate> = if cfg.daily_logs.enabled {
        vec![today, today.pred_opt().unwrap_or(today)]
    } else {
        Vec::new()
    };
    mirror::mirror_missing(&settings.root, &cfg.mirrors, &start_up_days, while_held);
    if !out.held.is_empty() {
        tracing::info!(files = ?out.held, "left for later: another process holds them open for writing");
    }
    tracing::debug!(
        files = out.written.len(),
        ms = writing.elapsed().as_millis() as u64,
        "projection files written"
    );
    let rendered_now = contract::format_ts(now);
    // A file that could not be written (disk full, read-only) keeps what made
    // it dirty, so the next render retries it.
    let all_written = out.held.is_empty()
        && out.deferred.is_none()
        && !problems.iter().any(|p| p.rule == "projection.write");
    index.batch(|b| {
        for f in &out.rendered {
            b.put_projection_state(&f.path, &f.agent_id, &f.scope, f.stat, &rendered_now)?;
            b.replace_problems(&f.path, Phase::Projection, None, &[])?;
        }
        let written = out.rendered.iter().filter_map(|f| {
            let digest = out.blocks.digests.get(&f.path)?;
            Some((f.path.as_str(), digest.as_str()))
        });
        edits::record_blocks(b, written, &out.written, &notices)?;
        for p in &problems {
            b.replace_problems(&p.path, Phase::Projection, None, std::slice::from_ref(p))?;
        }
        if !all_written {
            return Ok(());
        }
        b.clear_dirty(dirty.marks_through, &rendered_now)?;
        b.set_meta("projection_notes", &dirty.notes)?;
        b.set_meta("projection_config", &dirty.fingerprint)
    })?;
    Ok(out)
}

/// Which sessions never reach a projection: temp/test sessions, private ones,
/// and ones with a request from someone other than the owner (an agent would
/// read a group member's words as its owner's instructions). `context` uses
/// the same rules.
pub struct Exclusions {
    projects: GlobSet,
    sessions: GlobSet,
    harnesses: Vec<String>,
    /// The rules by name, as written: what stored judgements are checked against.
    named: String,
}

impl Exclusions {
    pub fn new(cfg: &Config) -> Result<Exclusions> {
        Ok(Exclusions {
            projects: glob_set(
                "projection.exclude_projects",
                &cfg.projection.exclude_projects,
            )?,
            sessions: glob_set(
                "projection.exclude_sessions",
                &cfg.projection.exclude_sessions,
            )?,
            harnesses: cfg.projection.exclude_harnesses.clone(),
            named: serde_json::to_string(&(
                &cfg.projection.exclude_projects,
                &cfg.projection.exclude_sessions,
                &cfg.projection.exclude_harnesses,
            ))
            .unwrap_or_default(),
        })
    }

    /// Whether projections show the session.
    pub fn shows(&self, s: &SessionRow) -> bool {
        !self.excludes(s)
    }

    /// Has the index judge the sessions it has not judged by these rules yet.
    pub fn judge_sessions(&self, index: &mut Index) -> Result<usize> {
        let c = &self.named;
        let by_name =
            !(self.projects.is_empty() && self.sessions.is_empty() && self.harnesses.is_empty());
        let shown = |s: &SessionRow| self.shows(s);
        let judge = if by_name {
            Judge::By(&shown)
        } else {
            Judge::ByFlags
        };
        index.judge_sessions(&format!("v1 {c}"), judge)
    }

    pub fn excludes(&self, s: &SessionRow) -> bool {
        s.untrusted || self.excludes_but_trust(s)
    }

    /// Every rule but trust (for a reader who asked for untrusted sessions too).
    pub fn excludes_but_trust(&self, s: &SessionRow) -> bool {
        s.private
            || s.noise
            || s.project
                .as_deref()
                .is_some_and(|p| self.projects.is_match(p))
            || self.sessions.is_match(&s.session_id)
            || s.session_key
                .as_deref()
                .is_some_and(|k| self.sessions.is_match(k))
            || s.harness
                .as_deref()
                .is_some_and(|h| self.harnesses.iter().any(|x| x == h))
    }
}

/// Single-line, inert text for a row.
fn inert(s: &str) -> String {
    sentence::neutralise(s)
}

/// How projections show a session.
impl SessionRow {
    /// session_key when non-empty, else session_id.
    fn identity(&self) -> &str {
        self.session_key
            .as_deref()
            .filter(|k| !k.trim().is_empty())
            .unwrap_or(&self.session_id)
    }

    fn path_of(&self, kind: &str) -> Option<&str> {
        match kind {
            "summary" => self.summary_path.as_deref(),
            "transcript" => self.transcript_path.as_deref(),
            "compaction" => self.compaction_path.as_deref(),
            "manifest" => self.manifest_path.as_deref(),
            _ => None,
        }
    }

    /// ` [[path|kind]]` for each kind that exists.
    fn links(&self, kinds: &[&str]) -> String {
        kinds
            .iter()
            .filter_map(|k| self.path_of(k).map(|p| format!(" [[{p}|{k}]]")))
            .collect()
    }

    /// `text` as the label of a link to the file of `kind` (plain text when
    /// the session has no such file): a reader clicks the sentence itself.
    fn linked(&self, kind: &str, text: &str) -> String {
        let label = match text.trim() {
            "" => kind,
            t => t,
        };
        match self.path_of(kind) {
            // A label ending in `]` would close the link one bracket early.
            Some(p) if label.ends_with(']') => format!("[[{p}|{label} ]]"),
            Some(p) => format!("[[{p}|{label}]]"),
            None => label.to_string(),
        }
    }
}

/// What every renderer needs.
struct RenderCtx<'a> {
    root: &'a Path,
    cfg: &'a Config,
    now: DateTime<Utc>,
    zone: DayZone,
    exclusions: &'a Exclusions,
    while_held: WhileHeld<'a>,
    git_at_work: &'a (dyn Fn() -> Option<&'static str> + Sync),
}

impl RenderCtx<'_> {
    /// Queues `block` for splicing into the file if it changes `existing`; `finish` writes.
    fn write(&self, target: &Target<'_>, existing: &str, block: String, out: &mut RenderOutcome) {
        out.pending.push(Pending::new(target, existing, block));
    }
}

/// A rendered block waiting to be spliced into its file (`changed: false`
/// when the file already holds it).
#[derive(Debug)]
struct Pending {
    path: String,
    agent_id: String,
    scope: String,
    block: String,
    changed: bool,
    /// The block the file held when it was read, when the render changes it.
    existing_block: Option<String>,
}

impl Pending {
    fn new(target: &Target<'_>, existing: &str, block: String) -> Pending {
        let changed = splice(existing, &block) != existing;
        let existing_block = changed
            .then(|| file::block_range(existing).map(|(b, e)| existing[b..e].to_string()))
            .flatten();
        Pending {
            path: target.path.to_string(),
            agent_id: target.agent.to_string(),
            scope: target.scope.to_string(),
            changed,
            block,
            existing_block,
        }
    }

    /// Splices the block into the file as it is now: text another program
    /// added since the render read it stays, and so do bytes appended while
    /// the file is replaced.
    fn write(&self, root: &Path, while_held: WhileHeld<'_>) -> std::io::Result<Replaced> {
        if !self.changed {
            return Ok(Replaced::Unchanged);
        }
        crate::files::replace_in_workspace(root, &self.path, while_held, |text| {
            (file::block_count(text) <= 1).then(|| splice(text, &self.block))
        })
    }
}

impl RenderOutcome {
    /// Writes every changed file atomically, in parallel (each write waits on
    /// its own fsyncs), and records what was rendered. A file that cannot be
    /// written is reported and keeps its previous content.
    fn finish(
        &mut self,
        index: &Index,
        root: &Path,
        while_held: WhileHeld<'_>,
        git_at_work: &(dyn Fn() -> Option<&'static str> + Sync),
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        // Asked right before the first write, once a pass (a scan of running
        // processes): a pull that began while this pass rendered refuses on
        // a file written now.
        if !self.git_asked && self.pending.iter().any(|p| p.changed) {
            self.git_asked = true;
            if let Some(why) = git_at_work() {
                tracing::info!(why, "projections left for later: git began meanwhile");
                self.deferred = Some(why);
            }
        }
        if self.deferred.is_some() {
            self.pending.clear();
            return Ok(());
        }
        for p in &self.pending {
            if let Some(edited) = self.blocks.note(p) {
                self.edited.push(edited);
            }
        }
        let changed: Vec<&str> = self
            .pending
            .iter()
            .filter(|p| p.changed)
            .map(|p| p.path.as_str())
            .collect();
        self.blocks.pre_record(index, &changed)?;
        let results: Vec<std::io::Result<(Replaced, FileStat)>> = self
            .pending
            .par_iter()
            .map(|p| {
                let written = p.write(root, while_held)?;
                let stat =
                    std::fs::symlink_metadata(root.join(&p.path)).map(|m| FileStat::of(&m))?;
                Ok((written, stat))
            })
            .collect();
        for (p, result) in std::mem::take(&mut self.pending).into_iter().zip(results) {
            match result {
                Ok((Replaced::Held, _)) => self.held.push(p.path),
                Ok((written, stat)) => {
                    if written == Replaced::Written {
                        self.written.push(p.path.clone());
                    }
                    self.rendered.push(RenderedFile {
                        path: p.path,
                        agent_id: p.agent_id,
                        scope: p.scope,
                        stat,
                    });
                }
                Err(e) => problems.push(Problem::error(
                    &p.path,
                    "projection.write",
                    format!("cannot write: {e}; the previous file is intact"),
                )),
            }
        }
        Ok(())
    }
}

/// The projection file being rendered.
struct Target<'a> {
    path: &'a str,
    agent: &'a str,
    scope: &'a str,
}
