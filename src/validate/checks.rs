//! The per-artifact checks beyond key types: unknown keys, file naming,
//! the body checksum and the memory sentence; and tombstone files.
//!
//! Owns: those rules. Must not: read files.

use super::*;

/// Obsidian's standard properties (and their older singular names): a person
/// adds them in the Properties panel to find and style files; memsync reads
/// none of them and never warns about them.
const OBSIDIAN_PROPERTIES: &[&str] = &["tags", "aliases", "cssclasses", "tag", "alias", "cssclass"];

pub(super) fn check_unknown_keys(
    path: &str,
    map: &Mapping,
    kind: ArtifactKind,
    problems: &mut Vec<Problem>,
) {
    let (keys, optional) = if kind == ArtifactKind::Manifest {
        (MANIFEST_KEYS, MANIFEST_OPTIONAL)
    } else {
        (IMMUTABLE_KEYS, IMMUTABLE_OPTIONAL)
    };
    for key in map.keys() {
        let known = key.as_str().is_some_and(|k| {
            keys.contains(&k) || optional.contains(&k) || OBSIDIAN_PROPERTIES.contains(&k)
        });
        if !known {
            let shown = key
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| describe(key));
            problems.push(Problem::warning(
                path,
                "key.unknown",
                unknown_key_reason(&shown, keys.iter().chain(optional)),
            ));
        }
    }
}

/// Why a key is reported: it is no part of the session contract, so
/// memsync reads nothing from it (and another reader may refuse it); a
/// near miss of a contract key is most likely a typo of it.
fn unknown_key_reason<'a>(key: &str, contract: impl Iterator<Item = &'a &'a str>) -> String {
    let typo = contract
        .map(|k| (crate::sentence::edit_distance(key, k), *k))
        .filter(|(d, k)| *d > 0 && *d <= 2 && k.len() > 3 && key.chars().count() > 3)
        .min();
    match typo {
        Some((_, k)) => format!(
            "unknown key `{key}`: not in the session contract, so memsync reads nothing from it. Fix: if it is a typo of `{k}`, rename it to that"
        ),
        None => format!(
            "unknown key `{key}`: not in the session contract, so memsync reads nothing from it (another reader of the format, such as Signet, may refuse the file). A property of your own can stay; Obsidian's `tags`, `aliases` and `cssclasses` raise no warning"
        ),
    }
}

pub(super) fn check_naming(
    path: &str,
    name: &CanonicalName,
    a: &Artifact,
    problems: &mut Vec<Problem>,
) {
    if !contract::is_token(&name.token) {
        problems.push(Problem::error(
            path,
            "naming.token",
            format!(
                "file name token {:?} is not 16 lowercase base32 characters",
                name.token
            ),
        ));
    } else if !a.agent_id.is_empty()
        && !a.session_id.is_empty()
        && !contract::token_matches(
            &name.token,
            &a.agent_id,
            a.session_key.as_deref(),
            &a.session_id,
        )
    {
        let expected = contract::token_for(
            crate::contract::TokenRule::Spec,
            &a.agent_id,
            a.session_key.as_deref(),
            &a.session_id,
        );
        problems.push(Problem::error(
            path,
            "naming.token",
            format!(
                "file name token {} matches neither token rule for agent {:?} and this session (expected {expected})",
                name.token, a.agent_id
            ),
        ));
    }
    match (name.captured_at, contract::parse_ts(&a.captured_at)) {
        (None, _) => problems.push(Problem::error(
            path,
            "naming.timestamp",
            "file name timestamp is not a UTC time like 2026-03-28T22-34-06.792Z",
        )),
        // To the millisecond, the spec's precision: Signet's Rust names carry
        // nanoseconds, and the index keeps every time in milliseconds.
        (Some(from_name), Some(from_fm))
            if contract::format_ts(from_name) != contract::format_ts(from_fm) =>
        {
            problems.push(Problem::error(
                path,
                "naming.captured-at",
                format!(
                    "file name says captured at {} but frontmatter `captured_at` is {}",
                    contract::format_ts(from_name),
                    a.captured_at
                ),
            ))
        }
        _ => {}
    }
}

pub(super) fn check_checksum(
    path: &str,
    doc: &parse::Document<'_>,
    kind: ArtifactKind,
    problems: &mut Vec<Problem>,
) {
    let Some(declared) = doc
        .frontmatter
        .get("content_sha256")
        .and_then(Value::as_str)
    else {
        return;
    };
    let actual = contract::body_sha256(doc.body);
    // Obsidian rewrites links when a file is renamed, in its own style
    // (`[[2026-…--summary|summary]]` for `[[memory/2026-…--summary.md|summary]]`):
    // the same links, the same body.
    if declared != actual && declared != contract::body_sha256(&links_in_full(doc.body)) {
        let what = if kind == ArtifactKind::Manifest {
            "manifest body"
        } else {
            "body (immutable after commit)"
        };
        let fix = if kind == ArtifactKind::Manifest {
            format!(
                "restore the body (`git checkout -- '{path}'`, or Obsidian's File recovery); memsync writes it (the session's title and its files as links) and reads nothing typed there: put notes in notes/"
            )
        } else {
            format!(
                "a captured body never changes: restore it (`git checkout -- '{path}'`, or Obsidian's File recovery); to change what agents read, edit `memory_sentence` in the properties (the ledger follows) or write a note under notes/"
            )
        };
        problems.push(Problem::error(
            path,
            "checksum.mismatch",
            format!(
                "{what} does not match content_sha256 (declared {declared}, computed {actual}); the last good rows are kept. Fix: {fix}"
            ),
        ));
    }
}

/// A body with every wikilink written out in full, as memsync writes them:
/// a target named by its file name alone is in `memory/`, and a target
/// without an extension is a `.md` file.
fn links_in_full(body: &str) -> String {
    crate::parse::map_wikilink_targets(body, |target| {
        let folder = match target.contains('/') || target.is_empty() {
            true => String::new(),
            false => format!("{}/", contract::MEMORY_DIR),
        };
        let ext = match target.is_empty() || target.ends_with(".md") {
            true => "",
            false => ".md",
        };
        format!("{folder}{target}{ext}")
    })
}

pub(super) fn check_sentence(
    path: &str,
    a: &Artifact,
    kind: ArtifactKind,
    config: &Config,
    problems: &mut Vec<Problem>,
) {
    if kind == ArtifactKind::Manifest {
        return;
    }
    let Some(s) = &a.memory_sentence else { return };
    if let Some(why) = sentence::check(s, a.project.as_deref(), &config.sentence) {
        problems.push(Problem::warning(
            path,
            "sentence.floor",
            format!("memory_sentence {why}; projections will use a fallback sentence"),
        ));
    }
}

/// Validates a tombstone file at `path` (`memory/tombstones/{agent_id}--{token}.md`).
pub fn validate_tombstone(path: &str, text: &str) -> Result<Tombstone, Vec<Problem>> {
    let doc = parse::parse_document(text)
        .map_err(|e| vec![Problem::error(path, "tombstone.invalid", e.to_string())])?;
    let mut f = Fields {
        map: &doc.frontmatter,
        path,
        problems: Vec::new(),
    };
    let kind = f.string("kind", true, false);
    let agent_id = f.string("agent_id", true, false).unwrap_or_default();
    let token = f.string("session_token", true, false).unwrap_or_default();
    let removed_at = f.timestamp("removed_at", true, false).unwrap_or_default();
    let reason = f.string("reason", true, true).unwrap_or_default();
    let removed_paths = f.string_list("removed_paths", true).unwrap_or_default();
    let mut problems = f.problems;
    if kind.as_deref().is_some_and(|k| k != "tombstone") {
        problems.push(Problem::error(
            path,
            "tombstone.invalid",
            "key `kind` must be `tombstone`",
        ));
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    if !problems.iter().any(|p| p.rule == "key.missing")
        && file != format!("{agent_id}--{token}.md")
    {
        problems.push(Problem::error(
            path,
            "tombstone.invalid",
            format!("file name must be `{agent_id}--{token}.md` to match its frontmatter"),
        ));
    }
    for p in &mut problems {
        if p.rule.starts_with("key.") {
            p.rule = "tombstone.invalid".into();
        }
    }
    if problems.is_empty() {
        Ok(Tombstone {
            source_path: path.to_string(),
            agent_id,
            token,
            removed_at,
            reason,
            removed_paths,
        })
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A property of the person's own is explained, and a near miss of a
    /// contract key is named as the typo it most likely is.
    #[test]
    fn an_unknown_key_says_why_and_a_typo_names_the_key_it_misses() {
        let contract = ["memory_sentence", "captured_at", "project", "kind"];
        let own = unknown_key_reason("reviewed", contract.iter());
        assert!(
            own.contains("memsync reads nothing from it") && own.contains("can stay"),
            "{own}"
        );
        for (typo, key) in [
            ("memory_sentense", "memory_sentence"),
            ("captured-at", "captured_at"),
            ("projetc", "project"),
        ] {
            let why = unknown_key_reason(typo, contract.iter());
            assert!(why.contains(&format!("a typo of `{key}`")), "{why}");
        }
        // Short keys are too near everything to be named.
        assert!(!unknown_key_reason("kin", contract.iter()).contains("typo"));
    }

    /// Every link style Obsidian writes names the same file as memsync's
    /// full path; a link to another file stays another link.
    #[test]
    fn obsidians_link_styles_are_written_out_as_memsyncs_full_paths() {
        let full = "- [[memory/2026-x--summary.md|summary]]\n- [[memory/2026-x--transcript.md]]\n";
        for style in [
            full,
            "- [[2026-x--summary|summary]]\n- [[2026-x--transcript]]\n",
            "- [[2026-x--summary.md|summary]]\n- [[memory/2026-x--transcript]]\n",
        ] {
            assert_eq!(links_in_full(style), full, "{style}");
        }
        assert_ne!(
            links_in_full("- [[2026-y--summary|summary]]\n"),
            links_in_full(full)
        );
        assert_eq!(links_in_full("no links [[ here"), "no links [[ here");
    }
}
