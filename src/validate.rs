//! Validate stage: judge one parsed file against the contract, producing either a
//! trusted `Artifact`/`Tombstone` or the `Problem`s that explain why not.
//!
//! Owns: per-file rules (schema per kind, checksum, filename/frontmatter agreement,
//! link shape) and cross-file link-graph rules over a session's index rows.
//! Must not: read files or write the index.

use serde::Serialize;
use serde_yaml::{Mapping, Value};

use crate::config::Config;
use crate::contract::{self, ArtifactKind, CanonicalName, HASH_SCOPE};
use crate::parse::{self, Wikilink};
use crate::sentence;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Severity {
        if s == "error" {
            Severity::Error
        } else {
            Severity::Warning
        }
    }
}

/// One thing wrong with one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub path: String,
    pub severity: Severity,
    pub rule: String,
    pub reason: String,
}

impl Problem {
    pub fn error(path: &str, rule: &str, reason: impl Into<String>) -> Problem {
        Problem {
            path: path.to_string(),
            severity: Severity::Error,
            rule: rule.to_string(),
            reason: reason.into(),
        }
    }

    pub fn warning(path: &str, rule: &str, reason: impl Into<String>) -> Problem {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(path, rule, reason)
        }
    }
}

/// A canonical artifact that passed validation: what the index stores.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Artifact {
    pub source_path: String,
    pub source_sha256: String,
    pub kind: Option<ArtifactKind>,
    pub agent_id: String,
    pub token: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: Option<String>,
    pub captured_at: String,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub membership_ts: String,
    pub manifest_path: Option<String>,
    pub summary_path: Option<String>,
    pub transcript_path: Option<String>,
    pub compaction_path: Option<String>,
    pub source_node_id: Option<String>,
    pub content_sha256: Option<String>,
    pub memory_sentence: Option<String>,
    pub memory_sentence_quality: Option<String>,
    pub memory_sentence_version: Option<String>,
    pub memory_sentence_generated_at: Option<String>,
    pub sanitizer_version: Option<String>,
    pub private: bool,
    /// No request from a person in the session: indexed, never projected.
    pub noise: bool,
    /// The artifact of the same kind and session this one continues.
    pub continues: Option<String>,
    /// `N:hash`: how many source messages this transcript and its earlier parts hold.
    pub source_cursor: Option<String>,
    pub revision: Option<i64>,
    pub frontmatter_json: String,
    pub body: String,
    pub links: Vec<Wikilink>,
}

/// A tombstone file: the session it removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tombstone {
    pub source_path: String,
    pub agent_id: String,
    pub token: String,
    pub removed_at: String,
    pub reason: String,
    pub removed_paths: Vec<String>,
}

/// The verdict on one canonical file. `artifact` is set only when no error was found.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    pub artifact: Option<Artifact>,
    pub problems: Vec<Problem>,
}

const IMMUTABLE_KEYS: &[&str] = &[
    "kind",
    "agent_id",
    "session_id",
    "session_key",
    "project",
    "harness",
    "captured_at",
    "started_at",
    "ended_at",
    "manifest_path",
    "source_node_id",
    "content_sha256",
    "hash_scope",
    "memory_sentence",
    "memory_sentence_version",
    "memory_sentence_quality",
    "memory_sentence_generated_at",
];
const IMMUTABLE_OPTIONAL: &[&str] = &[
    "sanitizer_version",
    "compaction_path",
    "private",
    "idempotency_key",
    "noise",
    "continues",
    "source_cursor",
];
const MANIFEST_KEYS: &[&str] = &[
    "kind",
    "agent_id",
    "session_id",
    "session_key",
    "project",
    "harness",
    "captured_at",
    "summary_path",
    "transcript_path",
    "compaction_path",
    "memory_md_refs",
    "updated_at",
];
const MANIFEST_OPTIONAL: &[&str] = &[
    "revision",
    "summary_status",
    "transcript_status",
    "content_sha256",
    "hash_scope",
    "private",
    "started_at",
    "ended_at",
    "idempotency_keys",
    "noise",
];

/// Reads typed keys from a frontmatter mapping, collecting a problem for each
/// missing or mistyped one.
struct Fields<'a> {
    map: &'a Mapping,
    path: &'a str,
    problems: Vec<Problem>,
}

impl<'a> Fields<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    fn missing(&mut self, key: &str) {
        self.problems.push(Problem::error(
            self.path,
            "key.missing",
            format!("required key `{key}` is missing"),
        ));
    }

    fn mistyped(&mut self, key: &str, expected: &str, got: &Value) {
        self.problems.push(Problem::error(
            self.path,
            "key.type",
            format!("key `{key}` must be {expected}, found {}", describe(got)),
        ));
    }

    /// A string key; `nullable` allows `null`. Absent keys are reported when `required`.
    fn string(&mut self, key: &str, required: bool, nullable: bool) -> Option<String> {
        match self.get(key) {
            None => {
                if required {
                    self.missing(key);
                }
                None
            }
            Some(Value::Null) if nullable || !required => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let expected = if nullable {
                    "a string or null"
                } else {
                    "a string"
                };
                self.mistyped(key, expected, other);
                None
            }
        }
    }

    /// A string, number or null (sentence versions are written both ways).
    fn version(&mut self, key: &str) -> Option<String> {
        match self.get(key) {
            None => {
                self.missing(key);
                None
            }
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => self.string(key, true, true),
        }
    }

    fn timestamp(&mut self, key: &str, required: bool, nullable: bool) -> Option<String> {
        let raw = self.string(key, required, nullable)?;
        match contract::parse_ts(&raw) {
            Some(ts) => Some(contract::format_ts(ts)),
            None => {
                self.problems.push(Problem::error(
                    self.path,
                    "key.timestamp",
                    format!("key `{key}` is not an RFC 3339 timestamp with a zone: {raw:?}"),
                ));
                None
            }
        }
    }

    fn string_list(&mut self, key: &str, required: bool) -> Option<Vec<String>> {
        match self.get(key) {
            None => {
                if required {
                    self.missing(key);
                }
                None
            }
            Some(Value::Sequence(items)) => {
                let strings: Option<Vec<String>> =
                    items.iter().map(|v| v.as_str().map(String::from)).collect();
                if strings.is_none() {
                    self.mistyped(key, "a list of strings", &Value::Sequence(items.clone()));
                }
                strings
            }
            Some(Value::Null) => Some(Vec::new()),
            Some(other) => {
                self.mistyped(key, "a list of strings", other);
                None
            }
        }
    }

    fn bool(&mut self, key: &str) -> bool {
        match self.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.mistyped(key, "true or false", other);
                false
            }
        }
    }

    fn integer(&mut self, key: &str) -> Option<i64> {
        match self.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
            Some(other) => {
                self.mistyped(key, "an integer", other);
                None
            }
        }
    }

    fn value_problem(&mut self, reason: String) {
        self.problems
            .push(Problem::error(self.path, "key.value", reason));
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(_) => "a tagged value".into(),
    }
}

/// Validates the text of a canonical artifact whose file name parsed as `name`.
pub fn validate_artifact(path: &str, text: &str, name: &CanonicalName, config: &Config) -> Verdict {
    let mut verdict = Verdict::default();
    let doc = match parse::parse_document(text) {
        Ok(doc) => doc,
        Err(e) => {
            verdict
                .problems
                .push(Problem::error(path, e.rule(), e.to_string()));
            return verdict;
        }
    };
    let mut f = Fields {
        map: &doc.frontmatter,
        path,
        problems: Vec::new(),
    };
    let artifact = read_fields(&mut f, name);
    let mut problems = f.problems;
    check_unknown_keys(path, &doc.frontmatter, name.kind, &mut problems);
    check_naming(path, name, &artifact, &mut problems);
    check_checksum(path, &doc, name.kind, &mut problems);
    check_link_fields(path, &artifact, &mut problems);
    let links = parse::extract_wikilinks(doc.body);
    check_body_links(path, &links, &mut problems);
    check_sentence(path, &artifact, name.kind, config, &mut problems);

    let failed = problems.iter().any(|p| p.severity == Severity::Error);
    verdict.problems = problems;
    if !failed {
        let frontmatter_json = serde_json::to_string(&doc.frontmatter).unwrap_or_default();
        verdict.artifact = Some(Artifact {
            frontmatter_json,
            body: doc.body.to_string(),
            links,
            ..artifact
        });
    }
    verdict
}

fn read_fields(f: &mut Fields<'_>, name: &CanonicalName) -> Artifact {
    let kind = name.kind;
    let manifest = kind == ArtifactKind::Manifest;
    let declared = f.string("kind", true, false);
    if let Some(k) = &declared {
        match ArtifactKind::parse(k) {
            None => f.value_problem(format!(
                "key `kind` is {k:?}, not one of summary, transcript, compaction, manifest"
            )),
            Some(k) if k != kind => f.problems.push(Problem::error(
                f.path,
                "naming.kind",
                format!("file name says `{kind}` but frontmatter `kind` is `{k}`"),
            )),
            Some(_) => {}
        }
    }
    let agent_id = f.string("agent_id", true, false).unwrap_or_default();
    if !agent_id.is_empty() && !contract::is_valid_agent_id(&agent_id) {
        f.value_problem(format!(
            "key `agent_id` {agent_id:?} must match ^[a-z0-9][a-z0-9-]*$ (it becomes a path segment)"
        ));
    }
    let session_id = f.string("session_id", true, false).unwrap_or_default();
    if f.get("session_id").is_some() && session_id.trim().is_empty() {
        f.value_problem("key `session_id` is empty".into());
    }
    let session_key = f.string("session_key", true, true);
    let project = f.string("project", true, true);
    let harness = f.string("harness", true, true);
    let captured_at = f.timestamp("captured_at", true, false).unwrap_or_default();
    let (started_at, ended_at) = (
        f.timestamp("started_at", !manifest, true),
        f.timestamp("ended_at", !manifest, true),
    );
    let mut a = Artifact {
        kind: Some(kind),
        membership_ts: ended_at.clone().unwrap_or_else(|| captured_at.clone()),
        agent_id,
        token: name.token.clone(),
        session_id,
        session_key,
        project,
        harness,
        captured_at,
        started_at,
        ended_at,
        private: f.bool("private"),
        noise: f.bool("noise"),
        ..Artifact::default()
    };
    if manifest {
        a.summary_path = f.string("summary_path", true, false);
        a.transcript_path = f.string("transcript_path", true, false);
        a.compaction_path = f.string("compaction_path", true, true);
        f.string_list("memory_md_refs", true);
        f.timestamp("updated_at", true, false);
        a.revision = f.integer("revision");
        a.content_sha256 = f.string("content_sha256", false, true);
        if f.get("hash_scope").is_some() {
            check_hash_scope(f);
        }
        f.string_list("idempotency_keys", false);
        return a;
    }
    a.manifest_path = f.string("manifest_path", true, false);
    a.compaction_path = f.string("compaction_path", false, true);
    a.source_node_id = f.string("source_node_id", true, true);
    a.continues = f.string("continues", false, true);
    a.source_cursor = f.string("source_cursor", false, true);
    a.content_sha256 = f.string("content_sha256", true, false);
    check_hash_scope(f);
    a.sanitizer_version = f.string("sanitizer_version", kind == ArtifactKind::Transcript, false);
    a.memory_sentence = f.string("memory_sentence", true, false);
    a.memory_sentence_version = f.version("memory_sentence_version");
    a.memory_sentence_quality = f.string("memory_sentence_quality", true, false);
    if let Some(q) = &a.memory_sentence_quality
        && q != "ok"
        && q != "fallback"
    {
        f.value_problem(format!(
            "key `memory_sentence_quality` is {q:?}, not `ok` or `fallback`"
        ));
    }
    a.memory_sentence_generated_at = f.timestamp("memory_sentence_generated_at", true, false);
    a
}

fn check_hash_scope(f: &mut Fields<'_>) {
    if let Some(scope) = f.string("hash_scope", true, false)
        && scope != HASH_SCOPE
    {
        f.value_problem(format!(
            "key `hash_scope` is {scope:?}, must be `{HASH_SCOPE}`"
        ));
    }
}

fn check_unknown_keys(path: &str, map: &Mapping, kind: ArtifactKind, problems: &mut Vec<Problem>) {
    let (keys, optional) = if kind == ArtifactKind::Manifest {
        (MANIFEST_KEYS, MANIFEST_OPTIONAL)
    } else {
        (IMMUTABLE_KEYS, IMMUTABLE_OPTIONAL)
    };
    for key in map.keys() {
        let known = key
            .as_str()
            .is_some_and(|k| keys.contains(&k) || optional.contains(&k));
        if !known {
            let shown = key
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| describe(key));
            problems.push(Problem::warning(
                path,
                "key.unknown",
                format!("unknown key `{shown}`"),
            ));
        }
    }
}

fn check_naming(path: &str, name: &CanonicalName, a: &Artifact, problems: &mut Vec<Problem>) {
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
        (Some(from_name), Some(from_fm)) if from_name != from_fm => problems.push(Problem::error(
            path,
            "naming.captured-at",
            format!(
                "file name says captured at {} but frontmatter `captured_at` is {}",
                contract::format_ts(from_name),
                a.captured_at
            ),
        )),
        _ => {}
    }
}

fn check_checksum(
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
    if declared != actual {
        let what = if kind == ArtifactKind::Manifest {
            "manifest body"
        } else {
            "body (immutable after commit)"
        };
        problems.push(Problem::error(
            path,
            "checksum.mismatch",
            format!("{what} does not match content_sha256: declared {declared}, computed {actual}"),
        ));
    }
}

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

fn check_link_fields(path: &str, a: &Artifact, problems: &mut Vec<Problem>) {
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

fn check_sentence(
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
            if let Some(reason) = graph_target_error(target, want, &node.token, exists) {
                problems.push(Problem::error(
                    &node.source_path,
                    "link.graph",
                    format!("`{key}` {value:?} {reason}"),
                ));
            }
        }
    }
    problems
}

fn graph_target_error(
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
        return Some("does not exist".into());
    }
    None
}
