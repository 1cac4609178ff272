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

mod brief;
mod clip;
mod gist;
mod greetings;
mod hook_file;
mod listing;
pub mod model;
pub mod outcome;
mod reading;
mod remarks;

pub mod sanitize;
mod session_end;
pub mod summarize;
mod ties;

mod writer;

use crate::transcript;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_yaml::Value;

use crate::compose::{self, ImmutableFields, SentenceMeta, SessionIdentity};
use crate::config::Settings;
use crate::contract::{self, ArtifactKind};
use crate::error::{CaptureError, Error, Result};
use crate::sentence;

pub use sanitize::SANITIZER_VERSION;
pub use session_end::{session_end, session_end_of};
use writer::{OnDisk, Produced, Target, Writer};
pub(crate) use writer::{session_file_paths, session_ids, session_lock};

/// The sentence contract's id, recorded as `memory_sentence_version`.
pub const SENTENCE_VERSION: &str = "memory_sentence_v1";

/// The environment variable that names a failpoint (tests only).
pub const FAILPOINT_ENV: &str = "MEMSYNC_FAILPOINT";

/// The exit code of a process stopped at a failpoint.
pub const FAILPOINT_EXIT: i32 = 86;

/// Room left under the artifact size limit for the frontmatter.
pub(crate) const FRONTMATTER_ROOM: u64 = 64 * 1024;

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
    /// Index only: the caller renders the projections once after a batch
    /// (harvest). The dirty marks stay until it does, so a crash loses nothing.
    pub defer_render: bool,
    /// Leave indexing to the caller too: it indexes the report's `files`
    /// itself, for many captures in one transaction (harvest). The files
    /// are on disk either way, so a crash before that loses nothing: the
    /// next sync indexes them.
    pub defer_index: bool,
    /// The path came from a hook's payload, which anything on the machine
    /// can write: only a regular file that reads as `harness`'s own session
    /// log is captured; anything else is refused at once, never retried.
    pub from_hook: bool,
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
    /// Projections another process holds open for writing: left for the
    /// daemon or a later sync, which write them once it lets go.
    pub projections_held: Vec<String>,
}

/// The memory sentence for a body: the configured provider's sentence
/// through the gate (one call at most), else the sentence composed from the
/// session (`ok` when no provider is configured and it passes the floor,
/// `fallback` when it stands in for a model's), else the metadata fallback.
/// A session no one will read in a projection (private, or with no request
/// from a person) never costs a model call.
#[allow(clippy::too_many_arguments)]
fn memory_sentence(
    settings: &Settings,
    now: DateTime<Utc>,
    body: &str,
    composed: Option<String>,
    id: &SessionIdentity,
    token: &str,
    kinds: &[&str],
    notes: &mut Vec<String>,
) -> SentenceMeta {
    let cfg = &settings.config.sentence;
    let subject = match kinds {
        ["compaction"] => model::Subject::Compaction,
        _ => model::Subject::Session,
    };
    let asked = (!id.private && !id.noise)
        .then(|| model::sentence(settings, now, body, subject, id.project.as_deref()))
        .flatten();
    let fell_back = match asked {
        Some(model::Answer::Sentence(s)) => {
            return SentenceMeta {
                version: model::SENTENCE_PROMPT.into(),
                ..meta(s, "ok", now)
            };
        }
        Some(model::Answer::Fallback(why)) => {
            notes.push(format!("{why}; used the deterministic sentence"));
            true
        }
        None => false,
    };
    if let Some(s) = composed
        && sentence::check(&s, id.project.as_deref(), cfg).is_none()
    {
        return meta(s, if fell_back { "fallback" } else { "ok" }, now);
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
        text: sentence::bounded(&text),
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

/// The most of a conversation a transcript artifact keeps: the configured
/// budget, within the artifact size limit.
pub fn transcript_budget(settings: &Settings) -> usize {
    let c = &settings.config;
    let room = c
        .scan
        .max_file_bytes
        .saturating_sub(FRONTMATTER_ROOM.min(c.scan.max_file_bytes / 2));
    usize::try_from(c.capture.max_transcript_bytes.min(room)).unwrap_or(usize::MAX)
}

/// A file's text, or stdin's for `-` (lossy: a transcript is never refused for its encoding).
pub fn read_input(path: &Path) -> Result<String> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| Error::io("<stdin>", e))?;
        buf
    } else {
        crate::files::read_file(path).map_err(|e| Error::io(path, e))?
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

/// The least of a transcript worth keeping when it must be clipped.
const MIN_KEPT_BYTES: usize = 4 * 1024;

/// Keeps a body under the artifact size limit, dropping its beginning with a
/// note; refuses at once when the limit leaves no useful room.
fn fit(body: String, settings: &Settings, path: &Path, notes: &mut Vec<String>) -> Result<String> {
    let max = settings.config.scan.max_file_bytes;
    let room = FRONTMATTER_ROOM.min(max / 2);
    let limit = usize::try_from(max - room).unwrap_or(usize::MAX);
    if body.len() <= limit {
        return Ok(body);
    }
    // Room for the truncation note, which is part of the body too.
    let keep = limit.saturating_sub(128);
    if keep < MIN_KEPT_BYTES {
        return Err(CaptureError::Input {
            path: path.to_path_buf(),
            reason: format!(
                "the transcript is {} bytes and scan.max_file_bytes ({max}) leaves room for {keep}; raise the limit to capture it",
                body.len()
            ),
        }
        .into());
    }
    let mut cut = body.len() - keep;
    while cut < body.len() && !body.is_char_boundary(cut) {
        cut += 1;
    }
    notes.push(format!(
        "transcript cut to its last {} bytes to stay under scan.max_file_bytes ({max})",
        body.len() - cut
    ));
    Ok(format!(
        "[transcript truncated: the first {cut} bytes were dropped]\n\n{}",
        &body[cut..]
    ))
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
        let input = format!(
            "{} memory_summary_v1\n{sanitized_transcript}",
            contract::MODEL_CALL_MARKER
        );
        match summarize::run_command(cmd, &input, Duration::from_secs(cfg.timeout_seconds)) {
            Ok(out) => return Ok(sanitize::sanitize(&out)),
            Err(e) => notes.push(format!("summary command: {e}; used the extractive summary")),
        }
    }
    Ok(sanitize::sanitize(&summarize::extractive(t)))
}

/// The default idempotency key of a compaction: its text's digest, so a retry
/// is recognised and a later, different compaction is a new artifact.
fn compaction_key(body: &str) -> String {
    format!("compaction:{}", &contract::body_sha256(body)[..12])
}

/// Captures a compaction of a known session: the immutable compaction
/// artifact (continuing the session's previous compaction, if any), then the
/// manifest's `compaction_path`, then the pipeline.
pub fn compaction(
    settings: &Settings,
    now: DateTime<Utc>,
    req: &Compaction,
) -> Result<CaptureReport> {
    let text = transcript::compaction::summary(&req.body);
    if transcript::compaction::fingerprint(&text).is_none()
        || transcript::compaction::says_nothing(transcript::compaction::summary_part(&text))
    {
        return Err(CaptureError::NothingToCapture {
            path: PathBuf::from(format!("compaction of {:?}", req.session_id)),
            reason: "the compaction holds no summary (empty, a placeholder such as \"Summary \
                     unavailable\", or encrypted)"
                .into(),
        }
        .into());
    }
    let sanitized = sanitize::sanitize(&req.body);
    let body = inert_invalid_links(sanitized.text.clone());
    let mut w = Writer::open(
        settings,
        now,
        Target {
            kind: "compaction",
            agent_id: &req.agent_id,
            session_id: &req.session_id,
            session_key: req.session_key.as_deref(),
            idempotency_key: Some(
                req.idempotency_key
                    .clone()
                    .unwrap_or_else(|| compaction_key(&body)),
            ),
            stamp: req.captured_at,
        },
    )?;
    let stamp = w.stamp;
    let Some(manifest) = w.existing.newest(ArtifactKind::Manifest).cloned() else {
        return Err(Error::unknown_session(format!(
            "{:?} of agent {:?} (token {}): a compaction needs the session's manifest; capture its session end first",
            req.session_id, req.agent_id, w.token
        )));
    };
    if w.already_captured() && manifest.str("compaction_path").is_some() {
        return w.finish(Outcome::AlreadyCaptured, Produced::default());
    }
    // The same summary came the other way (the transcript's copy, at session end).
    if w.existing.own(ArtifactKind::Compaction, &w.key).is_none()
        && w.existing.has_compaction(&body)
    {
        return w.finish(Outcome::AlreadyCaptured, Produced::default());
    }
    let flag = |k: &str| {
        manifest
            .frontmatter
            .get(k)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let id = SessionIdentity {
        agent_id: req.agent_id.clone(),
        session_id: req.session_id.clone(),
        session_key: manifest.str("session_key").map(String::from),
        project: manifest.str("project").map(String::from),
        harness: manifest.str("harness").unwrap_or("manual").to_string(),
        started_at: manifest.ts("started_at"),
        ended_at: manifest.ts("ended_at"),
        private: flag("private"),
        noise: flag("noise"),
        request_source: manifest.str("request_source").map_or(
            contract::RequestSource::Owner,
            contract::RequestSource::parse,
        ),
    };
    let own = w.existing.own(ArtifactKind::Compaction, &w.key).cloned();
    let previous = w.existing.newest(ArtifactKind::Compaction).cloned();
    let captured_at = own.as_ref().and_then(|f| f.captured_at).unwrap_or_else(|| {
        previous
            .as_ref()
            .and_then(|p| p.captured_at)
            .map_or(stamp, |p| stamp.max(p + chrono::Duration::milliseconds(1)))
    });
    let continues = match &own {
        Some(o) => o.str("continues").map(String::from),
        None => previous.map(|p| p.path),
    };
    let sentence = own.as_ref().and_then(stored_sentence).unwrap_or_else(|| {
        memory_sentence(
            settings,
            stamp,
            &body,
            gist::compose_compaction(&body, id.project.as_deref()),
            &id,
            &w.token,
            &["compaction"],
            &mut w.notes,
        )
    });
    let key = w.key.clone();
    let fields = ImmutableFields {
        kind: ArtifactKind::Compaction,
        captured_at,
        manifest_path: &manifest.path,
        sentence: &sentence,
        sanitizer_version: None,
        idempotency_key: Some(&key),
        continues: continues.as_deref(),
        source_cursor: None,
    };
    let text = compose::immutable_document(&id, &fields, &body);
    let rel = w.path(ArtifactKind::Compaction, captured_at);
    let compaction_rel =
        w.write_immutable(ArtifactKind::Compaction, &rel, (&text, &body), &key, false)?;
    failpoint("after-compaction");
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
