//! The writer path: `capture session-end` and `capture compaction` write a
//! session's canonical files in the spec's order (transcript, summary,
//! manifest), then run the same pipeline as `sync` (index, projections).
//!
//! Owns: the canonical writes, their idempotency keys, the per-session lock,
//! the manifest compare-and-swap, and the failpoints that prove crash recovery.
//! Must not: write a projection or an index row itself (the pipeline does), or
//! rewrite an immutable artifact.
//!
//! Recovery: every write is atomic and each immutable artifact records the
//! idempotency key of the call that wrote it, so a rerun of an interrupted
//! call finds its own partial work, reuses its timestamps and sentence, writes
//! what is missing, and ends with exactly the files an uninterrupted run writes.

pub mod hook;
pub mod sanitize;
pub mod summarize;
pub mod transcript;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_yaml::{Mapping, Value};

use crate::compose::{self, ImmutableFields, ManifestFields, SentenceMeta, SessionIdentity};
use crate::config::Settings;
use crate::contract::{self, ArtifactKind};
use crate::error::{Error, Result};
use crate::index::Index;
use crate::lock::{Acquired, PidLock};
use crate::pipeline::{self, SyncOptions};
use crate::sentence;

pub use sanitize::SANITIZER_VERSION;

/// The sentence contract's id, recorded as `memory_sentence_version`.
pub const SENTENCE_VERSION: &str = "memory_sentence_v1";

/// The environment variable that names a failpoint (tests only).
pub const FAILPOINT_ENV: &str = "MEMSYNC_FAILPOINT";

/// The exit code of a process stopped at a failpoint.
pub const FAILPOINT_EXIT: i32 = 86;

/// Room left under the artifact size limit for the frontmatter.
const FRONTMATTER_ROOM: u64 = 64 * 1024;

/// Stops the process at `name` when `MEMSYNC_FAILPOINT` names it: a crash
/// between two writes, for the recovery tests.
pub(crate) fn failpoint(name: &str) {
    if std::env::var(FAILPOINT_ENV).is_ok_and(|v| v == name) {
        eprintln!("memsync: stopped at failpoint {name}");
        std::process::exit(FAILPOINT_EXIT);
    }
}

/// A session-end capture.
#[derive(Debug, Clone, Default)]
pub struct SessionEnd {
    pub agent_id: String,
    pub session_id: Option<String>,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: Option<String>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// The transcript file as the harness wrote it.
    pub transcript: PathBuf,
    /// A summary body to use instead of `summary.command` or extraction.
    pub summary: Option<PathBuf>,
    pub private: bool,
    pub idempotency_key: Option<String>,
    /// The project when neither `project` nor the transcript names one (a hook's cwd).
    pub project_fallback: Option<String>,
    /// When the capture happened, if not now (a queued hook job runs later).
    pub captured_at: Option<DateTime<Utc>>,
}

/// A compaction capture for a session that already has a manifest.
#[derive(Debug, Clone, Default)]
pub struct Compaction {
    pub agent_id: String,
    pub session_id: String,
    pub session_key: Option<String>,
    /// The compaction narrative (unsanitized).
    pub body: String,
    pub idempotency_key: Option<String>,
    /// When the capture happened, if not now.
    pub captured_at: Option<DateTime<Utc>>,
}

/// Whether the call wrote files or recognised a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Written,
    AlreadyCaptured,
}

/// What one capture did.
#[derive(Debug, Clone, Serialize)]
pub struct CaptureReport {
    pub kind: &'static str,
    pub outcome: Outcome,
    pub agent_id: String,
    pub session_id: String,
    pub token: String,
    pub idempotency_key: String,
    /// Every canonical file of the session after the call.
    pub files: Vec<String>,
    /// The files this call wrote.
    pub written: Vec<String>,
    pub sentence_quality: Option<String>,
    pub redactions: BTreeMap<String, usize>,
    pub skipped_lines: usize,
    /// What a person should know: kept files, sentence fallbacks, truncation.
    pub notes: Vec<String>,
    pub projections_written: Vec<String>,
}

/// One canonical file of the session already on disk.
#[derive(Debug, Clone)]
struct OnDisk {
    path: String,
    kind: ArtifactKind,
    captured_at: Option<DateTime<Utc>>,
    frontmatter: Mapping,
    body_sha256: Option<String>,
}

impl OnDisk {
    fn str(&self, key: &str) -> Option<&str> {
        self.frontmatter.get(key).and_then(Value::as_str)
    }

    fn ts(&self, key: &str) -> Option<DateTime<Utc>> {
        self.str(key).and_then(contract::parse_ts)
    }

    fn strings(&self, key: &str) -> Vec<String> {
        self.frontmatter
            .get(key)
            .and_then(Value::as_sequence)
            .map(|s| {
                s.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The canonical files of one session token, read from `memory/`.
#[derive(Debug, Default)]
struct SessionFiles {
    files: Vec<OnDisk>,
}

impl SessionFiles {
    fn load(root: &Path, token: &str) -> Result<SessionFiles> {
        let dir = root.join(contract::MEMORY_DIR);
        crate::project::file::check_real_dirs(root, &format!("{}/x", contract::MEMORY_DIR))
            .map_err(|e| Error::io(&dir, e))?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(SessionFiles::default());
            }
            Err(e) => return Err(Error::io(&dir, e)),
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue; // never read through a link
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(parsed) = contract::parse_canonical_name(&name) else {
                continue;
            };
            if parsed.token != token {
                continue;
            }
            let path = format!("{}/{name}", contract::MEMORY_DIR);
            let text =
                std::fs::read_to_string(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
            let (frontmatter, body_sha256) = match crate::parse::parse_document(&text) {
                Ok(doc) => (doc.frontmatter, Some(contract::body_sha256(doc.body))),
                Err(_) => (Mapping::new(), None),
            };
            files.push(OnDisk {
                path,
                kind: parsed.kind,
                captured_at: parsed.captured_at,
                frontmatter,
                body_sha256,
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(SessionFiles { files })
    }

    fn of_kind(&self, kind: ArtifactKind) -> impl Iterator<Item = &OnDisk> {
        self.files.iter().filter(move |f| f.kind == kind)
    }

    /// The newest file of a kind (names sort by capture time).
    fn newest(&self, kind: ArtifactKind) -> Option<&OnDisk> {
        self.of_kind(kind).last()
    }

    /// The immutable artifact of `kind` an earlier run of this same call wrote.
    fn own(&self, kind: ArtifactKind, key: &str) -> Option<&OnDisk> {
        self.of_kind(kind)
            .find(|f| f.str("idempotency_key") == Some(key))
    }

    fn paths(&self) -> Vec<String> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

    /// Refuses a session whose token already belongs to another agent or session id.
    fn check_identity(&self, agent_id: &str, session_id: &str) -> Result<()> {
        for f in &self.files {
            let (agent, id) = (f.str("agent_id"), f.str("session_id"));
            if agent.is_some_and(|a| a != agent_id)
                || id.is_some_and(|i| i.trim() != session_id.trim())
            {
                return Err(Error::Refused {
                    path: f.path.clone().into(),
                    reason: format!(
                        "its token belongs to agent {:?}, session {:?}, not agent {agent_id:?}, session {session_id:?}",
                        agent.unwrap_or("?"),
                        id.unwrap_or("?")
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The workspace-relative paths of a token's canonical files.
pub(crate) fn session_file_paths(root: &Path, token: &str) -> Result<Vec<String>> {
    Ok(SessionFiles::load(root, token)?.paths())
}

/// The session ids a token's files name (normally one).
pub(crate) fn session_ids(root: &Path, token: &str) -> Result<Vec<String>> {
    let files = SessionFiles::load(root, token)?;
    let mut ids: Vec<String> = files
        .files
        .iter()
        .filter_map(|f| f.str("session_id").map(String::from))
        .collect();
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// The session and the call a capture writes for.
struct Target<'r> {
    kind: &'static str,
    agent_id: &'r str,
    session_id: &'r str,
    session_key: Option<&'r str>,
    idempotency_key: Option<String>,
    /// When the capture happened, if not now.
    stamp: Option<DateTime<Utc>>,
}

/// What a capture produced besides files, for its report.
#[derive(Default)]
struct Produced {
    quality: Option<String>,
    redactions: BTreeMap<String, usize>,
    skipped_lines: usize,
}

/// Everything a capture holds while it writes one session.
struct Writer<'a> {
    kind: &'static str,
    agent_id: String,
    session_id: String,
    settings: &'a Settings,
    /// The clock projections are rendered at.
    now: DateTime<Utc>,
    /// The time new files are stamped with (`captured_at`, `updated_at`, sentence time).
    stamp: DateTime<Utc>,
    token: String,
    key: String,
    existing: SessionFiles,
    written: Vec<String>,
    notes: Vec<String>,
    _lock: PidLock,
}

impl<'a> Writer<'a> {
    fn open(settings: &'a Settings, now: DateTime<Utc>, target: Target<'_>) -> Result<Writer<'a>> {
        let Target {
            kind,
            agent_id,
            session_id,
            session_key,
            idempotency_key: key,
            stamp,
        } = target;
        if !contract::is_valid_agent_id(agent_id) {
            return Err(Error::Usage(format!(
                "agent id {agent_id:?} must match ^[a-z0-9][a-z0-9-]*$ (it becomes a path segment)"
            )));
        }
        if session_id.trim().is_empty() {
            return Err(Error::Usage("the session id is empty".into()));
        }
        let token = contract::token_for(
            settings.config.token.write_rule,
            agent_id,
            session_key,
            session_id,
        );
        let lock = session_lock(settings, agent_id, &token)?;
        let tombstone = contract::tombstone_path(agent_id, &token);
        if settings.root.join(&tombstone).exists() {
            return Err(Error::Refused {
                path: tombstone.into(),
                reason: "this session was forgotten; its tombstone keeps it out".into(),
            });
        }
        let existing = SessionFiles::load(&settings.root, &token)?;
        existing.check_identity(agent_id, session_id)?;
        Ok(Writer {
            kind,
            agent_id: agent_id.to_string(),
            session_id: session_id.to_string(),
            settings,
            now,
            stamp: stamp.unwrap_or(now),
            key: key.unwrap_or_else(|| format!("{kind}:{token}")),
            token,
            existing,
            written: Vec::new(),
            notes: Vec::new(),
            _lock: lock,
        })
    }

    fn path(&self, kind: ArtifactKind, captured_at: DateTime<Utc>) -> String {
        format!(
            "{}/{}",
            contract::MEMORY_DIR,
            contract::canonical_file_name(captured_at, &self.token, kind)
        )
    }

    /// Whether the manifest already records this call as complete.
    fn already_captured(&self) -> bool {
        self.existing
            .newest(ArtifactKind::Manifest)
            .is_some_and(|m| m.strings("idempotency_keys").contains(&self.key))
    }

    /// Writes an immutable artifact unless an identical one exists. A
    /// different one is refused, except transcripts: the first write wins.
    fn write_immutable(
        &mut self,
        kind: ArtifactKind,
        rel: &str,
        text: &str,
        body: &str,
    ) -> Result<String> {
        let sha = contract::body_sha256(body);
        if let Some(found) = self
            .existing
            .of_kind(kind)
            .find(|f| f.body_sha256.as_deref() == Some(&sha))
        {
            return Ok(found.path.clone());
        }
        if let Some(found) = self.existing.newest(kind) {
            if kind == ArtifactKind::Transcript {
                self.notes.push(format!(
                    "kept the existing transcript {} (first write wins)",
                    found.path
                ));
                return Ok(found.path.clone());
            }
            return Err(Error::Refused {
                path: found.path.clone().into(),
                reason: format!(
                    "the session already has a {kind} with different content; {kind}s are immutable"
                ),
            });
        }
        write_new(&self.settings.root, rel, text)?;
        self.written.push(rel.to_string());
        Ok(rel.to_string())
    }

    /// Rewrites the manifest with compare-and-swap on `revision`: the change is
    /// computed from a fresh read and written only if the revision is unchanged;
    /// a lost race starts again.
    fn update_manifest(
        &mut self,
        id: &SessionIdentity,
        change: impl Fn(&mut ManifestFields),
    ) -> Result<String> {
        const ATTEMPTS: usize = 5;
        for _ in 0..ATTEMPTS {
            let current = SessionFiles::load(&self.settings.root, &self.token)?;
            let found = current.newest(ArtifactKind::Manifest);
            let (rel, captured_at, mut fields) = match found {
                Some(m) => (
                    m.path.clone(),
                    m.captured_at.unwrap_or(self.stamp),
                    manifest_fields(m),
                ),
                None => {
                    let captured_at = self.stamp;
                    (
                        self.path(ArtifactKind::Manifest, captured_at),
                        captured_at,
                        ManifestFields::default(),
                    )
                }
            };
            let before = fields.clone();
            change(&mut fields);
            if fields == before && found.is_some() {
                return Ok(rel);
            }
            fields.revision = before.revision + 1;
            fields.updated_at = self.stamp;
            let text = compose::manifest_document(id, captured_at, &fields);
            let still = SessionFiles::load(&self.settings.root, &self.token)?;
            let revision_now = still
                .newest(ArtifactKind::Manifest)
                .map(|m| manifest_fields(m).revision);
            if revision_now != found.map(|_| before.revision) {
                continue;
            }
            crate::project::file::write_in_workspace(&self.settings.root, &rel, text.as_bytes())
                .map_err(|e| Error::io(self.settings.root.join(&rel), e))?;
            self.written.push(rel.clone());
            return Ok(rel);
        }
        Err(Error::Locked {
            path: self.settings.root.join(contract::MEMORY_DIR),
            reason: format!(
                "the manifest of session {} kept changing; gave up after {ATTEMPTS} attempts",
                self.token
            ),
        })
    }

    /// Indexes the session's files and renders the projections, then records
    /// the capture: the same pipeline as `sync`.
    fn finish(mut self, outcome: Outcome, produced: Produced) -> Result<CaptureReport> {
        let kind = self.kind;
        let files = SessionFiles::load(&self.settings.root, &self.token)?.paths();
        let mut index = Index::open(&self.settings.index_path())?;
        let report = pipeline::sync_paths(
            &mut index,
            self.settings,
            self.now,
            SyncOptions::RENDER,
            &files,
        )?;
        failpoint("after-memory-md");
        index.set_meta(
            "last_capture",
            &format!("{} {kind} {}", contract::format_ts(self.stamp), self.token),
        )?;
        failpoint("after-index");
        Ok(CaptureReport {
            kind,
            outcome,
            agent_id: std::mem::take(&mut self.agent_id),
            session_id: std::mem::take(&mut self.session_id),
            token: std::mem::take(&mut self.token),
            idempotency_key: std::mem::take(&mut self.key),
            files,
            written: std::mem::take(&mut self.written),
            sentence_quality: produced.quality,
            redactions: produced.redactions,
            skipped_lines: produced.skipped_lines,
            notes: std::mem::take(&mut self.notes),
            projections_written: report.projections_written,
        })
    }
}

fn manifest_fields(m: &OnDisk) -> ManifestFields {
    ManifestFields {
        summary_path: m.str("summary_path").map(String::from),
        transcript_path: m.str("transcript_path").map(String::from),
        compaction_path: m.str("compaction_path").map(String::from),
        memory_md_refs: m.strings("memory_md_refs"),
        updated_at: m.ts("updated_at").unwrap_or_default(),
        revision: m
            .frontmatter
            .get("revision")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        idempotency_keys: m.strings("idempotency_keys"),
    }
}

/// The per-session lock: captures of one session run one at a time.
pub(crate) fn session_lock(settings: &Settings, agent_id: &str, token: &str) -> Result<PidLock> {
    let dir = settings.state_dir().join("locks");
    match PidLock::acquire(
        &dir,
        &format!("{agent_id}--{token}.lock"),
        Duration::from_secs(60),
    )? {
        Acquired::Held(lock) => Ok(lock),
        Acquired::Busy { path, holder } => Err(Error::Locked {
            path,
            reason: format!("another capture of this session (pid {holder}) is still running"),
        }),
    }
}

/// Writes a new file atomically; never replaces one that appeared meanwhile.
fn write_new(root: &Path, rel: &str, text: &str) -> Result<()> {
    let path = root.join(rel);
    if path.exists() {
        return Err(Error::Refused {
            path,
            reason: "a file with this name appeared while capturing".into(),
        });
    }
    crate::project::file::write_in_workspace(root, rel, text.as_bytes())
        .map_err(|e| Error::io(&path, e))
}

/// The memory sentence for a body: `sentence.command` checked against the
/// floor, else the deterministic fallback. One call at most.
fn memory_sentence(
    settings: &Settings,
    now: DateTime<Utc>,
    body: &str,
    id: &SessionIdentity,
    token: &str,
    kinds: &[&str],
    notes: &mut Vec<String>,
) -> SentenceMeta {
    let cfg = &settings.config.sentence;
    let candidate = cfg.command.as_deref().and_then(|cmd| {
        match summarize::run_command(cmd, body, Duration::from_secs(cfg.timeout_seconds)) {
            Ok(out) => Some(out.split_whitespace().collect::<Vec<_>>().join(" ")),
            Err(e) => {
                notes.push(format!("sentence command: {e}; used the fallback"));
                None
            }
        }
    });
    if let Some(s) = candidate {
        match sentence::check(&s, id.project.as_deref(), cfg) {
            None => return meta(s, "ok", now),
            Some(why) => notes.push(format!(
                "sentence command's sentence {why}; used the fallback"
            )),
        }
    }
    let identity = id.session_key.as_deref().unwrap_or(&id.session_id);
    let text = sentence::fallback(&sentence::SessionFacts {
        harness: Some(&id.harness),
        identity,
        project: id.project.as_deref(),
        membership_ts: &contract::format_ts(id.ended_at.unwrap_or(now)),
        token,
        kinds,
    });
    meta(text, "fallback", now)
}

fn meta(text: String, quality: &str, now: DateTime<Utc>) -> SentenceMeta {
    SentenceMeta {
        text,
        quality: quality.into(),
        version: SENTENCE_VERSION.into(),
        generated_at: now,
    }
}

/// The sentence an earlier run of this call stored, so a rerun does not ask again.
fn stored_sentence(f: &OnDisk) -> Option<SentenceMeta> {
    Some(SentenceMeta {
        text: f.str("memory_sentence")?.to_string(),
        quality: f.str("memory_sentence_quality")?.to_string(),
        version: f
            .str("memory_sentence_version")
            .unwrap_or(SENTENCE_VERSION)
            .to_string(),
        generated_at: f.ts("memory_sentence_generated_at")?,
    })
}

/// A file's text, or stdin's for `-` (lossy: a transcript is never refused for its encoding).
pub fn read_input(path: &Path) -> Result<String> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Error::io(path, e))?
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A captured body must not make its own artifact invalid: when a transcript
/// quotes a wikilink that memsync would reject (`[[../x]]`, `[[/etc/passwd]]`),
/// every `[[` is escaped to `[\[`, which reads the same and links nowhere.
fn inert_invalid_links(body: String) -> String {
    let mut problems = Vec::new();
    crate::validate::check_body_links("", &crate::parse::extract_wikilinks(&body), &mut problems);
    if problems.is_empty() {
        body
    } else {
        body.replace("[[", "[\\[")
    }
}

/// Keeps a body under the artifact size limit, dropping its beginning with a note.
fn fit(body: String, settings: &Settings, notes: &mut Vec<String>) -> String {
    let limit = settings
        .config
        .scan
        .max_file_bytes
        .saturating_sub(FRONTMATTER_ROOM) as usize;
    if body.len() <= limit {
        return body;
    }
    let mut cut = body.len() - limit + 128;
    while !body.is_char_boundary(cut) {
        cut += 1;
    }
    notes.push(format!(
        "transcript cut to its last {} bytes to stay under scan.max_file_bytes",
        body.len() - cut
    ));
    format!(
        "[transcript truncated: the first {cut} bytes were dropped]\n\n{}",
        &body[cut..]
    )
}

/// Captures a finished session: transcript, summary, manifest, then the pipeline.
pub fn session_end(
    settings: &Settings,
    now: DateTime<Utc>,
    req: &SessionEnd,
) -> Result<CaptureReport> {
    let raw = read_input(&req.transcript)?;
    let t = transcript::read(&raw);
    let session_id = req
        .session_id
        .clone()
        .or_else(|| t.session_id.clone())
        .ok_or_else(|| {
            Error::Usage(format!(
                "{}: no --session-id given and the transcript names none",
                req.transcript.display()
            ))
        })?;
    let mut w = Writer::open(
        settings,
        now,
        Target {
            kind: "session-end",
            agent_id: &req.agent_id,
            session_id: &session_id,
            session_key: req.session_key.as_deref(),
            idempotency_key: req.idempotency_key.clone(),
            stamp: req.captured_at,
        },
    )?;
    let stamp = w.stamp;
    let id = SessionIdentity {
        agent_id: req.agent_id.clone(),
        session_id: session_id.clone(),
        session_key: req.session_key.clone().filter(|k| !k.trim().is_empty()),
        project: req
            .project
            .clone()
            .or_else(|| t.project.clone())
            .or_else(|| req.project_fallback.clone()),
        harness: req
            .harness
            .clone()
            .or_else(|| t.format.harness().map(String::from))
            .unwrap_or_else(|| "manual".into()),
        started_at: req.started_at.or(t.started_at),
        ended_at: req.ended_at.or(t.ended_at),
        private: req.private,
    };
    if w.already_captured() {
        return w.finish(Outcome::AlreadyCaptured, Produced::default());
    }
    // A rerun of an interrupted call keeps the time and sentence it chose first.
    let own_transcript = w.existing.own(ArtifactKind::Transcript, &w.key).cloned();
    let own_summary = w.existing.own(ArtifactKind::Summary, &w.key).cloned();
    let captured_at = own_transcript
        .as_ref()
        .or(own_summary.as_ref())
        .and_then(|f| f.captured_at)
        .unwrap_or(stamp);

    let sanitized = sanitize::sanitize(&t.to_markdown());
    let transcript_body = inert_invalid_links(fit(sanitized.text.clone(), settings, &mut w.notes));
    let mut redactions: BTreeMap<String, usize> = sanitized
        .redactions
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let summary_body = summary_body(settings, req, &t, &transcript_body, &mut w.notes)?;
    for (k, v) in summary_body.redactions {
        *redactions.entry(k.to_string()).or_default() += v;
    }
    let summary_body = inert_invalid_links(summary_body.text);
    let sentence = own_transcript
        .as_ref()
        .or(own_summary.as_ref())
        .and_then(stored_sentence)
        .unwrap_or_else(|| {
            memory_sentence(
                settings,
                stamp,
                &summary_body,
                &id,
                &w.token,
                &["summary", "transcript"],
                &mut w.notes,
            )
        });

    let manifest_rel = w
        .existing
        .newest(ArtifactKind::Manifest)
        .map(|m| m.path.clone())
        .unwrap_or_else(|| w.path(ArtifactKind::Manifest, captured_at));
    let doc = |kind, body: &str| {
        let fields = ImmutableFields {
            kind,
            captured_at,
            manifest_path: &manifest_rel,
            sentence: &sentence,
            sanitizer_version: (kind == ArtifactKind::Transcript).then_some(SANITIZER_VERSION),
            idempotency_key: Some(&w.key),
        };
        compose::immutable_document(&id, &fields, body)
    };
    let (transcript_text, summary_text) = (
        doc(ArtifactKind::Transcript, &transcript_body),
        doc(ArtifactKind::Summary, &summary_body),
    );
    let transcript_rel = w.write_immutable(
        ArtifactKind::Transcript,
        &w.path(ArtifactKind::Transcript, captured_at),
        &transcript_text,
        &transcript_body,
    )?;
    failpoint("after-transcript");
    let summary_rel = w.write_immutable(
        ArtifactKind::Summary,
        &w.path(ArtifactKind::Summary, captured_at),
        &summary_text,
        &summary_body,
    )?;
    failpoint("after-summary");
    let key = w.key.clone();
    let refs = if id.private {
        Vec::new()
    } else {
        vec![crate::project::memory_md_path(&id.agent_id)]
    };
    w.update_manifest(&id, |m| {
        m.summary_path = Some(summary_rel.clone());
        m.transcript_path = Some(transcript_rel.clone());
        m.memory_md_refs = refs.clone();
        if !m.idempotency_keys.contains(&key) {
            m.idempotency_keys.push(key.clone());
        }
    })?;
    failpoint("after-manifest");
    let produced = Produced {
        quality: Some(sentence.quality.clone()),
        redactions,
        skipped_lines: t.skipped_lines,
    };
    w.finish(Outcome::Written, produced)
}

/// The summary body: the given file, an earlier run's, the configured command, or extraction.
fn summary_body(
    settings: &Settings,
    req: &SessionEnd,
    t: &transcript::Transcript,
    sanitized_transcript: &str,
    notes: &mut Vec<String>,
) -> Result<sanitize::Sanitized> {
    if let Some(path) = &req.summary {
        return Ok(sanitize::sanitize(&read_input(path)?));
    }
    let cfg = &settings.config.summary;
    if let Some(cmd) = &cfg.command {
        match summarize::run_command(
            cmd,
            sanitized_transcript,
            Duration::from_secs(cfg.timeout_seconds),
        ) {
            Ok(out) => return Ok(sanitize::sanitize(&out)),
            Err(e) => notes.push(format!("summary command: {e}; used the extractive summary")),
        }
    }
    Ok(sanitize::sanitize(&summarize::extractive(t)))
}

/// Captures a compaction of a known session: the immutable compaction
/// artifact, then the manifest's `compaction_path`, then the pipeline.
pub fn compaction(
    settings: &Settings,
    now: DateTime<Utc>,
    req: &Compaction,
) -> Result<CaptureReport> {
    let mut w = Writer::open(
        settings,
        now,
        Target {
            kind: "compaction",
            agent_id: &req.agent_id,
            session_id: &req.session_id,
            session_key: req.session_key.as_deref(),
            idempotency_key: req.idempotency_key.clone(),
            stamp: req.captured_at,
        },
    )?;
    let stamp = w.stamp;
    let Some(manifest) = w.existing.newest(ArtifactKind::Manifest).cloned() else {
        return Err(Error::UnknownSession(format!(
            "{:?} of agent {:?} (token {}): a compaction needs the session's manifest; capture its session end first",
            req.session_id, req.agent_id, w.token
        )));
    };
    if w.already_captured() && manifest.str("compaction_path").is_some() {
        return w.finish(Outcome::AlreadyCaptured, Produced::default());
    }
    let id = SessionIdentity {
        agent_id: req.agent_id.clone(),
        session_id: req.session_id.clone(),
        session_key: manifest.str("session_key").map(String::from),
        project: manifest.str("project").map(String::from),
        harness: manifest.str("harness").unwrap_or("manual").to_string(),
        started_at: manifest.ts("started_at"),
        ended_at: manifest.ts("ended_at"),
        private: manifest
            .frontmatter
            .get("private")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    };
    let mut sanitized = sanitize::sanitize(&req.body);
    sanitized.text = inert_invalid_links(sanitized.text);
    let own = w.existing.own(ArtifactKind::Compaction, &w.key).cloned();
    let captured_at = own.as_ref().and_then(|f| f.captured_at).unwrap_or(stamp);
    let sentence = own.as_ref().and_then(stored_sentence).unwrap_or_else(|| {
        memory_sentence(
            settings,
            stamp,
            &sanitized.text,
            &id,
            &w.token,
            &["compaction"],
            &mut w.notes,
        )
    });
    let fields = ImmutableFields {
        kind: ArtifactKind::Compaction,
        captured_at,
        manifest_path: &manifest.path,
        sentence: &sentence,
        sanitizer_version: None,
        idempotency_key: Some(&w.key),
    };
    let text = compose::immutable_document(&id, &fields, &sanitized.text);
    let rel = w.path(ArtifactKind::Compaction, captured_at);
    let compaction_rel =
        w.write_immutable(ArtifactKind::Compaction, &rel, &text, &sanitized.text)?;
    failpoint("after-compaction");
    let key = w.key.clone();
    w.update_manifest(&id, |m| {
        m.compaction_path = Some(compaction_rel.clone());
        if !m.idempotency_keys.contains(&key) {
            m.idempotency_keys.push(key.clone());
        }
    })?;
    failpoint("after-manifest");
    let redactions = sanitized
        .redactions
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    let produced = Produced {
        quality: Some(sentence.quality.clone()),
        redactions,
        skipped_lines: 0,
    };
    w.finish(Outcome::Written, produced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_invalid_wikilinks_are_made_inert_and_valid_ones_kept() {
        let valid = "see [[memory/2026-03-28T22-34-06.792Z--gwar7autu3gbs32c--summary.md|summary]]"
            .to_string();
        assert_eq!(inert_invalid_links(valid.clone()), valid);
        let hostile = inert_invalid_links("open [[../../etc/passwd]] and [[/abs]]".into());
        assert_eq!(hostile, "open [\\[../../etc/passwd]] and [\\[/abs]]");
        assert!(crate::parse::extract_wikilinks(&hostile).is_empty());
    }
}
