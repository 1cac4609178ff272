//! The writer's hold on one session: its canonical files on disk, the
//! per-session lock, immutable writes that never replace, and the manifest
//! compare-and-swap.
//!
//! Owns: reading a token's files back, the lock, and the two write paths.
//! Must not: decide what to write (the capture entry points do).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_yaml::{Mapping, Value};

use super::{CaptureReport, Outcome, failpoint};
use crate::compose::{self, ManifestFields, SessionIdentity};
use crate::config::Settings;
use crate::contract::{self, ArtifactKind};
use crate::error::{CaptureError, Error, Result, UsageError};
use crate::lock::{Acquired, PidLock};
use crate::pipeline::{self, SyncOptions};
use crate::store::Index;

/// One canonical file of the session already on disk.
#[derive(Debug, Clone)]
pub(super) struct OnDisk {
    pub(super) path: String,
    pub(super) kind: ArtifactKind,
    pub(super) captured_at: Option<DateTime<Utc>>,
    pub(super) frontmatter: Mapping,
    pub(super) body_sha256: Option<String>,
    /// A compaction's [`fingerprint`](crate::transcript::compaction::fingerprint).
    pub(super) summary_print: Option<String>,
}

impl OnDisk {
    pub(super) fn str(&self, key: &str) -> Option<&str> {
        self.frontmatter.get(key).and_then(Value::as_str)
    }

    pub(super) fn ts(&self, key: &str) -> Option<DateTime<Utc>> {
        self.str(key).and_then(contract::parse_ts)
    }

    pub(super) fn strings(&self, key: &str) -> Vec<String> {
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
pub(super) struct SessionFiles {
    pub(super) files: Vec<OnDisk>,
}

impl SessionFiles {
    pub(super) fn load(root: &Path, token: &str) -> Result<SessionFiles> {
        let dir = root.join(contract::MEMORY_DIR);
        crate::files::check_real_dirs(root, &format!("{}/x", contract::MEMORY_DIR))
            .map_err(|e| Error::io(&dir, e))?;
        // A listed file gone when read (a `forget`, a checkout): list again, once.
        for fresh in [false, true] {
            if fresh {
                super::listing::forget();
            }
            match Self::read(&dir, token) {
                Ok(files) => return Ok(SessionFiles { files }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !dir.exists() => {
                    return Ok(SessionFiles::default());
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !fresh => {}
                Err(e) => return Err(Error::io(&dir, e)),
            }
        }
        Ok(SessionFiles::default())
    }

    fn read(dir: &Path, token: &str) -> std::io::Result<Vec<OnDisk>> {
        let mut files = Vec::new();
        for name in super::listing::names_of(dir, token)? {
            let Some(parsed) = contract::parse_canonical_name(&name) else {
                continue;
            };
            let path = format!("{}/{name}", contract::MEMORY_DIR);
            let text = crate::files::read_text(&dir.join(&name))?;
            let (frontmatter, body_sha256, summary_print) =
                match crate::parse::parse_document(&text) {
                    Ok(doc) => (
                        doc.frontmatter,
                        Some(contract::body_sha256(doc.body)),
                        (parsed.kind == ArtifactKind::Compaction)
                            .then(|| crate::transcript::compaction::fingerprint(doc.body))
                            .flatten(),
                    ),
                    Err(_) => (Mapping::new(), None, None),
                };
            files.push(OnDisk {
                path,
                kind: parsed.kind,
                captured_at: parsed.captured_at,
                frontmatter,
                body_sha256,
                summary_print,
            });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    pub(super) fn of_kind(&self, kind: ArtifactKind) -> impl Iterator<Item = &OnDisk> {
        self.files.iter().filter(move |f| f.kind == kind)
    }

    /// The newest file of a kind (names sort by capture time).
    pub(super) fn newest(&self, kind: ArtifactKind) -> Option<&OnDisk> {
        self.of_kind(kind).last()
    }

    /// Whether the session holds a compaction with this summary already (the
    /// hook's copy, when the transcript's arrives, or the other way round).
    pub(super) fn has_compaction(&self, body: &str) -> bool {
        let print = crate::transcript::compaction::fingerprint(body);
        print.is_some()
            && self
                .of_kind(ArtifactKind::Compaction)
                .any(|f| f.summary_print == print)
    }

    /// The immutable artifact of `kind` an earlier run of this same call wrote.
    pub(super) fn own(&self, kind: ArtifactKind, key: &str) -> Option<&OnDisk> {
        self.of_kind(kind)
            .find(|f| f.str("idempotency_key") == Some(key))
    }

    pub(super) fn paths(&self) -> Vec<String> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

    /// Refuses a session whose token already belongs to another agent or session id.
    pub(super) fn check_identity(&self, agent_id: &str, session_id: &str) -> Result<()> {
        for f in &self.files {
            let (agent, id) = (f.str("agent_id"), f.str("session_id"));
            if agent.is_some_and(|a| a != agent_id)
                || id.is_some_and(|i| i.trim() != session_id.trim())
            {
                return Err(CaptureError::Refused {
                    path: f.path.clone().into(),
                    reason: format!(
                        "its token belongs to agent {:?}, session {:?}, not agent {agent_id:?}, session {session_id:?}",
                        agent.unwrap_or("?"),
                        id.unwrap_or("?")
                    ),
                }.into());
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
pub(super) struct Target<'r> {
    pub(super) kind: &'static str,
    pub(super) agent_id: &'r str,
    pub(super) session_id: &'r str,
    pub(super) session_key: Option<&'r str>,
    pub(super) idempotency_key: Option<String>,
    /// When the capture happened, if not now.
    pub(super) stamp: Option<DateTime<Utc>>,
}

/// What a capture produced besides files, for its report.
#[derive(Default)]
pub(super) struct Produced {
    pub(super) quality: Option<String>,
    pub(super) redactions: BTreeMap<String, usize>,
    pub(super) skipped_lines: usize,
}

/// Everything a capture holds while it writes one session.
pub(super) struct Writer<'a> {
    pub(super) kind: &'static str,
    pub(super) agent_id: String,
    pub(super) session_id: String,
    pub(super) settings: &'a Settings,
    /// The clock projections are rendered at.
    pub(super) now: DateTime<Utc>,
    /// The time new files are stamped with (`captured_at`, `updated_at`, sentence time).
    pub(super) stamp: DateTime<Utc>,
    pub(super) token: String,
    pub(super) key: String,
    pub(super) existing: SessionFiles,
    pub(super) written: Vec<String>,
    pub(super) notes: Vec<String>,
    /// Render projections after indexing; off when the caller renders once
    /// after a batch of captures (harvest).
    pub(super) render: bool,
    /// Index what was written (else the caller does).
    pub(super) index: bool,
    pub(super) _lock: PidLock,
}

impl<'a> Writer<'a> {
    pub(super) fn open(
        settings: &'a Settings,
        now: DateTime<Utc>,
        target: Target<'_>,
    ) -> Result<Writer<'a>> {
        let Target {
            kind,
            agent_id,
            session_id,
            session_key,
            idempotency_key: key,
            stamp,
        } = target;
        if !contract::is_valid_agent_id(agent_id) {
            return Err(Error::value(
                "--agent",
                agent_id,
                "must match ^[a-z0-9][a-z0-9-]*$ (it becomes a path segment)",
            ));
        }
        if session_id.trim().is_empty() {
            return Err(UsageError::Missing {
                flag: "--session-id",
                reason: "is empty",
            }
            .into());
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
            return Err(CaptureError::Refused {
                path: tombstone.into(),
                reason: "this session was forgotten; its tombstone keeps it out".into(),
            }
            .into());
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
            render: true,
            index: true,
            _lock: lock,
        })
    }

    pub(super) fn path(&self, kind: ArtifactKind, captured_at: DateTime<Utc>) -> String {
        format!(
            "{}/{}",
            contract::MEMORY_DIR,
            contract::canonical_file_name(captured_at, &self.token, kind)
        )
    }

    /// Where the manifest goes when there is none yet: where the session's
    /// artifacts already say it is (an earlier run wrote them and was cut
    /// short, maybe hours ago), else a new one stamped now.
    fn promised_manifest(&self, current: &SessionFiles) -> (String, DateTime<Utc>) {
        let prefix = format!("{}/", contract::MEMORY_DIR);
        let promised = current.files.iter().find_map(|f| {
            let rel = f.str("manifest_path")?;
            let name = contract::parse_canonical_name(rel.strip_prefix(&prefix)?)?;
            (name.kind == ArtifactKind::Manifest && name.token == self.token)
                .then_some((rel.to_string(), name.captured_at?))
        });
        promised.unwrap_or_else(|| (self.path(ArtifactKind::Manifest, self.stamp), self.stamp))
    }

    /// Whether the manifest already records this call as complete.
    pub(super) fn already_captured(&self) -> bool {
        self.existing
            .newest(ArtifactKind::Manifest)
            .is_some_and(|m| m.strings("idempotency_keys").contains(&self.key))
    }

    /// Writes an immutable artifact unless an identical one exists. When this
    /// call writes an existing part `again`, or an artifact with its `key`
    /// exists, different content is refused, except transcripts: the first
    /// write wins.
    pub(super) fn write_immutable(
        &mut self,
        kind: ArtifactKind,
        rel: &str,
        (text, body): (&str, &str),
        key: &str,
        again: bool,
    ) -> Result<String> {
        let sha = contract::body_sha256(body);
        if let Some(found) = self
            .existing
            .of_kind(kind)
            .find(|f| f.body_sha256.as_deref() == Some(&sha))
        {
            return Ok(found.path.clone());
        }
        let clash = if again {
            self.existing.newest(kind)
        } else {
            self.existing.own(kind, key)
        };
        if let Some(found) = clash {
            if kind == ArtifactKind::Transcript {
                self.notes.push(format!(
                    "kept the existing transcript {} (first write wins)",
                    found.path
                ));
                return Ok(found.path.clone());
            }
            return Err(CaptureError::Refused {
                path: found.path.clone().into(),
                reason: format!(
                    "the session already has a {kind} with different content; {kind}s are immutable"
                ),
            }
            .into());
        }
        write_new(&self.settings.root, rel, text)?;
        self.written.push(rel.to_string());
        Ok(rel.to_string())
    }

    /// Rewrites the manifest with compare-and-swap on `revision`: the change is
    /// computed from a fresh read and written only if the revision is unchanged;
    /// a lost race starts again.
    pub(super) fn update_manifest(
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
                    let (rel, captured_at) = self.promised_manifest(&current);
                    (rel, captured_at, ManifestFields::default())
                }
            };
            let before = fields.clone();
            change(&mut fields);
            if fields == before && found.is_some() {
                if !self.written.is_empty() {
                    let path = self.settings.root.join(&rel);
                    crate::files::sync_dir(&path).map_err(|e| Error::io(&path, e))?;
                }
                return Ok(rel);
            }
            fields.revision = before.revision + 1;
            fields.updated_at = self.stamp;
            let body = manifest_body_of(&current, &fields);
            let text = compose::manifest_document(id, captured_at, &fields, &body);
            let still = SessionFiles::load(&self.settings.root, &self.token)?;
            let revision_now = still
                .newest(ArtifactKind::Manifest)
                .map(|m| manifest_fields(m).revision);
            if revision_now != found.map(|_| before.revision) {
                continue;
            }
            let path = self.settings.root.join(&rel);
            if !self.written.is_empty() {
                // The files written before it first: the manifest names them.
                crate::files::sync_dir(&path).map_err(|e| Error::io(&path, e))?;
            }
            write_canonical(&self.settings.root, &rel, text.as_bytes(), Durable::Now)
                .map_err(|e| Error::io(&path, e))?;
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
    pub(super) fn finish(mut self, outcome: Outcome, produced: Produced) -> Result<CaptureReport> {
        let kind = self.kind;
        let files = SessionFiles::load(&self.settings.root, &self.token)?.paths();
        let (mut projections_written, mut projections_held) = (Vec::new(), Vec::new());
        if self.index {
            let mut index = Index::open(&self.settings.index_path())?;
            let options = match self.render {
                true => SyncOptions::RENDER,
                false => SyncOptions::INDEX_ONLY,
            };
            let report =
                pipeline::sync_paths(&mut index, self.settings, self.now, options, &files)?;
            projections_written = report.projections_written;
            projections_held = report.projections_held;
            failpoint("after-memory-md");
            index.set_meta(
                "last_capture",
                &format!("{} {kind} {}", contract::format_ts(self.stamp), self.token),
            )?;
            failpoint("after-index");
        }
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
            projections_written,
            projections_held,
        })
    }
}

pub(super) fn manifest_fields(m: &OnDisk) -> ManifestFields {
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
        kept: m
            .frontmatter
            .iter()
            .filter_map(|(k, v)| Some((k.as_str()?, v)))
            .filter(|(k, _)| !crate::validate::is_manifest_key(k))
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
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
pub(super) fn write_new(root: &Path, rel: &str, text: &str) -> Result<()> {
    let path = root.join(rel);
    if path.exists() {
        return Err(CaptureError::Refused {
            path,
            reason: "a file with this name appeared while capturing".into(),
        }
        .into());
    }
    write_canonical(root, rel, text.as_bytes(), Durable::Later).map_err(|e| Error::io(&path, e))
}

/// When a canonical file's name is made durable.
#[derive(Clone, Copy)]
enum Durable {
    /// With the manifest: the directory is synced once before the manifest is
    /// renamed into it (so it never names a file a crash could lose) and
    /// once after. A session's files cost one fsync each and two for the
    /// directory, where each file cost two.
    Later,
    /// Now: the manifest, last of its session.
    Now,
}

/// Writes a canonical file atomically and keeps the `memory/` listing current.
fn write_canonical(root: &Path, rel: &str, bytes: &[u8], durable: Durable) -> std::io::Result<()> {
    let dir = root.join(contract::MEMORY_DIR);
    let before = super::listing::before_write(&dir);
    let written = match durable {
        Durable::Later => crate::files::write_in_workspace_unsynced(root, rel, bytes),
        Durable::Now => crate::files::write_in_workspace(root, rel, bytes),
    };
    let name = rel.strip_prefix(&format!("{}/", contract::MEMORY_DIR));
    match (&written, name) {
        (Ok(()), Some(name)) if !name.contains('/') => {
            super::listing::written(&dir, name, before);
        }
        _ => super::listing::forget(),
    }
    written
}

/// The manifest's body for `files` (the session's parts on disk, the ones
/// this capture wrote included): the sentence of the summary it names.
fn manifest_body_of(files: &SessionFiles, m: &ManifestFields) -> String {
    let sentence = m
        .summary_path
        .as_deref()
        .and_then(|p| files.files.iter().find(|f| f.path == p))
        .and_then(|f| f.str("memory_sentence"));
    let parts: Vec<compose::ManifestPart<'_>> = files
        .files
        .iter()
        .map(|f| compose::ManifestPart {
            captured_at: f.captured_at,
            kind: f.kind,
            path: &f.path,
        })
        .collect();
    compose::manifest_body(sentence, &parts)
}
