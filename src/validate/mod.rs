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

mod checks;
mod displaced;
mod links;

pub use checks::validate_tombstone;
use checks::{check_checksum, check_naming, check_sentence, check_unknown_keys};
pub use displaced::{
    DISPLACED_RULES, Displaced, conflict_copy, conflict_original, displaced_artifact, moved_origin,
};
use links::check_link_fields;
pub use links::{GraphNode, check_body_links, check_graph, link_path, link_shape_error};

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
    /// A request from someone other than the owner (`request_source`):
    /// indexed and searchable, never injected.
    pub untrusted: bool,
    /// The artifact of the same kind and session this one continues.
    pub continues: Option<String>,
    /// `N:hash`: how many source messages this transcript and its earlier parts hold.
    pub source_cursor: Option<String>,
    pub revision: Option<i64>,
    pub body: String,
    /// What a person called the session in Obsidian's standard properties
    /// (`aliases`, `tags`), joined for search.
    pub properties: Option<String>,
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
    "request_source",
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
/// Whether memsync owns `key` in a manifest (it rewrites those; a person's
/// own properties it keeps).
pub fn is_manifest_key(key: &str) -> bool {
    MANIFEST_KEYS.contains(&key) || MANIFEST_OPTIONAL.contains(&key)
}

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
    "request_source",
];

/// Why `raw` is not a time memsync keeps, with the way back when it is what
/// Obsidian's date picker writes (local time to the minute, no zone).
fn timestamp_reason(key: &str, raw: &str) -> String {
    let picked = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]
        .iter()
        .any(|f| {
            chrono::NaiveDateTime::parse_from_str(raw.trim(), f).is_ok()
                || chrono::NaiveDate::parse_from_str(raw.trim(), f).is_ok()
        });
    if picked {
        format!(
            "key `{key}` is {raw:?}, a time without a zone as Obsidian's date picker writes it; memsync keeps UTC times like 2026-03-28T22:34:06.792Z. Set the property's type back to Text (its icon → Property type → Text) and restore the value (`git diff` shows it; for `captured_at` it is the file name's time)"
        )
    } else {
        format!("key `{key}` is not an RFC 3339 timestamp with a zone: {raw:?}")
    }
}

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
                    timestamp_reason(key, &raw),
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
        verdict.artifact = Some(Artifact {
            body: doc.body.to_string(),
            properties: person_properties(&doc.frontmatter),
            ..artifact
        });
    }
    verdict
}

/// The words of Obsidian's standard properties a person adds to any note
/// (`aliases`, `tags`, each a list or one value; a tag without its `#`).
fn person_properties(frontmatter: &serde_yaml::Mapping) -> Option<String> {
    let mut words: Vec<&str> = Vec::new();
    for key in ["aliases", "alias", "tags", "tag"] {
        let values: Vec<&Value> = match frontmatter.get(key) {
            Some(Value::Sequence(list)) => list.iter().collect(),
            Some(one) => vec![one],
            None => continue,
        };
        words.extend(
            values
                .into_iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().trim_start_matches('#'))
                .filter(|s| !s.is_empty()),
        );
    }
    (!words.is_empty()).then(|| words.join("\n"))
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
        untrusted: f
            .string("request_source", false, false)
            .is_some_and(|s| !crate::contract::RequestSource::parse(&s).trusted()),
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
