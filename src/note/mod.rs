//! Notes: the markdown a person (in Obsidian or an editor) or an agent writes
//! into the workspace that is not a canonical artifact, a tombstone or a
//! projection. A note needs no frontmatter; the few keys memsync reads are
//! all optional:
//!
//! - `title` (else the first heading, else the file name),
//! - `project` (a path or a name; none: a note about everything),
//! - `author` (`person`, `agent`, or a harness name),
//! - `updated` (else the file's modification time),
//! - `superseded_by` (the workspace path of the note that corrects it), or
//!   on the correcting note `supersedes` (the path of the note it corrects).
//!
//! The lines written into a daily log outside memsync's block are a note
//! too ([`from_daily_log`]), so what a person types there is found.
//!
//! Frontmatter that does not parse is read as body text: a note is never
//! refused. What tells a note from an artifact is its name alone
//! (`scan::classify`); a file named like an artifact in the wrong place is
//! still `naming.misnamed` and not a note.
//!
//! Owns: reading a note's text into a [`Note`]. Must not: touch the
//! filesystem or the index.

pub mod imported;

use serde_yaml::Value;

/// Notes larger than this are indexed by their first this-many bytes.
pub const MAX_NOTE_BYTES: usize = 256 * 1024;

/// A note as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Workspace-relative path.
    pub path: String,
    pub title: String,
    pub project: Option<String>,
    pub author: Option<String>,
    /// RFC 3339 from the frontmatter, when it names one.
    pub updated: Option<String>,
    pub superseded_by: Option<String>,
    /// The note this one corrects.
    pub supersedes: Option<String>,
    /// When the harness deleted the file an imported note came from: the
    /// note is kept, and left out of `context` and of restores.
    pub source_deleted: Option<String>,
    /// The session an agent wrote it from.
    pub session_id: Option<String>,
    /// The text without its frontmatter (nor an imported file's own).
    pub body: String,
}

/// Where `forget` keeps the tombstones of notes: hidden, so no scan reads
/// them as notes, and in git, so every clone honours them.
pub const FORGOTTEN_DIR: &str = "notes/.forgotten";

/// The tombstone of the note at `path` (a workspace-relative path).
pub fn tombstone_path(path: &str) -> String {
    let digest = crate::contract::sha256_hex(path.as_bytes());
    format!("{FORGOTTEN_DIR}/{}.md", &digest[..16])
}

/// Whether a workspace-relative path can be a note: markdown, not hidden.
pub fn is_note_path(rel: &str) -> bool {
    rel.ends_with(".md") && !rel.split('/').any(|part| part.starts_with('.'))
}

/// Reads a note's text; never fails.
pub fn read(path: &str, text: &str) -> Note {
    let text = clip(text, MAX_NOTE_BYTES);
    let (keys, body) = match crate::parse::parse_document(text) {
        Ok(doc) => (doc.frontmatter, doc.body),
        Err(_) => (serde_yaml::Mapping::new(), text),
    };
    let key = |name: &str| -> Option<String> {
        match keys.get(name)? {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
        .filter(|s| !s.is_empty())
    };
    let superseded_by = key("superseded_by").map(|s| unlink(&s));
    let supersedes = key("supersedes").map(|s| unlink(&s));
    // An imported harness file keeps its own frontmatter after memsync's.
    let body = crate::parse::split_frontmatter(body).map_or(body, |(_, inner)| inner);
    Note {
        path: path.to_string(),
        title: key("title")
            .or_else(|| first_heading(body))
            .unwrap_or_else(|| stem(path)),
        project: key("project"),
        author: key("author"),
        updated: key("updated"),
        superseded_by,
        supersedes,
        source_deleted: key("source_deleted"),
        session_id: key("session_id"),
        body: body.trim().to_string(),
    }
}

/// What a person or an agent wrote into a daily log (`memory/YYYY-MM-DD.md`)
/// outside memsync's block (`outside`), as a note of that day: searched and
/// offered in `context` as a note is. Its body is empty when nobody wrote
/// anything there.
pub fn from_daily_log(path: &str, outside: &str) -> Note {
    let outside = clip(outside, MAX_NOTE_BYTES);
    let day = stem(path);
    Note {
        path: path.to_string(),
        // Named for its day: a heading in it is most often the date again.
        title: format!("Daily log {day}"),
        project: None,
        author: None,
        updated: None,
        superseded_by: None,
        supersedes: None,
        source_deleted: None,
        session_id: None,
        body: outside.trim().to_string(),
    }
}

/// `[[notes/x.md|x]]` or `[[notes/x]]` as the path it links to.
fn unlink(s: &str) -> String {
    let inner = s
        .trim()
        .trim_start_matches("[[")
        .trim_end_matches("]]")
        .split('|')
        .next()
        .unwrap_or_default()
        .trim();
    if inner.ends_with(".md") {
        inner.to_string()
    } else {
        format!("{inner}.md")
    }
}

fn first_heading(body: &str) -> Option<String> {
    body.lines()
        .map(str::trim)
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|t| !t.is_empty())
}

fn stem(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".md").unwrap_or(file).to_string()
}

/// The first `max` bytes of `text`, cut at a character boundary.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_without_frontmatter_is_titled_by_its_heading_or_name() {
        let n = read(
            "memory/notes/dedup.md",
            "# Dedup\n\nKeys on (agent, scope, hash).\n",
        );
        assert_eq!(n.title, "Dedup");
        assert_eq!(n.project, None);
        assert!(n.body.contains("(agent, scope, hash)"));
        assert_eq!(read("notes/plain.md", "just text").title, "plain");
    }

    #[test]
    fn frontmatter_keys_are_read_and_bad_yaml_is_body_text() {
        let n = read(
            "notes/pnpm.md",
            "---\ntitle: Package manager\nproject: /code/app\nauthor: agent\nsuperseded_by: \"[[notes/pnpm-2|newer]]\"\n---\nThis repo uses pnpm.\n",
        );
        assert_eq!(n.title, "Package manager");
        assert_eq!(n.project.as_deref(), Some("/code/app"));
        assert_eq!(n.author.as_deref(), Some("agent"));
        assert_eq!(n.superseded_by.as_deref(), Some("notes/pnpm-2.md"));
        assert_eq!(n.body, "This repo uses pnpm.");
        let bad = read("notes/bad.md", "---\n: : [\n---\nstill a note\n");
        assert!(bad.body.contains("still a note"));
    }

    #[test]
    fn hidden_folders_and_other_files_are_not_notes() {
        assert!(is_note_path("notes/a.md"));
        assert!(!is_note_path(".obsidian/workspace.md"));
        assert!(!is_note_path("notes/a.txt"));
    }
}
