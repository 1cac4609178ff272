//! The format of a note imported from a harness's own memory (Claude Code's
//! auto memory, Codex's memories, OpenClaw's curated MEMORY.md text): the
//! harness's file byte for byte after a frontmatter that says where it came
//! from. What follows the frontmatter is what `connect` writes back on
//! another machine, so it is never reformatted.
//!
//! Keys: `author` and `harness` (the harness's name), `project` (the folder
//! the memory is about, absent for a harness's global memory),
//! `project_remote` (its git remote without credentials: the same project on
//! a machine where the folder sits elsewhere), `source` (the file it was read
//! from, `~` for the home), `file` (its path inside the harness's memory
//! folder), `source_sha256` (of the bytes imported: a body that no longer
//! matches was edited in the workspace), `imported`, and `source_deleted`
//! once the harness deleted its file (the note is kept, and leaves `context`).
//!
//! Owns: composing and reading that frontmatter. Must not: touch a file.

use serde_yaml::{Mapping, Value};

/// Where an imported note came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    pub harness: String,
    pub project: Option<String>,
    pub project_remote: Option<String>,
    pub source: String,
    pub file: String,
    pub source_sha256: String,
    pub imported: String,
    pub title: Option<String>,
    pub source_deleted: Option<String>,
}

/// The note's text: the frontmatter, then `original` unchanged.
pub fn compose(meta: &Imported, original: &str) -> String {
    let mut keys = Mapping::new();
    let mut put = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            keys.insert(Value::from(k), Value::from(v.as_str()));
        }
    };
    put("title", &meta.title);
    put("author", &Some(meta.harness.clone()));
    put("harness", &Some(meta.harness.clone()));
    put("project", &meta.project);
    put("project_remote", &meta.project_remote);
    put("source", &Some(meta.source.clone()));
    put("file", &Some(meta.file.clone()));
    put("source_sha256", &Some(meta.source_sha256.clone()));
    put("imported", &Some(meta.imported.clone()));
    put("source_deleted", &meta.source_deleted);
    let yaml = serde_yaml::to_string(&keys).unwrap_or_default();
    format!("---\n{yaml}---\n{original}")
}

/// An imported note's frontmatter and the harness's bytes after it; `None`
/// for any other note.
pub fn parse(text: &str) -> Option<(Imported, &str)> {
    let (yaml, original) = crate::parse::split_frontmatter(text).ok()?;
    let keys: Mapping = serde_yaml::from_str(yaml).ok()?;
    let key = |k: &str| keys.get(k).and_then(Value::as_str).map(str::to_string);
    Some((
        Imported {
            harness: key("harness")?,
            project: key("project"),
            project_remote: key("project_remote"),
            source: key("source")?,
            file: key("file")?,
            source_sha256: key("source_sha256")?,
            imported: key("imported").unwrap_or_default(),
            title: key("title"),
            source_deleted: key("source_deleted"),
        },
        original,
    ))
}

/// Whether the harness's part was edited in the workspace since the import.
pub fn edited(meta: &Imported, original: &str) -> bool {
    crate::contract::sha256_hex(original.as_bytes()) != meta.source_sha256
}

/// A memory file's own title: its frontmatter `name` (Claude Code's topic
/// files carry one), else its first heading.
pub fn title_of(original: &str) -> Option<String> {
    if let Ok(doc) = crate::parse::parse_document(original)
        && let Some(name) = doc.frontmatter.get("name").and_then(Value::as_str)
        && !name.trim().is_empty()
    {
        return Some(name.trim().to_string());
    }
    original
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Imported {
        Imported {
            harness: "claude-code".into(),
            project: Some("/home/a/shop".into()),
            project_remote: Some("github.com/a/shop".into()),
            source: "~/.claude/projects/-home-a-shop/memory/build.md".into(),
            file: "build.md".into(),
            source_sha256: crate::contract::sha256_hex(b"---\nname: x\n---\nuse pnpm"),
            imported: "2026-11-26T10:00:00.000Z".into(),
            title: Some("Build: pnpm".into()),
            source_deleted: None,
        }
    }

    #[test]
    fn the_harness_bytes_come_back_unchanged_after_the_frontmatter() {
        let original = "---\nname: x\n---\nuse pnpm";
        let text = compose(&meta(), original);
        let (back, body) = parse(&text).expect("an imported note");
        assert_eq!(body, original);
        assert_eq!(back, meta());
        assert!(!edited(&back, body));
        assert!(edited(&back, "use npm"));
    }

    #[test]
    fn a_note_without_the_import_keys_is_not_imported() {
        assert!(parse("---\ntitle: mine\n---\ntext").is_none());
        assert!(parse("no frontmatter").is_none());
    }

    #[test]
    fn a_topic_file_is_titled_by_its_name_key_or_heading() {
        assert_eq!(
            title_of("---\nname: Build\n---\nbody").as_deref(),
            Some("Build")
        );
        assert_eq!(title_of("# Prefs\ntext").as_deref(), Some("Prefs"));
        assert_eq!(title_of("plain"), None);
    }
}
