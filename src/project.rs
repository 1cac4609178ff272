//! Project stage: render MEMORY.md per agent and OpenClaw daily logs from the index.
//!
//! Owns: the managed block inside each projection file, the ledger window and
//! budget, and deciding which projections are dirty. Must not: read canonical
//! files (only the index), or change a byte outside its managed block.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use globset::{Glob, GlobSet, GlobSetBuilder};
use rusqlite::params;

use crate::config::{Config, Settings};
use crate::contract;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::scan::FileStat;
use crate::sentence::{self, SessionFacts};
use crate::validate::Problem;

pub const BLOCK_BEGIN: &str = "<!-- memsync:begin";
pub const BLOCK_END: &str = "<!-- memsync:end -->";
pub const LEDGER_HEADING: &str = "## Session Ledger (Last 30 Days)";

/// The zone daily logs are dated in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DayZone {
    Local,
    Utc,
    Named(chrono_tz::Tz),
}

impl DayZone {
    pub fn parse(s: &str) -> std::result::Result<DayZone, String> {
        match s {
            "local" => Ok(DayZone::Local),
            "UTC" | "utc" => Ok(DayZone::Utc),
            name => name
                .parse::<chrono_tz::Tz>()
                .map(DayZone::Named)
                .map_err(|_| format!("{name:?} is not `local`, `UTC` or an IANA zone name")),
        }
    }

    pub fn date(&self, ts: DateTime<Utc>) -> NaiveDate {
        match self {
            DayZone::Local => ts.with_timezone(&chrono::Local).date_naive(),
            DayZone::Utc => ts.date_naive(),
            DayZone::Named(tz) => ts.with_timezone(tz).date_naive(),
        }
    }

    pub fn clock(&self, ts: DateTime<Utc>) -> String {
        match self {
            DayZone::Local => ts.with_timezone(&chrono::Local).format("%H:%M").to_string(),
            DayZone::Utc => ts.format("%H:%M").to_string(),
            DayZone::Named(tz) => ts.with_timezone(tz).format("%H:%M").to_string(),
        }
    }
}

/// What a render pass did.
#[derive(Debug, Default)]
pub struct RenderOutcome {
    /// Workspace-relative paths whose bytes changed.
    pub written: Vec<String>,
    /// Projection files rendered (written or confirmed unchanged).
    pub rendered: Vec<String>,
}

/// One artifact row as projections see it.
#[derive(Debug, Clone)]
struct Row {
    path: String,
    kind: String,
    token: String,
    session_id: String,
    session_key: Option<String>,
    project: Option<String>,
    harness: Option<String>,
    captured_at: String,
    membership_ts: String,
    sentence: Option<String>,
    private: bool,
}

/// A session assembled from its artifacts.
#[derive(Debug, Clone)]
struct Session {
    token: String,
    identity: String,
    project: Option<String>,
    harness: Option<String>,
    membership_ts: String,
    private: bool,
    by_kind: BTreeMap<&'static str, Row>,
}

impl Session {
    /// Assembles a session; where a kind appears twice, the newest artifact wins.
    fn from_rows(mut rows: Vec<Row>) -> Option<Session> {
        rows.sort_by(|a, b| a.captured_at.cmp(&b.captured_at).then(a.path.cmp(&b.path)));
        let mut by_kind = BTreeMap::new();
        for r in rows {
            let Some(kind) = contract::ArtifactKind::parse(&r.kind) else {
                continue;
            };
            by_kind.insert(kind.as_str(), r);
        }
        let primary = ["summary", "transcript", "compaction", "manifest"]
            .iter()
            .find_map(|k| by_kind.get(k))?
            .clone();
        let identity = primary
            .session_key
            .clone()
            .filter(|k| !k.trim().is_empty())
            .unwrap_or_else(|| primary.session_id.clone());
        Some(Session {
            token: primary.token.clone(),
            identity,
            project: primary.project.clone(),
            harness: primary.harness.clone(),
            membership_ts: primary.membership_ts.clone(),
            private: by_kind.values().any(|r| r.private),
            by_kind,
        })
    }

    /// summary, else compaction, else transcript: the frontmatter sentence, floor-checked.
    fn sentence(&self, cfg: &Config) -> String {
        let chosen = ["summary", "compaction", "transcript"]
            .iter()
            .find_map(|k| self.by_kind.get(k).and_then(|r| r.sentence.as_deref()));
        match chosen {
            Some(s) if sentence::check(s, self.project.as_deref(), &cfg.sentence).is_none() => {
                sentence::neutralise(s)
            }
            _ => self.fallback(),
        }
    }

    fn fallback(&self) -> String {
        let kinds: Vec<&str> = self
            .by_kind
            .keys()
            .copied()
            .filter(|k| *k != "manifest")
            .collect();
        sentence::fallback(&SessionFacts {
            harness: self.harness.as_deref(),
            identity: &self.identity,
            project: self.project.as_deref(),
            membership_ts: &self.membership_ts,
            token: &self.token,
            kinds: &kinds,
        })
    }

    fn links(&self, kinds: &[&str]) -> String {
        kinds
            .iter()
            .filter_map(|k| self.by_kind.get(k).map(|r| format!(" [[{}|{k}]]", r.path)))
            .collect()
    }

    fn ledger_row(&self, cfg: &Config) -> String {
        format!(
            "- {} | session={} | project={} | {}{}",
            self.membership_ts,
            inert(&self.identity),
            self.project
                .as_deref()
                .map(inert)
                .unwrap_or_else(|| "none".into()),
            self.sentence(cfg),
            self.links(&["summary", "transcript", "compaction", "manifest"]),
        )
    }
}

fn inert(s: &str) -> String {
    sentence::neutralise(s)
}

/// Which sessions never reach a projection: temp/test sessions and private ones.
struct Exclusions {
    projects: GlobSet,
    sessions: GlobSet,
    harnesses: Vec<String>,
}

impl Exclusions {
    fn new(cfg: &Config) -> Result<Exclusions> {
        let set = |globs: &[String]| -> Result<GlobSet> {
            let mut b = GlobSetBuilder::new();
            for g in globs {
                b.add(Glob::new(g).map_err(|e| Error::config("<config>", e.to_string()))?);
            }
            b.build()
                .map_err(|e| Error::config("<config>", e.to_string()))
        };
        Ok(Exclusions {
            projects: set(&cfg.projection.exclude_projects)?,
            sessions: set(&cfg.projection.exclude_sessions)?,
            harnesses: cfg.projection.exclude_harnesses.clone(),
        })
    }

    fn excludes(&self, s: &Session) -> bool {
        let ids = s
            .by_kind
            .values()
            .flat_map(|r| [Some(r.session_id.as_str()), r.session_key.as_deref()]);
        s.private
            || s.project
                .as_deref()
                .is_some_and(|p| self.projects.is_match(p))
            || ids.flatten().any(|id| self.sessions.is_match(id))
            || s.harness
                .as_deref()
                .is_some_and(|h| self.harnesses.iter().any(|x| x == h))
    }
}

/// Where an agent's projections live, relative to the root.
pub fn memory_md_path(agent_id: &str) -> String {
    if agent_id == "default" {
        "MEMORY.md".into()
    } else {
        format!("agents/{agent_id}/MEMORY.md")
    }
}

pub fn daily_log_path(agent_id: &str, day: NaiveDate) -> String {
    if agent_id == "default" {
        format!("memory/{day}.md")
    } else {
        format!("agents/{agent_id}/memory/{day}.md")
    }
}

/// Renders every dirty projection. Holds the writer lock while it writes.
pub fn render(index: &mut Index, settings: &Settings, now: DateTime<Utc>) -> Result<RenderOutcome> {
    let cfg = &settings.config;
    let _lock = WriterLock::acquire(&settings.state_dir())?;
    let zone =
        DayZone::parse(&cfg.daily_logs.timezone).map_err(|r| Error::config("<config>", r))?;
    let exclusions = Exclusions::new(cfg)?;
    let dirty = Dirty::collect(index, settings, now, zone)?;
    let mut out = RenderOutcome::default();
    let mut problems = Vec::new();
    let ctx = RenderCtx {
        root: &settings.root,
        cfg,
        now,
        zone,
        exclusions: &exclusions,
    };
    if cfg.memory_md.enabled {
        for agent in &dirty.agents {
            ctx.render_memory_md(index, agent, &mut out, &mut problems)?;
        }
    }
    if cfg.daily_logs.enabled {
        for (agent, day) in &dirty.days {
            ctx.render_daily_log(index, agent, *day, &mut out, &mut problems)?;
        }
    }
    index.batch(|b| {
        for path in &out.rendered {
            b.replace_problems(path, crate::index::Phase::Projection, None, &[])?;
        }
        for p in &problems {
            b.replace_problems(
                &p.path,
                crate::index::Phase::Projection,
                None,
                std::slice::from_ref(p),
            )?;
        }
        b.clear_dirty()?;
        Ok(())
    })?;
    index.set_meta("projection_config", &dirty.fingerprint)?;
    Ok(out)
}

/// What must be rendered this pass.
struct Dirty {
    agents: BTreeSet<String>,
    days: BTreeSet<(String, NaiveDate)>,
    fingerprint: String,
}

impl Dirty {
    fn collect(
        index: &Index,
        settings: &Settings,
        now: DateTime<Utc>,
        zone: DayZone,
    ) -> Result<Dirty> {
        let cfg = &settings.config;
        let fingerprint = contract::sha256_hex(
            serde_json::to_string(&(
                &cfg.memory_md,
                &cfg.daily_logs,
                &cfg.projection,
                &cfg.sentence,
            ))
            .unwrap_or_default()
            .as_bytes(),
        );
        let full = index.meta("projection_config")?.as_deref() != Some(fingerprint.as_str());
        let mut dirty = Dirty {
            agents: BTreeSet::new(),
            days: BTreeSet::new(),
            fingerprint,
        };
        let known_agents = index.strings("SELECT DISTINCT agent_id FROM artifacts")?;
        let state = index.projection_state()?;
        dirty.agents.insert("default".into());
        if !full {
            dirty.agents.clear();
        }
        for agent in &known_agents {
            if !state.iter().any(|s| s.path == memory_md_path(agent)) {
                dirty.agents.insert(agent.clone());
            }
        }
        if !state.iter().any(|s| s.path == memory_md_path("default")) {
            dirty.agents.insert("default".into());
        }
        for (agent, ts) in index.dirty_marks()? {
            if let Some(ts) = contract::parse_ts(&ts) {
                dirty.days.insert((agent.clone(), zone.date(ts)));
            }
            dirty.agents.insert(agent);
        }
        // Files changed behind memsync's back, and windows that rolled past a row.
        for s in &state {
            let on_disk = std::fs::symlink_metadata(settings.root.join(&s.path))
                .ok()
                .map(|m| FileStat::of(&m));
            let moved = on_disk.is_none_or(|st| st.size != s.size || st.mtime_ns != s.mtime_ns);
            match s
                .scope
                .strip_prefix("day:")
                .and_then(|d| d.parse::<NaiveDate>().ok())
            {
                Some(day) if moved || full => {
                    dirty.days.insert((s.agent_id.clone(), day));
                }
                Some(_) => {}
                None => {
                    if moved
                        || full
                        || window_rolled(index, &s.agent_id, &s.rendered_now, now, cfg)?
                    {
                        dirty.agents.insert(s.agent_id.clone());
                    }
                }
            }
        }
        if full {
            dirty.agents.extend(known_agents);
            for (agent, ts) in index.all_projection_times()? {
                if let Some(ts) = contract::parse_ts(&ts) {
                    dirty.days.insert((agent, zone.date(ts)));
                }
            }
        }
        Ok(dirty)
    }
}

/// Whether any row entered or left the window between the last render and now.
fn window_rolled(
    index: &Index,
    agent: &str,
    last: &str,
    now: DateTime<Utc>,
    cfg: &Config,
) -> Result<bool> {
    let Some(last) = contract::parse_ts(last) else {
        return Ok(true);
    };
    if last == now {
        return Ok(false);
    }
    let (lo, hi) = if last < now { (last, now) } else { (now, last) };
    let span = Duration::days(cfg.memory_md.window_days as i64);
    let f = contract::format_ts;
    index.exists(
        "SELECT EXISTS(SELECT 1 FROM artifacts WHERE agent_id = ?1 AND
         ((membership_ts > ?2 AND membership_ts <= ?3) OR (membership_ts > ?4 AND membership_ts <= ?5)))",
        params![agent, f(lo - span), f(hi - span), f(lo), f(hi)],
    )
}

struct RenderCtx<'a> {
    root: &'a Path,
    cfg: &'a Config,
    now: DateTime<Utc>,
    zone: DayZone,
    exclusions: &'a Exclusions,
}

impl RenderCtx<'_> {
    fn sessions(
        &self,
        index: &Index,
        agent: &str,
        from: &str,
        to: &str,
        by_captured: bool,
    ) -> Result<Vec<Session>> {
        let rows = index.projection_rows(agent, from, to, by_captured)?;
        let mut grouped: BTreeMap<String, Vec<Row>> = BTreeMap::new();
        for r in rows {
            grouped.entry(r.token.clone()).or_default().push(r);
        }
        Ok(grouped
            .into_values()
            .filter_map(Session::from_rows)
            .filter(|s| !self.exclusions.excludes(s))
            .collect())
    }

    fn render_memory_md(
        &self,
        index: &Index,
        agent: &str,
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        let start = self.now - Duration::days(self.cfg.memory_md.window_days as i64);
        let (from, to) = (contract::format_ts(start), contract::format_ts(self.now));
        let mut sessions: Vec<Session> = self
            .sessions(index, agent, &from, &to, false)?
            .into_iter()
            .filter(|s| s.membership_ts >= from && s.membership_ts <= to)
            .collect();
        sessions.sort_by(|a, b| {
            b.membership_ts
                .cmp(&a.membership_ts)
                .then(a.token.cmp(&b.token))
        });
        let rel = memory_md_path(agent);
        let abs = self.root.join(&rel);
        let existing = read_existing(&abs, &rel, problems);
        let Some(existing) = existing else {
            return Ok(());
        };
        let (before, after) = outside_block(&existing);
        let head = self.head(&sessions);
        let begin = format!(
            "{BLOCK_BEGIN} memory-md agent={agent} (generated by memsync; edit outside this block) -->\n"
        );
        let ledger = Ledger::new(&sessions, self.cfg);
        let fixed = before.len() + after.len() + begin.len() + head.len() + BLOCK_END.len() + 1;
        let (body, over) = ledger.render(
            self.cfg.memory_md.budget_bytes.saturating_sub(fixed),
            self.cfg.memory_md.budget_bytes,
        );
        if over {
            problems.push(Problem::warning(
                &rel,
                "memory-md.over-budget",
                format!(
                    "text outside the managed block and the head take {fixed} bytes, over the {}-byte budget; no ledger rows fit",
                    self.cfg.memory_md.budget_bytes
                ),
            ));
        }
        let block = format!("{begin}{head}{body}{BLOCK_END}\n");
        self.write(
            index,
            &rel,
            agent,
            "memory",
            &existing,
            &splice(&existing, &block),
            out,
            problems,
        )
    }

    /// The head: active projects and newest compactions; short and never clipped.
    fn head(&self, sessions: &[Session]) -> String {
        let mut projects: Vec<(&str, &Session, usize)> = Vec::new();
        for s in sessions {
            let Some(p) = s.project.as_deref() else {
                continue;
            };
            match projects.iter_mut().find(|(name, _, _)| *name == p) {
                Some(entry) => entry.2 += 1,
                None => projects.push((p, s, 1)),
            }
        }
        let mut head = String::new();
        if !projects.is_empty() {
            head.push_str("## Active Projects\n\n");
            for (p, newest, n) in projects.iter().take(self.cfg.memory_md.head_projects) {
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
        let compactions: Vec<&Session> = sessions
            .iter()
            .filter(|s| s.by_kind.contains_key("compaction"))
            .take(self.cfg.memory_md.head_compactions)
            .collect();
        if !compactions.is_empty() {
            head.push_str("## Recent Compactions\n\n");
            for s in compactions {
                let c = &s.by_kind["compaction"];
                let text = c
                    .sentence
                    .as_deref()
                    .filter(|t| {
                        sentence::check(t, s.project.as_deref(), &self.cfg.sentence).is_none()
                    })
                    .map(sentence::neutralise)
                    .unwrap_or_else(|| s.fallback());
                head.push_str(&format!(
                    "- {} | session={} | {text}{}\n",
                    c.captured_at,
                    inert(&s.identity),
                    s.links(&["compaction"])
                ));
            }
            head.push('\n');
        }
        head
    }

    fn render_daily_log(
        &self,
        index: &Index,
        agent: &str,
        day: NaiveDate,
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        // Widen the UTC query by a day each side; the zone decides membership below.
        let from = contract::format_ts(
            day.pred_opt()
                .unwrap_or(day)
                .and_hms_opt(0, 0, 0)
                .unwrap_or_default()
                .and_utc(),
        );
        let to = contract::format_ts(
            day.succ_opt()
                .unwrap_or(day)
                .and_hms_opt(23, 59, 59)
                .unwrap_or_default()
                .and_utc(),
        );
        let sessions = self.sessions(index, agent, &from, &to, true)?;
        let mut entries: Vec<(String, String)> = Vec::new();
        for s in &sessions {
            let primary = ["summary", "transcript"]
                .iter()
                .any(|k| s.by_kind.contains_key(k));
            if primary && self.on_day(&s.membership_ts, day) {
                let entry = format!(
                    "- {} | session={} | project={} | {}{}\n",
                    self.clock(&s.membership_ts),
                    inert(&s.identity),
                    s.project
                        .as_deref()
                        .and_then(sentence::project_basename)
                        .map(inert)
                        .unwrap_or_else(|| "none".into()),
                    s.sentence(self.cfg),
                    s.links(&[if s.by_kind.contains_key("summary") {
                        "summary"
                    } else {
                        "transcript"
                    }]),
                );
                entries.push((s.membership_ts.clone(), entry));
            }
            if let Some(c) = s.by_kind.get("compaction")
                && self.on_day(&c.captured_at, day) {
                    let text = c
                        .sentence
                        .as_deref()
                        .filter(|t| {
                            sentence::check(t, s.project.as_deref(), &self.cfg.sentence).is_none()
                        })
                        .map(sentence::neutralise)
                        .unwrap_or_else(|| s.fallback());
                    let entry = format!(
                        "- {} | compaction | session={} | {text}{}\n",
                        self.clock(&c.captured_at),
                        inert(&s.identity),
                        s.links(&["compaction"])
                    );
                    entries.push((c.captured_at.clone(), entry));
                }
        }
        entries.sort();
        let rel = daily_log_path(agent, day);
        let abs = self.root.join(&rel);
        let Some(existing) = read_existing(&abs, &rel, problems) else {
            return Ok(());
        };
        if entries.is_empty() && existing.is_empty() {
            return Ok(()); // never create an empty day
        }
        let mut block = format!(
            "{BLOCK_BEGIN} daily-log agent={agent} day={day} (generated by memsync; edit outside this block) -->\n"
        );
        if !entries.is_empty() {
            block.push_str("## Sessions\n\n");
            for (_, e) in &entries {
                block.push_str(e);
            }
        }
        block.push_str(BLOCK_END);
        block.push('\n');
        let scope = format!("day:{day}");
        self.write(
            index,
            &rel,
            agent,
            &scope,
            &existing,
            &splice(&existing, &block),
            out,
            problems,
        )
    }

    fn on_day(&self, ts: &str, day: NaiveDate) -> bool {
        contract::parse_ts(ts).is_some_and(|t| self.zone.date(t) == day)
    }

    fn clock(&self, ts: &str) -> String {
        contract::parse_ts(ts)
            .map(|t| self.zone.clock(t))
            .unwrap_or_default()
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        index: &Index,
        rel: &str,
        agent: &str,
        scope: &str,
        existing: &str,
        new: &str,
        out: &mut RenderOutcome,
        problems: &mut Vec<Problem>,
    ) -> Result<()> {
        let abs = self.root.join(rel);
        if new != existing {
            if let Err(e) = write_atomic(&abs, new.as_bytes()) {
                problems.push(Problem::error(
                    rel,
                    "projection.write",
                    format!("cannot write: {e}; the previous file is intact"),
                ));
                return Ok(());
            }
            out.written.push(rel.to_string());
        }
        out.rendered.push(rel.to_string());
        let stat = std::fs::symlink_metadata(&abs)
            .map(|m| FileStat::of(&m))
            .map_err(|e| Error::io(&abs, e))?;
        index.put_projection_state(rel, agent, scope, stat, &contract::format_ts(self.now))
    }
}

/// The ledger rows and the budget arithmetic that clips the oldest.
struct Ledger {
    rows: Vec<(String, String)>, // (UTC day, row line)
}

impl Ledger {
    fn new(sessions: &[Session], cfg: &Config) -> Ledger {
        Ledger {
            rows: sessions
                .iter()
                .map(|s| {
                    (
                        s.membership_ts.get(..10).unwrap_or("").to_string(),
                        s.ledger_row(cfg),
                    )
                })
                .collect(),
        }
    }

    /// Renders the ledger in at most `room` bytes, newest rows first. Returns the
    /// text and whether even the heading and notice did not fit.
    fn render(&self, room: usize, budget: usize) -> (String, bool) {
        let heading = format!("{LEDGER_HEADING}\n\n");
        let n = self.rows.len();
        let notice = |k: usize| {
            format!(
                "- older ledger rows clipped: kept {k} of {n} in-window sessions within the {budget}-byte budget.\n\n"
            )
        };
        let all = self.body(n);
        if heading.len() + all.len() <= room {
            return (format!("{heading}{all}"), false);
        }
        let reserve = heading.len() + notice(n).len();
        let over = reserve > room;
        let mut k = 0;
        while k < n && self.body(k + 1).len() + reserve <= room {
            k += 1;
        }
        (format!("{heading}{}{}", notice(k), self.body(k)), over)
    }

    fn body(&self, k: usize) -> String {
        let mut out = String::new();
        let mut day = "";
        for (d, row) in &self.rows[..k] {
            if d != day {
                out.push_str(&format!("### {d}\n\n"));
                day = d;
            }
            out.push_str(row);
            out.push('\n');
            out.push('\n');
        }
        out
    }
}

/// The file's current text; `None` (with a problem) when it exists but cannot be read.
fn read_existing(abs: &Path, rel: &str, problems: &mut Vec<Problem>) -> Option<String> {
    match std::fs::read(abs) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(_) => {
                problems.push(Problem::error(
                    rel,
                    "projection.encoding",
                    "not valid UTF-8; left untouched",
                ));
                None
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(String::new()),
        Err(e) => {
            problems.push(Problem::error(
                rel,
                "projection.read",
                format!("cannot read: {e}; left untouched"),
            ));
            None
        }
    }
}

/// The byte ranges of the managed block: (start of begin line, end of end line).
fn block_range(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut begin = None;
    for line in text.split_inclusive('\n') {
        if begin.is_none() && line.starts_with(BLOCK_BEGIN) {
            begin = Some(offset);
        } else if begin.is_some() && line.trim_end() == BLOCK_END {
            return begin.map(|b| (b, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

/// The text before and after the managed block (everything, when there is none).
fn outside_block(text: &str) -> (&str, &str) {
    match block_range(text) {
        Some((b, e)) => (&text[..b], &text[e..]),
        None => (text, ""),
    }
}

/// Replaces the managed block, or appends one; every other byte stays.
pub fn splice(existing: &str, block: &str) -> String {
    if let Some((b, e)) = block_range(existing) {
        return format!("{}{block}{}", &existing[..b], &existing[e..]);
    }
    let mut out = existing.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(block);
    out
}

/// Writes a file atomically: temp file in the same directory, fsync, rename, fsync the directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = atomic_write_file::AtomicWriteFile::open(path)?;
    file.write_all(bytes)?;
    file.commit()
}

/// The lease on writing projections: an advisory lock on a file in the state
/// directory. The OS releases it when the holder exits, so a crashed holder's
/// lease always expires.
pub struct WriterLock {
    _file: std::fs::File,
}

impl WriterLock {
    pub fn acquire(state_dir: &Path) -> Result<WriterLock> {
        crate::index::create_private_dir(state_dir)?;
        let path: PathBuf = state_dir.join("writer.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    return Err(Error::Locked {
                        path,
                        reason: format!(
                            "another memsync process (pid {}) is writing projections",
                            holder.trim()
                        ),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
            }
        }
        let _ = file.set_len(0);
        let _ = std::io::Write::write_all(&mut &file, std::process::id().to_string().as_bytes());
        Ok(WriterLock { _file: file })
    }
}

impl Index {
    fn projection_rows(
        &self,
        agent: &str,
        from: &str,
        to: &str,
        by_captured: bool,
    ) -> Result<Vec<Row>> {
        let filter = if by_captured {
            "(membership_ts BETWEEN ?2 AND ?3 OR captured_at BETWEEN ?2 AND ?3)"
        } else {
            "membership_ts BETWEEN ?2 AND ?3"
        };
        let sql = format!(
            "SELECT source_path, source_kind, token, session_id, session_key, project, harness, captured_at,
             membership_ts, memory_sentence, private FROM artifacts
             WHERE agent_id = ?1 AND token IN (SELECT token FROM artifacts WHERE agent_id = ?1 AND {filter})"
        );
        self.rows(&sql, params![agent, from, to], |r| {
            Ok(Row {
                path: r.get(0)?,
                kind: r.get(1)?,
                token: r.get(2)?,
                session_id: r.get(3)?,
                session_key: r.get(4)?,
                project: r.get(5)?,
                harness: r.get(6)?,
                captured_at: r.get(7)?,
                membership_ts: r.get(8)?,
                sentence: r.get(9)?,
                private: r.get(10)?,
            })
        })
    }
}
