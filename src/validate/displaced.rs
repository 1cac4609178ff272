//! Files a person's tools took out of memsync's names: a session artifact
//! renamed or moved (Obsidian's rename to a readable title, a moved folder),
//! a copy of one, and sync conflict copies (Dropbox, Obsidian Sync,
//! Nextcloud, Syncthing, iCloud, Google Drive). Each is reported with what it
//! is and the way back; none is indexed as a note (it would stand in search
//! beside the session it came from).
//!
//! Owns: recognising them by name and frontmatter, and the wording of the
//! fix. Must not: read files (the caller says which paths exist).

use super::*;

/// The rules of the problems this module reports: the pipeline clears them
/// when their file goes.
pub const DISPLACED_RULES: &[&str] = &["naming.moved", "naming.copy", "sync.conflict-copy"];

/// The file `rel` is a sync conflict copy of, and the tool that names copies
/// that way. A name that only might be a copy (`X 2.md`, `X (1).md`) counts
/// when `exists` says its original is there.
pub fn conflict_original(
    rel: &str,
    exists: impl Fn(&str) -> bool,
) -> Option<(String, &'static str)> {
    let (dir, file) = rel.rsplit_once('/').map_or(("", rel), |(d, f)| (d, f));
    let stem = file.strip_suffix(".md")?;
    let in_dir = |name: &str| match dir {
        "" => format!("{name}.md"),
        d => format!("{d}/{name}.md"),
    };
    let lower = stem.to_ascii_lowercase();
    if let Some(at) = lower.find(" (")
        && lower[at..].contains("conflicted copy")
        && stem.ends_with(')')
    {
        return Some((in_dir(&stem[..at]), "Dropbox, Obsidian Sync or Nextcloud"));
    }
    if let Some(at) = lower.find(".sync-conflict-") {
        return Some((in_dir(&stem[..at]), "Syncthing"));
    }
    let numbered = |open: &str, close: &str| {
        let rest = stem.strip_suffix(close)?;
        let (base, n) = rest.rsplit_once(open)?;
        (!n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())).then_some(base)
    };
    if let Some(base) = numbered(" ", "").filter(|b| exists(&in_dir(b))) {
        return Some((in_dir(base), "iCloud or the Finder"));
    }
    if let Some(base) = numbered(" (", ")").filter(|b| exists(&in_dir(b))) {
        return Some((in_dir(base), "Google Drive or OneDrive"));
    }
    None
}

/// The problem of a conflict copy at `rel` of `original`; `same` when both
/// hold the same bytes, `rendered` when the original is a file memsync renders.
pub fn conflict_copy(rel: &str, original: &str, tool: &str, same: bool, rendered: bool) -> Problem {
    let fix = if same {
        format!("it holds the same bytes as `{original}`: delete it")
    } else if rendered {
        format!(
            "memsync renders `{original}`: copy any lines of yours from outside memsync's block into it (`diff '{rel}' '{original}'`), then delete this copy"
        )
    } else {
        format!(
            "compare them (`diff '{rel}' '{original}'`), keep the right text in `{original}`, then delete this copy"
        )
    };
    Problem::warning(
        rel,
        "sync.conflict-copy",
        format!("a sync conflict copy ({tool}) of `{original}`; not indexed. Fix: {fix}"),
    )
}

/// What a note's frontmatter says it is when it is a session artifact: its
/// canonical path (under `rule`) and who it belongs to.
pub struct Displaced {
    pub kind: ArtifactKind,
    pub agent_id: String,
    pub session_id: String,
    pub canonical: String,
}

/// `Some` when `text` (found at a path that is not an artifact's) carries a
/// session artifact's frontmatter: `kind`, `agent_id`, `session_id` and
/// `captured_at`.
pub fn displaced_artifact(text: &str, rule: contract::TokenRule) -> Option<Displaced> {
    let doc = parse::parse_document(text).ok()?;
    let key = |k: &str| {
        doc.frontmatter
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
    };
    let kind = ArtifactKind::parse(key("kind")?)?;
    let agent_id = key("agent_id").filter(|s| !s.is_empty())?;
    let session_id = key("session_id").filter(|s| !s.is_empty())?;
    let captured = contract::parse_ts(key("captured_at")?)?;
    let token = contract::token_for(rule, agent_id, key("session_key"), session_id);
    let canonical = format!(
        "{}/{}",
        contract::MEMORY_DIR,
        contract::canonical_file_name(captured, &token, kind)
    );
    Some(Displaced {
        kind,
        agent_id: agent_id.to_string(),
        session_id: session_id.to_string(),
        canonical,
    })
}

impl Displaced {
    /// The problem at `rel`; `copy` when a file is at the canonical path too.
    pub fn problem(&self, rel: &str, copy: bool) -> Problem {
        let (kind, canonical) = (self.kind.as_str(), &self.canonical);
        let whose = format!(
            "the {kind} of session {} (agent {})",
            self.session_id, self.agent_id
        );
        let keep = "to keep it as a note instead, delete its `kind` property";
        if copy {
            return Problem::warning(
                rel,
                "naming.copy",
                format!(
                    "a copy of `{canonical}`, {whose}; memsync reads the original, not this copy. Fix: delete it, or {keep}"
                ),
            );
        }
        Problem::warning(
            rel,
            "naming.moved",
            format!(
                "{whose}, {MOVED_FROM}{canonical}`: memsync reads a session's files only under their own names, so search, MEMORY.md and the daily log keep the {kind} as it was before the move and see no change made to it. Fix: move it back (`mv '{rel}' '{canonical}'`, which works whether or not git has the rename yet); {keep}"
            ),
        )
    }
}

const MOVED_FROM: &str = "renamed or moved from `";

/// The canonical path a `naming.moved` problem's reason names: the file
/// whose rows stay while its moved copy is there.
pub fn moved_origin(reason: &str) -> Option<&str> {
    let rest = &reason[reason.find(MOVED_FROM)? + MOVED_FROM.len()..];
    Some(&rest[..rest.find('`')?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_copies_are_known_by_each_tools_name() {
        let none = |_: &str| false;
        let all = |_: &str| true;
        let cases = [
            ("memory/x (conflicted copy 2026-11-24).md", "memory/x.md"),
            (
                "memory/x (Ana's conflicted copy 2026-11-24).md",
                "memory/x.md",
            ),
            (
                "MEMORY (Conflicted copy laptop 202611241040).md",
                "MEMORY.md",
            ),
            (
                "notes/idea.sync-conflict-20261124-104000-ABCDEFG.md",
                "notes/idea.md",
            ),
        ];
        for (copy, original) in cases {
            assert_eq!(
                conflict_original(copy, none).map(|c| c.0),
                Some(original.into())
            );
        }
        assert_eq!(conflict_original("notes/Week 2.md", none), None);
        assert_eq!(
            conflict_original("notes/idea 2.md", all).map(|c| c.0),
            Some("notes/idea.md".into())
        );
        assert_eq!(
            conflict_original("notes/idea (1).md", all).map(|c| c.0),
            Some("notes/idea.md".into())
        );
        assert_eq!(conflict_original("notes/idea.md", all), None);
    }
}
