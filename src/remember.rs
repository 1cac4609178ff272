//! Notes an agent writes: `remember` (a new fact) and `correct` (a new note
//! that supersedes an older one, with the reason). Each is a new file under
//! `notes/`, never an edit: the corrected note stays on disk and in git, and
//! the index finds its successor by the new note's `supersedes` key.
//!
//! The text is sanitized as transcripts are, capped in size, and written
//! atomically under a name no other file holds (a write never replaces a
//! file). The note is indexed at once, so the next search finds it.
//!
//! Owns: composing and writing an agent's note. Must not: change any other
//! file, or decide who may write (the caller rate-limits and asks).

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::compose::{FmValue, render_document};
use crate::config::Settings;
use crate::contract;
use crate::error::{Error, Result};
use crate::pipeline::{self, SyncOptions};
use crate::store::Index;

/// Where agents' notes go, relative to the workspace root.
pub const NOTES_DIR: &str = "notes";
/// The most text one note takes, in bytes.
pub const MAX_TEXT_BYTES: usize = 8 * 1024;

/// What an agent asks to keep.
#[derive(Debug, Clone, Default)]
pub struct Remember {
    pub text: String,
    pub title: Option<String>,
    pub project: Option<String>,
    pub tags: Vec<String>,
    /// The harness and session the agent writes from, when it says.
    pub harness: Option<String>,
    pub session_id: Option<String>,
    /// The note this one corrects, and why.
    pub supersedes: Option<String>,
    pub reason: Option<String>,
}

/// A note written.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Written {
    pub note: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// Credentials the sanitizer took out of the text.
    pub redacted: usize,
}

/// Why a note was not written: what to send instead.
fn refuse(reason: impl Into<String>) -> Error {
    crate::error::UsageError::Note(reason.into()).into()
}

/// Writes a new note and indexes it.
pub fn remember(
    index: &mut Index,
    settings: &Settings,
    mut r: Remember,
    now: DateTime<Utc>,
) -> Result<Written> {
    let text = r.text.trim();
    if text.is_empty() {
        return Err(refuse("the text is empty: send the fact to keep"));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err(refuse(format!(
            "the text is {} bytes; a note takes at most {MAX_TEXT_BYTES}: keep the fact, link the rest",
            text.len()
        )));
    }
    if let Some(old) = &r.supersedes {
        let corrected_project = check_correctable(index, old)?;
        r.project = r.project.take().or(corrected_project);
    }
    let clean = crate::capture::sanitize::sanitize(text);
    check_field(
        "title",
        r.title.as_deref().unwrap_or_default(),
        MAX_TITLE_BYTES,
    )?;
    check_field(
        "reason",
        r.reason.as_deref().unwrap_or_default(),
        MAX_TEXT_BYTES,
    )?;
    check_field(
        "project",
        r.project.as_deref().unwrap_or_default(),
        MAX_TITLE_BYTES,
    )?;
    if r.tags.len() > MAX_TAGS {
        return Err(refuse(format!(
            "{} tags; a note takes at most {MAX_TAGS}",
            r.tags.len()
        )));
    }
    for tag in &r.tags {
        check_field("a tag", tag, MAX_TAG_BYTES)?;
    }
    let title = r
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| crate::capture::sanitize::sanitize(t).text)
        .unwrap_or_else(|| first_words(&clean.text, 8));
    let fields = [
        ("title", FmValue::Str(title.clone())),
        ("author", FmValue::Str("agent".into())),
        ("harness", opt(r.harness.as_deref())),
        ("session_id", opt(r.session_id.as_deref())),
        ("project", opt(r.project.as_deref())),
        ("tags", FmValue::List(r.tags.clone())),
        ("updated", FmValue::Str(contract::format_ts(now))),
        ("supersedes", opt(r.supersedes.as_deref())),
        ("reason", opt(r.reason.as_deref())),
    ];
    let doc = render_document(&fields, &clean.text);
    let rel = write_new(
        &settings.root,
        &now.format("%Y-%m-%d").to_string(),
        &title,
        &doc,
    )?;
    pipeline::sync_paths(
        index,
        settings,
        now,
        SyncOptions::INDEX_ONLY,
        std::slice::from_ref(&rel),
    )?;
    Ok(Written {
        note: rel,
        title,
        supersedes: r.supersedes,
        redacted: clean.redactions.values().sum(),
    })
}

/// The most a note's title (and project) may hold: every field memsync
/// writes into frontmatter is capped, so no note it writes can fail its own
/// checks (a 100,000-character title made a note memsync could not read back).
const MAX_TITLE_BYTES: usize = 200;
const MAX_TAG_BYTES: usize = 64;
const MAX_TAGS: usize = 20;

fn check_field(what: &str, value: &str, max: usize) -> Result<()> {
    if value.len() > max || (value.contains(['\n', '\r', '\0']) && what != "reason") {
        return Err(refuse(format!(
            "{what} is {} bytes or holds a line break; a note takes at most {max} bytes on one line",
            value.len()
        )));
    }
    Ok(())
}

/// A note can be corrected when it is indexed and nothing corrected it yet;
/// its project, which the correction is about too.
fn check_correctable(index: &Index, path: &str) -> Result<Option<String>> {
    match index.note(path)? {
        None => Err(refuse(format!(
            "{path} is not a note memsync indexed: send a `note` path memory_search returned"
        ))),
        Some((row, _)) => match row.superseded_by {
            Some(newer) => Err(refuse(format!(
                "{path} was already corrected by {newer}: correct that one"
            ))),
            None => Ok(row.project),
        },
    }
}

fn opt(s: Option<&str>) -> FmValue {
    match s.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => FmValue::Str(s.to_string()),
        None => FmValue::Null,
    }
}

/// The first `n` words of the text's first line.
fn first_words(text: &str, n: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("note");
    let words: Vec<&str> = line.split_whitespace().take(n).collect();
    words.join(" ")
}

/// Writes `doc` as `notes/{day}-{slug}.md`, or `…-2.md` and on when that
/// name is taken: never over a file.
fn write_new(root: &Path, day: &str, title: &str, doc: &str) -> Result<String> {
    let slug = slug(title);
    for n in 1..=100 {
        let rel = match n {
            1 => format!("{NOTES_DIR}/{day}-{slug}.md"),
            n => format!("{NOTES_DIR}/{day}-{slug}-{n}.md"),
        };
        match crate::files::write_new_in_workspace(root, &rel, doc.as_bytes()) {
            Ok(()) => return Ok(rel),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(root.join(&rel), e)),
        }
    }
    Err(refuse(format!(
        "a hundred notes named {day}-{slug} exist: give this one another title"
    )))
}

/// Lower-case ASCII letters and digits joined by `-`, at most 48 bytes.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "note".into()
    } else {
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slug_is_plain_ascii_and_never_empty() {
        assert_eq!(slug("Uses pnpm, not npm!"), "uses-pnpm-not-npm");
        assert_eq!(slug("用户偏好"), "note");
    }
}
