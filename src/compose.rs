//! Builds canonical artifact files in memsync's writer style: spec key order,
//! JSON-escaped strings, `null`, one `  - "x"` per list item, LF endings.
//!
//! Owns: the text of new canonical files. Must not: write to disk.

use chrono::{DateTime, Utc};

use crate::config::Config;
use crate::contract::TokenRule;
use crate::contract::{self, ArtifactKind, HASH_SCOPE};
use crate::sentence;

/// A frontmatter value in the writer style.
#[derive(Debug, Clone, PartialEq)]
pub enum FmValue {
    Null,
    Str(String),
    Int(i64),
    Bool(bool),
    List(Vec<String>),
    /// A value a person wrote, written back as YAML.
    Yaml(serde_yaml::Value),
}

impl FmValue {
    fn opt(s: Option<&str>) -> FmValue {
        s.map(|s| FmValue::Str(s.to_string()))
            .unwrap_or(FmValue::Null)
    }
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// `---\n{frontmatter}---\n{body}\n`.
pub fn render_document(fields: &[(&str, FmValue)], body: &str) -> String {
    // Sized for the body up front: a 4 MiB transcript is not doubled to 8 by growing.
    let mut out = String::with_capacity(body.len() + 4096);
    out.push_str("---\n");
    for (key, value) in fields {
        match value {
            FmValue::Null => out.push_str(&format!("{key}: null\n")),
            FmValue::Str(s) => out.push_str(&format!("{key}: {}\n", json(s))),
            FmValue::Int(i) => out.push_str(&format!("{key}: {i}\n")),
            FmValue::Bool(b) => out.push_str(&format!("{key}: {b}\n")),
            FmValue::List(items) if items.is_empty() => out.push_str(&format!("{key}: []\n")),
            FmValue::List(items) => {
                out.push_str(&format!("{key}:\n"));
                for item in items {
                    out.push_str(&format!("  - {}\n", json(item)));
                }
            }
            FmValue::Yaml(value) => out.push_str(&yaml_entry(key, value)),
        }
    }
    out.push_str("---\n");
    out.push_str(body.trim_end_matches(['\n', '\r']));
    out.push('\n');
    out
}

/// `key: value`, or `key:` and the value's lines indented under it.
fn yaml_entry(key: &str, value: &serde_yaml::Value) -> String {
    let text = serde_yaml::to_string(value).unwrap_or_else(|_| "null\n".into());
    let nested = matches!(
        value,
        serde_yaml::Value::Sequence(s) if !s.is_empty()
    ) || matches!(value, serde_yaml::Value::Mapping(m) if !m.is_empty());
    match nested {
        true => {
            let lines: String = text.lines().map(|l| format!("  {l}\n")).collect();
            format!("{key}:\n{lines}")
        }
        false => format!("{key}: {}\n", text.trim_end()),
    }
}

/// The content of one immutable artifact before it is written.
#[derive(Debug, Clone)]
pub struct Content {
    pub body: String,
    /// The candidate memory sentence; replaced by the fallback if it fails the floor.
    pub sentence: Option<String>,
    pub captured_at: DateTime<Utc>,
}

/// A session to be written as canonical files.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub agent_id: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: String,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    pub captured_at: DateTime<Utc>,
    pub summary: Option<Content>,
    pub transcript: Option<Content>,
    pub compaction: Option<Content>,
    pub private: bool,
    pub sentence_version: String,
    pub sanitizer_version: String,
}

impl NewSession {
    pub fn token(&self, rule: TokenRule) -> String {
        contract::token_for(
            rule,
            &self.agent_id,
            self.session_key.as_deref(),
            &self.session_id,
        )
    }

    pub fn path(&self, rule: TokenRule, kind: ArtifactKind, captured_at: DateTime<Utc>) -> String {
        format!(
            "{}/{}",
            contract::MEMORY_DIR,
            contract::canonical_file_name(captured_at, &self.token(rule), kind)
        )
    }

    /// Every file of the session as (workspace-relative path, text), manifest last.
    pub fn files(&self, config: &Config) -> Vec<(String, String)> {
        let rule = config.token.write_rule;
        let manifest_path = self.path(rule, ArtifactKind::Manifest, self.captured_at);
        let mut files = Vec::new();
        let mut paths: [Option<String>; 3] = [None, None, None];
        let parts = [
            (ArtifactKind::Transcript, &self.transcript),
            (ArtifactKind::Summary, &self.summary),
            (ArtifactKind::Compaction, &self.compaction),
        ];
        for (i, (kind, content)) in parts.into_iter().enumerate() {
            let Some(c) = content else { continue };
            let path = self.path(rule, kind, c.captured_at);
            files.push((
                path.clone(),
                self.immutable(config, kind, c, &manifest_path),
            ));
            paths[i] = Some(path);
        }
        let [transcript, summary, compaction] = paths;
        let sentence = self
            .summary
            .as_ref()
            .map(|c| self.sentence_for(config, c, ArtifactKind::Summary).0);
        files.push((
            manifest_path,
            self.manifest(sentence, summary, transcript, compaction),
        ));
        files
    }

    /// The identity every file of the session repeats.
    pub fn identity(&self) -> SessionIdentity {
        SessionIdentity {
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
            session_key: self.session_key.clone(),
            project: self.project.clone(),
            harness: self.harness.clone(),
            started_at: self.started_at,
            ended_at: self.ended_at,
            private: self.private,
            noise: false,
            request_source: contract::RequestSource::Owner,
        }
    }

    fn immutable(
        &self,
        config: &Config,
        kind: ArtifactKind,
        c: &Content,
        manifest_path: &str,
    ) -> String {
        let (text, quality) = self.sentence_for(config, c, kind);
        let sentence = SentenceMeta {
            text,
            quality: quality.into(),
            version: self.sentence_version.clone(),
            generated_at: c.captured_at,
        };
        let sanitizer =
            (kind == ArtifactKind::Transcript).then_some(self.sanitizer_version.as_str());
        immutable_document(
            &self.identity(),
            &ImmutableFields {
                kind,
                captured_at: c.captured_at,
                manifest_path,
                sentence: &sentence,
                sanitizer_version: sanitizer,
                idempotency_key: None,
                continues: None,
                source_cursor: None,
            },
            &c.body,
        )
    }

    /// The sentence that passes the floor, or the deterministic fallback.
    fn sentence_for(
        &self,
        config: &Config,
        c: &Content,
        kind: ArtifactKind,
    ) -> (String, &'static str) {
        if let Some(s) = &c.sentence
            && sentence::check(s, self.project.as_deref(), &config.sentence).is_none()
        {
            return (s.clone(), "ok");
        }
        let identity = self.session_key.as_deref().unwrap_or(&self.session_id);
        let token = self.token(config.token.write_rule);
        let kinds = [kind.as_str()];
        let facts = sentence::SessionFacts {
            harness: Some(&self.harness),
            identity,
            project: self.project.as_deref(),
            membership_ts: &contract::format_ts(self.ended_at.unwrap_or(self.captured_at)),
            token: &token,
            kinds: &kinds,
        };
        (sentence::fallback(&facts), "fallback")
    }

    fn manifest(
        &self,
        sentence: Option<String>,
        summary: Option<String>,
        transcript: Option<String>,
        compaction: Option<String>,
    ) -> String {
        let updated_at = self
            .compaction
            .as_ref()
            .map(|c| c.captured_at)
            .unwrap_or(self.captured_at);
        let revision = if compaction.is_some() { 2 } else { 1 };
        let compacted_at = self.compaction.as_ref().map(|c| c.captured_at);
        let listed = [
            (ArtifactKind::Summary, &summary, self.captured_at),
            (ArtifactKind::Transcript, &transcript, self.captured_at),
            (
                ArtifactKind::Compaction,
                &compaction,
                compacted_at.unwrap_or(self.captured_at),
            ),
        ];
        let parts: Vec<ManifestPart<'_>> = listed
            .iter()
            .filter_map(|(kind, path, at)| {
                Some(ManifestPart {
                    captured_at: Some(*at),
                    kind: *kind,
                    path: path.as_deref()?,
                })
            })
            .collect();
        let body = manifest_body(sentence.as_deref(), &parts);
        manifest_document(
            &self.identity(),
            self.captured_at,
            &ManifestFields {
                summary_path: summary,
                transcript_path: transcript,
                compaction_path: compaction,
                memory_md_refs: Vec::new(),
                updated_at,
                revision,
                idempotency_keys: Vec::new(),
                kept: Vec::new(),
            },
            &body,
        )
    }
}

/// The fields every file of one session repeats.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionIdentity {
    pub agent_id: String,
    pub session_id: String,
    pub session_key: Option<String>,
    pub project: Option<String>,
    pub harness: String,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    pub private: bool,
    /// No request from a person in the session: kept out of projections.
    pub noise: bool,
    /// Who asked (written only when not the owner).
    pub request_source: contract::RequestSource,
}

impl SessionIdentity {
    fn fields(
        &self,
        kind: ArtifactKind,
        captured_at: DateTime<Utc>,
    ) -> Vec<(&'static str, FmValue)> {
        vec![
            ("kind", FmValue::Str(kind.as_str().into())),
            ("agent_id", FmValue::Str(self.agent_id.clone())),
            ("session_id", FmValue::Str(self.session_id.clone())),
            ("session_key", FmValue::opt(self.session_key.as_deref())),
            ("project", FmValue::opt(self.project.as_deref())),
            ("harness", FmValue::Str(self.harness.clone())),
            (
                "captured_at",
                FmValue::Str(contract::format_ts(captured_at)),
            ),
        ]
    }

    fn times(&self) -> [(&'static str, FmValue); 2] {
        let ts = |t: Option<DateTime<Utc>>| FmValue::opt(t.map(contract::format_ts).as_deref());
        [
            ("started_at", ts(self.started_at)),
            ("ended_at", ts(self.ended_at)),
        ]
    }
}

/// An immutable artifact's memory sentence and its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct SentenceMeta {
    pub text: String,
    /// `ok` or `fallback`.
    pub quality: String,
    pub version: String,
    pub generated_at: DateTime<Utc>,
}

/// What an immutable artifact adds to its session's identity.
pub struct ImmutableFields<'a> {
    pub kind: ArtifactKind,
    pub captured_at: DateTime<Utc>,
    pub manifest_path: &'a str,
    pub sentence: &'a SentenceMeta,
    /// Transcripts only.
    pub sanitizer_version: Option<&'a str>,
    /// The capture call that wrote it, so a retry recognises its own partial work.
    pub idempotency_key: Option<&'a str>,
    /// The artifact of the same kind this one continues (a later part or compaction).
    pub continues: Option<&'a str>,
    /// Transcripts: `N:hash` of the source messages held through this part.
    pub source_cursor: Option<&'a str>,
}

/// The text of an immutable artifact (summary, transcript or compaction).
pub fn immutable_document(id: &SessionIdentity, f: &ImmutableFields<'_>, body: &str) -> String {
    let mut fields = id.fields(f.kind, f.captured_at);
    fields.extend(id.times());
    fields.extend([
        ("manifest_path", FmValue::Str(f.manifest_path.into())),
        ("source_node_id", FmValue::Null),
        ("content_sha256", FmValue::Str(contract::body_sha256(body))),
        ("hash_scope", FmValue::Str(HASH_SCOPE.into())),
    ]);
    if let Some(v) = f.sanitizer_version {
        fields.push(("sanitizer_version", FmValue::Str(v.into())));
    }
    fields.extend([
        ("memory_sentence", FmValue::Str(f.sentence.text.clone())),
        (
            "memory_sentence_version",
            FmValue::Str(f.sentence.version.clone()),
        ),
        (
            "memory_sentence_quality",
            FmValue::Str(f.sentence.quality.clone()),
        ),
        (
            "memory_sentence_generated_at",
            FmValue::Str(contract::format_ts(f.sentence.generated_at)),
        ),
    ]);
    if let Some(key) = f.idempotency_key {
        fields.push(("idempotency_key", FmValue::Str(key.into())));
    }
    if let Some(prev) = f.continues {
        fields.push(("continues", FmValue::Str(prev.into())));
    }
    if let Some(cursor) = f.source_cursor {
        fields.push(("source_cursor", FmValue::Str(cursor.into())));
    }
    push_flags(&mut fields, id);
    render_document(&fields, body)
}

/// The mutable part of a manifest.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ManifestFields {
    pub summary_path: Option<String>,
    pub transcript_path: Option<String>,
    pub compaction_path: Option<String>,
    pub memory_md_refs: Vec<String>,
    pub updated_at: DateTime<Utc>,
    /// The compare-and-swap counter: every rewrite increments it.
    pub revision: i64,
    pub idempotency_keys: Vec<String>,
    /// Properties a person added (`tags`, `reviewed: true`), kept as they are
    /// when memsync rewrites the manifest.
    pub kept: Vec<(String, serde_yaml::Value)>,
}

/// The text of a session manifest.
pub fn manifest_document(
    id: &SessionIdentity,
    captured_at: DateTime<Utc>,
    m: &ManifestFields,
    body: &str,
) -> String {
    let mut fields = id.fields(ArtifactKind::Manifest, captured_at);
    fields.extend([
        ("summary_path", FmValue::opt(m.summary_path.as_deref())),
        (
            "transcript_path",
            FmValue::opt(m.transcript_path.as_deref()),
        ),
        (
            "compaction_path",
            FmValue::opt(m.compaction_path.as_deref()),
        ),
        ("memory_md_refs", FmValue::List(m.memory_md_refs.clone())),
        (
            "updated_at",
            FmValue::Str(contract::format_ts(m.updated_at)),
        ),
        ("revision", FmValue::Int(m.revision)),
    ]);
    fields.extend(id.times());
    if !m.idempotency_keys.is_empty() {
        fields.push((
            "idempotency_keys",
            FmValue::List(m.idempotency_keys.clone()),
        ));
    }
    push_flags(&mut fields, id);
    // Signet's reader wants the checksum on every artifact, manifests too.
    fields.extend([
        ("content_sha256", FmValue::Str(contract::body_sha256(body))),
        ("hash_scope", FmValue::Str(HASH_SCOPE.into())),
    ]);
    let mut fields: Vec<(&str, FmValue)> = fields;
    fields.extend(
        m.kept
            .iter()
            .map(|(k, v)| (k.as_str(), FmValue::Yaml(v.clone()))),
    );
    render_document(&fields, body)
}

/// One file of a session as its manifest lists it.
#[derive(Debug, Clone, Copy)]
pub struct ManifestPart<'a> {
    pub captured_at: Option<DateTime<Utc>>,
    pub kind: ArtifactKind,
    pub path: &'a str,
}

/// The manifest's body: the session's entry point in a vault, where
/// frontmatter paths are plain text and file names are timestamps. Its
/// sentence as the title, then every part as a wikilink, one line per
/// capture, oldest first (a resumed session lists each of its captures).
pub fn manifest_body(sentence: Option<&str>, parts: &[ManifestPart<'_>]) -> String {
    let mut out = String::new();
    if let Some(s) = sentence.map(sentence::neutralise).filter(|s| !s.is_empty()) {
        out.push_str(&format!("# {s}\n\n"));
    }
    let order = |k: ArtifactKind| match k {
        ArtifactKind::Summary => 0,
        ArtifactKind::Transcript => 1,
        _ => 2,
    };
    let mut parts: Vec<&ManifestPart<'_>> = parts
        .iter()
        .filter(|p| p.kind != ArtifactKind::Manifest)
        .collect();
    parts.sort_by_key(|p| (p.captured_at, order(p.kind), p.path));
    let mut line_of: Option<Option<DateTime<Utc>>> = None;
    for p in parts {
        let link = format!("[[{}|{}]]", p.path, p.kind.as_str());
        if line_of == Some(p.captured_at) {
            out.push_str(&format!(" · {link}"));
            continue;
        }
        if line_of.is_some() {
            out.push('\n');
        }
        let when = p.captured_at.map_or_else(
            || "undated".to_string(),
            |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
        );
        out.push_str(&format!("- {when}: {link}"));
        line_of = Some(p.captured_at);
    }
    out.push('\n');
    out.trim_start_matches('\n').to_string()
}

fn push_flags(fields: &mut Vec<(&'static str, FmValue)>, id: &SessionIdentity) {
    if id.private {
        fields.push(("private", FmValue::Bool(true)));
    }
    if id.noise {
        fields.push(("noise", FmValue::Bool(true)));
    }
    if id.request_source != contract::RequestSource::Owner {
        fields.push((
            "request_source",
            FmValue::Str(id.request_source.as_str().into()),
        ));
    }
}

/// Writes files under `root`, creating directories; for the demo and the generator.
pub fn write_files(root: &std::path::Path, files: &[(String, String)]) -> crate::Result<()> {
    for (rel, text) in files {
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
        }
        std::fs::write(&path, text).map_err(|e| crate::Error::io(&path, e))?;
    }
    Ok(())
}

/// A tombstone file for a removed session.
pub fn tombstone(
    agent_id: &str,
    token: &str,
    removed_at: DateTime<Utc>,
    reason: &str,
    removed: &[String],
) -> (String, String) {
    let fields = [
        ("kind", FmValue::Str("tombstone".into())),
        ("agent_id", FmValue::Str(agent_id.into())),
        ("session_token", FmValue::Str(token.into())),
        ("removed_at", FmValue::Str(contract::format_ts(removed_at))),
        ("reason", FmValue::Str(reason.into())),
        ("removed_paths", FmValue::List(removed.to_vec())),
    ];
    (
        contract::tombstone_path(agent_id, token),
        render_document(&fields, ""),
    )
}
