//! `capture session-end`: a session's transcript and summary, in parts when
//! the session grew after an earlier capture, and every compaction the
//! harness wrote into it.
//!
//! Parts (continuations): the first capture writes part 1, messages `0..n`.
//! Capturing again after the source grew writes a new transcript holding only
//! the new messages (its body opens with a link to the part before, its
//! frontmatter names it in `continues` and records `source_cursor: "N:hash"`,
//! the messages held through this part and a digest of the last one), and a
//! new summary of the whole session so far, which `continues` the previous
//! summary. Committed artifacts never change; the manifest points at the
//! newest part; search indexes every part. The same bytes again are a no-op.
//!
//! Owns: deciding which part to write and writing it. Must not: index or
//! project (the writer's `finish` runs the pipeline).

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use super::writer::{OnDisk, Produced, SessionFiles, Target, Writer};
use super::{
    CaptureReport, Outcome, SANITIZER_VERSION, SessionEnd, failpoint, fit, gist,
    inert_invalid_links, memory_sentence, sanitize, stored_sentence, summary_body,
};
use crate::compose::{self, ImmutableFields, SessionIdentity};
use crate::config::Settings;
use crate::contract::{self, ArtifactKind};
use crate::error::{CaptureError, Error, Result};
use crate::harnesses::KNOWN_FORMATS;
use crate::transcript::{self, Transcript};

/// The repository an Aider chat history belongs to: the folder holding it
/// (Aider writes `.aider.chat.history.md` at the repository's root).
fn history_folder(t: &Transcript, path: &Path) -> Option<String> {
    if t.format != transcript::Format::Aider {
        return None;
    }
    let folder = std::fs::canonicalize(path).ok()?.parent()?.to_path_buf();
    Some(folder.to_string_lossy().into_owned())
}

/// The part of the session one capture writes.
#[derive(Debug, Clone)]
struct Part {
    /// Messages `start..end` of the source.
    start: usize,
    end: usize,
    key: String,
    /// The transcript and summary this part continues (a later part).
    prev_transcript: Option<String>,
    prev_summary: Option<String>,
    /// The existing part this call writes again (a retry, a resumed crash).
    again: bool,
}

/// Captures a finished session: transcript, summary, manifest, then its
/// compactions, then the pipeline.
pub fn session_end(
    settings: &Settings,
    now: DateTime<Utc>,
    req: &SessionEnd,
) -> Result<CaptureReport> {
    let keep = super::transcript_budget(settings);
    let max = settings.config.harvest.max_file_bytes;
    let t = match super::reading::read_transcript(
        &req.transcript,
        req.session_id.as_deref(),
        (keep, max),
    ) {
        Ok(read) => read.map_err(|e| super::hook_file::unreadable(req, e))?,
        // The database sniff opens the file first.
        Err(Error::Io { source, .. }) => return Err(super::hook_file::unreadable(req, source)),
        Err(e) => return Err(e),
    };
    if req.from_hook {
        super::hook_file::check(req, &t)?;
    }
    session_end_of(settings, now, req, t)
}

/// [`session_end`] of a transcript the caller has read already (harvest
/// reads each file once, and captures exactly what its watermark records).
pub fn session_end_of(
    settings: &Settings,
    now: DateTime<Utc>,
    req: &SessionEnd,
    t: Transcript,
) -> Result<CaptureReport> {
    let keep = super::transcript_budget(settings);
    if let Some(what) = t.foreign {
        return Err(CaptureError::Refused {
            path: req.transcript.clone(),
            reason: format!("{what}, a format memsync does not read; it reads {KNOWN_FORMATS}"),
        }
        .into());
    }
    if let Some(reason) = t.nothing_to_capture() {
        return Err(CaptureError::NothingToCapture {
            path: req.transcript.clone(),
            reason,
        }
        .into());
    }
    if !t.understood() {
        return Err(CaptureError::Refused {
            path: req.transcript.clone(),
            reason: format!(
                "no reader understands it (no conversation found); memsync reads {KNOWN_FORMATS}"
            ),
        }
        .into());
    }
    let session_id = req
        .session_id
        .clone()
        .or_else(|| t.session_id.clone())
        .or_else(|| transcript::id_in_name(&req.transcript))
        .ok_or_else(|| CaptureError::Input {
            path: req.transcript.clone(),
            reason:
                "no --session-id given and neither the transcript nor its file name holds one; \
                     name the session yourself, e.g. --session-id notes-2026-11-24 (the same name \
                     again adds to that session)"
                    .into(),
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
    let id = SessionIdentity {
        agent_id: req.agent_id.clone(),
        session_id: session_id.clone(),
        session_key: req.session_key.clone().filter(|k| !k.trim().is_empty()),
        project: req
            .project
            .clone()
            .or_else(|| t.project.clone())
            .or_else(|| history_folder(&t, &req.transcript))
            .or_else(|| req.project_fallback.clone()),
        harness: req
            .harness
            .clone()
            .or_else(|| t.format.harness().map(String::from))
            .unwrap_or_else(|| "manual".into()),
        started_at: req.started_at.or(t.started_at),
        ended_at: req.ended_at.or(t.ended_at),
        private: req.private,
        noise: !t.has_request(),
        request_source: t.request_source,
    };
    let mut produced = Produced {
        skipped_lines: t.skipped_lines,
        ..Produced::default()
    };
    super::reading::note_what_was_left_out(&t, keep, &mut w.notes);
    let (whole, known) = session_credentials(&t);
    let whole = Some(whole);
    let mut wrote = false;
    if let Some(part) = plan(&w, &t) {
        let session = Session {
            t: &t,
            whole,
            known: &known,
        };
        write_part(&mut w, settings, req, session, &id, &part, &mut produced)?;
        wrote = true;
    } else if t.messages.len() < cursor_end(&w.existing).unwrap_or(0) {
        w.notes.push(format!(
            "the transcript holds fewer messages ({}) than were already captured; nothing rewritten",
            t.messages.len()
        ));
    }
    wrote |= write_compactions(&mut w, settings, &t, &known, &id, &mut produced)?;
    let outcome = if wrote && !w.written.is_empty() {
        Outcome::Written
    } else {
        Outcome::AlreadyCaptured
    };
    w.render = !req.defer_render;
    w.index = !req.defer_index;
    // The pipeline indexes what was written; the conversation is not needed there.
    drop(t);
    w.finish(outcome, produced)
}

/// `N:hash` of the messages held through `end`: the count and a digest of the
/// last one, so a message that grew after a capture is noticed.
fn cursor(t: &Transcript, end: usize) -> String {
    let digest = match end {
        0 => contract::body_sha256(""),
        _ => t.message_digest(end - 1),
    };
    format!("{end}:{}", &digest[..12])
}

fn parse_cursor(f: &OnDisk) -> Option<(usize, String)> {
    let (n, hash) = f.str("source_cursor")?.split_once(':')?;
    Some((n.parse().ok()?, hash.to_string()))
}

fn cursor_end(existing: &SessionFiles) -> Option<usize> {
    existing
        .newest(ArtifactKind::Transcript)
        .and_then(parse_cursor)
        .map(|(n, _)| n)
}

/// The source's size as parts count it: messages, or one unit of plain text.
fn total(t: &Transcript) -> usize {
    if t.plain.is_some() {
        1
    } else {
        t.messages.len()
    }
}

/// Which part to write, or `None` when everything is captured.
fn plan(w: &Writer<'_>, t: &Transcript) -> Option<Part> {
    let recorded = w
        .existing
        .newest(ArtifactKind::Manifest)
        .map(|m| m.strings("idempotency_keys"))
        .unwrap_or_default();
    let transcripts: Vec<&OnDisk> = w.existing.of_kind(ArtifactKind::Transcript).collect();
    let total = total(t);
    let Some(newest) = transcripts.last() else {
        return Some(Part {
            start: 0,
            end: total,
            key: w.key.clone(),
            prev_transcript: None,
            prev_summary: None,
            again: false,
        });
    };
    let earlier_end = transcripts
        .iter()
        .rev()
        .nth(1)
        .and_then(|f| parse_cursor(f))
        .map_or(0, |(n, _)| n);
    let summaries: Vec<&OnDisk> = w.existing.of_kind(ArtifactKind::Summary).collect();
    let same_part = |key: String, end: usize| Part {
        start: earlier_end,
        end,
        prev_transcript: newest.str("continues").map(String::from),
        // The summary before this part's own (which may not be written yet).
        prev_summary: summaries
            .iter()
            .rev()
            .find(|s| s.str("idempotency_key") != Some(key.as_str()))
            .filter(|_| newest.str("continues").is_some())
            .map(|s| s.path.clone()),
        key,
        again: true,
    };
    let cursor = parse_cursor(newest);
    // A part whose transcript is written but which the manifest does not
    // record was interrupted: finish it first, under its own key.
    if let Some(own) = newest.str("idempotency_key")
        && !recorded.iter().any(|k| k == own)
    {
        let end = cursor.as_ref().map_or(total, |(n, _)| *n).min(total);
        return Some(same_part(own.to_string(), end));
    }
    if let Some((n, hash)) = &cursor {
        let last_same = *n > 0 && *n <= total && cursor_hash(t, *n) == *hash;
        if total > *n || (total == *n && !last_same) {
            let start = if last_same { *n } else { n.saturating_sub(1) };
            return Some(Part {
                start,
                end: total,
                // The count alone can repeat (a message rewritten in place
                // grows the file, not the count): the digest tells them apart.
                key: format!("{}@{total}:{}", w.key, cursor_hash(t, total)),
                prev_transcript: Some(newest.path.clone()),
                prev_summary: summaries.last().map(|s| s.path.clone()),
                again: false,
            });
        }
    }
    if recorded.contains(&w.key) {
        return None;
    }
    // The same session under a new key: the newest part again; its immutable
    // files must come out the same (a different summary is refused).
    let end = cursor.map_or(total, |(n, _)| n).min(total);
    Some(same_part(w.key.clone(), end))
}

fn cursor_hash(t: &Transcript, n: usize) -> String {
    cursor(t, n)
        .split_once(':')
        .map(|(_, h)| h.to_string())
        .unwrap_or_default()
}

/// The conversation being captured, sanitized whole once, and the
/// credentials found anywhere in it.
struct Session<'a> {
    t: &'a Transcript,
    /// The whole transcript sanitized: the body of a part that is all of it
    /// (taken, not copied: a 200 MB session holds one sanitized copy).
    whole: Option<sanitize::Sanitized>,
    known: &'a sanitize::Known,
}

/// Sanitizes the whole conversation and its compactions once, learning every
/// credential they hold, so each copy is redacted in every file this capture
/// writes, whichever part or text it is in.
fn session_credentials(t: &Transcript) -> (sanitize::Sanitized, sanitize::Known) {
    let whole = sanitize::sanitize(&t.render(0..t.messages.len()));
    let mut known = sanitize::Known::default();
    known.learn(&whole);
    for c in &t.compactions {
        known.learn(&sanitize::sanitize(&c.text));
    }
    (whole, known)
}

fn write_part(
    w: &mut Writer<'_>,
    settings: &Settings,
    req: &SessionEnd,
    mut session: Session<'_>,
    id: &SessionIdentity,
    part: &Part,
    produced: &mut Produced,
) -> Result<()> {
    let (t, known) = (session.t, session.known);
    let whole = session.whole.take();
    let stamp = w.stamp;
    // A rerun of an interrupted call keeps the time and sentence it chose first.
    let own_transcript = w.existing.own(ArtifactKind::Transcript, &part.key).cloned();
    let own_summary = w.existing.own(ArtifactKind::Summary, &part.key).cloned();
    let after_newest = w
        .existing
        .files
        .iter()
        .filter(|f| f.kind != ArtifactKind::Manifest)
        .filter_map(|f| f.captured_at)
        .max()
        .map(|last| last + Duration::milliseconds(1));
    let captured_at = own_transcript
        .as_ref()
        .or(own_summary.as_ref())
        .and_then(|f| f.captured_at)
        .unwrap_or_else(|| match (part.prev_transcript.is_some(), after_newest) {
            (true, Some(after)) => stamp.max(after),
            _ => stamp,
        });

    let sanitized = match (&part.prev_transcript, part.start, part.end, whole) {
        (None, 0, end, Some(whole)) if end == t.messages.len() => whole,
        (prev, start, end, whole) => {
            drop(whole);
            let mut rendered = t.render(start..end);
            if let Some(prev) = prev {
                rendered = format!(
                    "Continues [[{prev}|the previous part]] of this session.\n\n{rendered}"
                );
            }
            sanitize::sanitize(&rendered)
        }
    };
    let sanitized = known.redact(sanitized);
    let transcript_body = inert_invalid_links(fit(
        sanitized.text,
        settings,
        &req.transcript,
        &mut w.notes,
    )?);
    add_redactions(produced, &sanitized.redactions);
    // Usually the part ends the transcript: no copy of it then.
    let so_far = if part.end >= t.messages.len() {
        std::borrow::Cow::Borrowed(t)
    } else {
        std::borrow::Cow::Owned(t.prefix(part.end))
    };
    let summary = known.redact(summary_body(
        settings,
        req,
        &so_far,
        &transcript_body,
        &mut w.notes,
    )?);
    add_redactions(produced, &summary.redactions);
    let summary_text = inert_invalid_links(summary.text);
    let composed = (!id.noise)
        .then(|| gist::compose(&so_far, id.project.as_deref()))
        .flatten()
        .map(|s| known.redact(sanitize::sanitize(&s)).text);
    let sentence = own_transcript
        .as_ref()
        .or(own_summary.as_ref())
        .and_then(stored_sentence)
        .unwrap_or_else(|| {
            memory_sentence(
                settings,
                stamp,
                &summary_text,
                composed,
                id,
                &w.token,
                &["summary", "transcript"],
                &mut w.notes,
            )
        });
    produced.quality = Some(sentence.quality.clone());
    let manifest_rel = w
        .existing
        .newest(ArtifactKind::Manifest)
        .map(|m| m.path.clone())
        .unwrap_or_else(|| w.path(ArtifactKind::Manifest, captured_at));
    let cursor = cursor(t, part.end);
    let doc = |kind, body: &str, continues: Option<&str>| {
        let transcript = kind == ArtifactKind::Transcript;
        let fields = ImmutableFields {
            kind,
            captured_at,
            manifest_path: &manifest_rel,
            sentence: &sentence,
            sanitizer_version: transcript.then_some(SANITIZER_VERSION),
            idempotency_key: Some(&part.key),
            continues,
            source_cursor: transcript.then_some(cursor.as_str()),
        };
        compose::immutable_document(id, &fields, body)
    };
    let transcript_text = doc(
        ArtifactKind::Transcript,
        &transcript_body,
        part.prev_transcript.as_deref(),
    );
    let summary_doc = doc(
        ArtifactKind::Summary,
        &summary_text,
        part.prev_summary.as_deref(),
    );
    let transcript_rel = w.write_immutable(
        ArtifactKind::Transcript,
        &w.path(ArtifactKind::Transcript, captured_at),
        (&transcript_text, &transcript_body),
        &part.key,
        part.again,
    )?;
    failpoint("after-transcript");
    let summary_rel = w.write_immutable(
        ArtifactKind::Summary,
        &w.path(ArtifactKind::Summary, captured_at),
        (&summary_doc, &summary_text),
        &part.key,
        part.again,
    )?;
    failpoint("after-summary");
    let refs = if id.private || id.noise {
        Vec::new()
    } else {
        vec![crate::project::memory_md_path(&id.agent_id)]
    };
    let key = part.key.clone();
    w.update_manifest(id, |m| {
        m.summary_path = Some(summary_rel.clone());
        m.transcript_path = Some(transcript_rel.clone());
        m.memory_md_refs = refs.clone();
        if !m.idempotency_keys.contains(&key) {
            m.idempotency_keys.push(key.clone());
        }
    })?;
    failpoint("after-manifest");
    Ok(())
}

/// Writes each compaction of the source that the session does not hold yet
/// (same text, same artifact), oldest first, each continuing the one before,
/// and points the manifest at the newest.
fn write_compactions(
    w: &mut Writer<'_>,
    settings: &Settings,
    t: &Transcript,
    known: &sanitize::Known,
    id: &SessionIdentity,
    produced: &mut Produced,
) -> Result<bool> {
    if t.compactions.is_empty() {
        return Ok(false);
    }
    let existing = SessionFiles::load(&settings.root, &w.token)?;
    let Some(manifest) = existing.newest(ArtifactKind::Manifest).cloned() else {
        return Ok(false); // no part was written (a refused one): nothing to hang them on
    };
    let mut newest = existing
        .newest(ArtifactKind::Compaction)
        .map(|f| f.path.clone());
    let mut last = existing
        .files
        .iter()
        .filter(|f| f.kind == ArtifactKind::Compaction)
        .filter_map(|f| f.captured_at)
        .max();
    let mut wrote = false;
    for c in &t.compactions {
        // At the compaction's own time where the source records it (a
        // harvested old session belongs to its own day's log, not today's),
        // after the session's earlier compactions.
        let at = c.at.map_or(w.stamp, |at| at.min(w.stamp));
        let next_at = last.map_or(at, |l| at.max(l + Duration::milliseconds(1)));
        let s = known.redact(sanitize::sanitize(&c.text));
        add_redactions(produced, &s.redactions);
        let body = inert_invalid_links(s.text);
        if existing.has_compaction(&body) {
            continue;
        }
        let key = super::compaction_key(&body);
        let sentence = memory_sentence(
            settings,
            w.stamp,
            &body,
            gist::compose_compaction(&body, id.project.as_deref()),
            id,
            &w.token,
            &["compaction"],
            &mut w.notes,
        );
        let fields = ImmutableFields {
            kind: ArtifactKind::Compaction,
            captured_at: next_at,
            manifest_path: &manifest.path,
            sentence: &sentence,
            sanitizer_version: None,
            idempotency_key: Some(&key),
            continues: newest.as_deref(),
            source_cursor: None,
        };
        let text = compose::immutable_document(id, &fields, &body);
        let rel = w.path(ArtifactKind::Compaction, next_at);
        let rel = w.write_immutable(ArtifactKind::Compaction, &rel, (&text, &body), &key, false)?;
        failpoint("after-compaction");
        newest = Some(rel);
        last = Some(next_at);
        wrote = true;
    }
    if let Some(newest) = newest.filter(|_| wrote) {
        w.update_manifest(id, |m| m.compaction_path = Some(newest.clone()))?;
    }
    Ok(wrote)
}

fn add_redactions(produced: &mut Produced, found: &BTreeMap<&'static str, usize>) {
    for (k, v) in found {
        *produced.redactions.entry(k.to_string()).or_default() += v;
    }
}
