//! The link rules: the shape of a wikilink or manifest path, the links of one
//! artifact, and the link graph of a session (every artifact reachable, every
//! target present).
//!
//! Owns: what a valid link is. Must not: read files (callers say what exists).

use super::*;

/// Why a link target is not a workspace-root-relative path, if it is not.
pub fn link_shape_error(target: &str) -> Option<&'static str> {
    let t = target.trim();
    if t.is_empty() {
        return Some("is empty");
    }
    if t.starts_with('/') || t.starts_with('\\') || t.as_bytes().get(1) == Some(&b':') {
        return Some("is absolute");
    }
    if t.contains("://")
        || t.split_once(':')
            .is_some_and(|(s, _)| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()))
    {
        return Some("has a URL scheme");
    }
    if t.split(['/', '\\']).any(|seg| seg == "..") {
        return Some("contains `..`");
    }
    None
}

/// Strips `[[…]]` and a `|label` from a frontmatter path value.
pub fn link_path(value: &str) -> &str {
    let v = value.trim();
    let v = v
        .strip_prefix("[[")
        .and_then(|v| v.strip_suffix("]]"))
        .unwrap_or(v);
    v.split('|').next().unwrap_or(v).trim()
}

pub(super) fn check_link_fields(path: &str, a: &Artifact, problems: &mut Vec<Problem>) {
    let fields = [
        ("manifest_path", &a.manifest_path),
        ("summary_path", &a.summary_path),
        ("transcript_path", &a.transcript_path),
        ("compaction_path", &a.compaction_path),
        ("continues", &a.continues),
    ];
    for (key, value) in fields {
        let Some(value) = value else { continue };
        let target = link_path(value);
        if let Some(why) = link_shape_error(target) {
            problems.push(Problem::error(
                path,
                "link.invalid",
                format!("`{key}` {value:?} {why}; links must be relative to the workspace root"),
            ));
        }
    }
}

pub fn check_body_links(path: &str, links: &[Wikilink], problems: &mut Vec<Problem>) {
    for link in links {
        let target = link.target.split('#').next().unwrap_or(&link.target);
        if let Some(why) = link_shape_error(target) {
            problems.push(Problem::error(
                path,
                "link.invalid",
                format!(
                    "wikilink [[{}]] {why}; links must be relative to the workspace root",
                    link.target
                ),
            ));
            continue;
        }
        let file = target.rsplit('/').next().unwrap_or(target);
        let names_artifact = contract::parse_canonical_name(file).is_some();
        if names_artifact && target != format!("{}/{file}", contract::MEMORY_DIR) {
            problems.push(Problem::error(
                path,
                "link.not-root-relative",
                format!(
                    "wikilink [[{}]] names a canonical artifact but is not `memory/{file}` from the workspace root",
                    link.target
                ),
            ));
        }
    }
}

/// One artifact of a session as the graph check sees it: what it declares and what it is.
#[derive(Debug, Clone)]
pub struct GraphNode {
    pub source_path: String,
    pub kind: ArtifactKind,
    pub token: String,
    pub manifest_path: Option<String>,
    pub summary_path: Option<String>,
    pub transcript_path: Option<String>,
    pub compaction_path: Option<String>,
    pub continues: Option<String>,
}

/// The link graph of one session: each artifact's `manifest_path` names the
/// session's manifest; a manifest's paths name artifacts of that kind and session.
/// `exists` answers whether a workspace-relative file is present.
pub fn check_graph(nodes: &[GraphNode], exists: &dyn Fn(&str) -> bool) -> Vec<Problem> {
    let mut problems = Vec::new();
    for kind in ArtifactKind::ALL {
        let same: Vec<&GraphNode> = nodes.iter().filter(|n| n.kind == kind).collect();
        // Later parts and later compactions name what they continue: one
        // lineage is a defined shape; two artifacts that continue nothing are not.
        let roots = same.iter().filter(|n| n.continues.is_none()).count();
        if same.len() > 1 && roots > 1 {
            for n in &same {
                problems.push(Problem::warning(
                    &n.source_path,
                    "session.duplicate-kind",
                    format!(
                        "session {} has {} {kind} artifacts; projections use the newest",
                        n.token,
                        same.len()
                    ),
                ));
            }
        }
    }
    for node in nodes {
        let declared = [
            ("manifest_path", &node.manifest_path, ArtifactKind::Manifest),
            ("summary_path", &node.summary_path, ArtifactKind::Summary),
            (
                "transcript_path",
                &node.transcript_path,
                ArtifactKind::Transcript,
            ),
            (
                "compaction_path",
                &node.compaction_path,
                ArtifactKind::Compaction,
            ),
            ("continues", &node.continues, node.kind),
        ];
        for (key, value, want) in declared {
            let Some(value) = value else { continue };
            let target = link_path(value);
            if link_shape_error(target).is_some() {
                continue; // already reported per file
            }
            let reason = graph_target_error(target, want, &node.token, exists);
            // A manifest may name a part before it is written (Signet's always
            // names a summary and a transcript): the session is not broken.
            let pending = node.kind == ArtifactKind::Manifest
                && key != "continues"
                && reason.as_deref() == Some(NOT_THERE);
            match reason {
                Some(reason) if pending => problems.push(Problem::warning(
                    &node.source_path,
                    "link.pending",
                    format!("`{key}` {value:?} {reason} (not written yet, or deleted)"),
                )),
                Some(reason) => problems.push(Problem::error(
                    &node.source_path,
                    "link.graph",
                    format!("`{key}` {value:?} {reason}"),
                )),
                None => {}
            }
        }
    }
    problems
}

pub(super) fn graph_target_error(
    target: &str,
    want: ArtifactKind,
    token: &str,
    exists: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let file = target.strip_prefix("memory/").filter(|f| !f.contains('/'));
    let Some(name) = file.and_then(contract::parse_canonical_name) else {
        return Some("is not a canonical artifact path under memory/".into());
    };
    if name.kind != want {
        return Some(format!("names a {} artifact, not a {want}", name.kind));
    }
    if name.token != token {
        return Some(format!(
            "names session {}, not this session {token}",
            name.token
        ));
    }
    if !exists(target) {
        return Some(NOT_THERE.into());
    }
    None
}

/// Why a well-formed link to this session's artifact fails: the file is not there.
const NOT_THERE: &str = "does not exist";
