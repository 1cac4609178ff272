//! The sections of the configuration file, each with its documented defaults
//! (`config/memsync.yaml` shows them all).
//!
//! Owns: the shape and defaults of every key. Must not: load files or
//! decide precedence (that is `config`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::contract::TokenRule;
use crate::harness::Harness;

pub use super::harness_dirs::HarnessDirs;

/// Whether the daemon commits the projections it re-renders in a git workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AutoCommit {
    /// On once `memsync git setup` has registered the merge driver in the repository.
    Auto,
    On,
    Off,
}

/// What of a projection file the daemon's commit holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitScope {
    /// memsync's block alone: the file as HEAD has it with the block
    /// replaced. Lines typed around it are the person's (or agent's) to commit.
    Block,
    /// The whole file, lines around the block included, once quiet.
    File,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitConfig {
    pub auto_commit: AutoCommit,
    /// The message of the daemon's projection commits (fixed, so they are recognisable).
    pub commit_message: String,
    /// The daemon commits once the workspace has been quiet this long: longer
    /// than an editor's autosave (Obsidian's is 2 s), so a person still typing
    /// in MEMORY.md or a daily note is never interleaved with commits.
    pub commit_quiet_ms: u64,
    /// …but at the latest this long after the first change waiting for a
    /// commit, even when writes never pause (an agent writing all day):
    /// only memsync's block is committed then, never a line typed around it.
    pub commit_max_delay_seconds: u64,
    pub commit_scope: CommitScope,
}

impl Default for GitConfig {
    fn default() -> Self {
        GitConfig {
            auto_commit: AutoCommit::Auto,
            commit_message: "memsync: update projections".into(),
            commit_quiet_ms: 5000,
            commit_max_delay_seconds: 300,
            commit_scope: CommitScope::Block,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct IndexConfig {
    /// Index file; relative paths are taken from the workspace root.
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScanConfig {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// Files larger than this are reported, never read whole.
    pub max_file_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenConfig {
    pub write_rule: TokenRule,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemoryMdConfig {
    pub enabled: bool,
    pub budget_bytes: usize,
    pub window_days: u32,
    pub head_projects: usize,
    pub head_compactions: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DailyLogsConfig {
    pub enabled: bool,
    /// `local`, `UTC`, or an IANA zone name such as `Europe/Berlin`.
    pub timezone: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProjectionConfig {
    /// Sessions whose project matches one of these globs are never projected.
    pub exclude_projects: Vec<String>,
    /// Sessions whose session_key or session_id matches one of these globs are never projected.
    pub exclude_sessions: Vec<String>,
    /// Sessions from these harnesses are never projected.
    pub exclude_harnesses: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SentenceConfig {
    pub min_words: usize,
    pub max_words: usize,
    /// Sentences equal to one of these (case and spacing aside) are low-signal.
    pub low_signal: Vec<String>,
    /// Who writes the sentence (`memory_sentence_v2`): a harness's print mode,
    /// an HTTP model, or `command`; null (and no `command`) means the
    /// deterministic sentence composed from the session.
    pub provider: Option<SentenceProvider>,
    /// The provider's model; null: the harness's own default.
    pub model: Option<String>,
    /// The harness provider's program (`claude`, `codex`, `gemini` on PATH
    /// when null); `connect --sentences` records the one it found.
    pub program: Option<String>,
    /// Where an HTTP provider listens (ollama, openai-compatible, anthropic).
    pub base_url: Option<String>,
    /// The *name* of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// `capture` runs this (`sh -c`) with the prompt on stdin and takes one
    /// sentence from its stdout; null, failure or timeout means the fallback.
    pub command: Option<String>,
    pub timeout_seconds: u64,
    /// At most this many model calls a minute; past it, the fallback.
    pub per_minute: u64,
}

/// Who writes a model sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentenceProvider {
    /// A harness in its print mode ([`Harness::writes_sentences`]).
    Harness(Harness),
    Ollama,
    OpenaiCompatible,
    Anthropic,
    Command,
}

impl SentenceProvider {
    /// Every provider, the harnesses first.
    pub fn all() -> impl Iterator<Item = SentenceProvider> {
        Harness::ALL
            .into_iter()
            .filter(|h| h.writes_sentences())
            .map(SentenceProvider::Harness)
            .chain([
                SentenceProvider::Ollama,
                SentenceProvider::OpenaiCompatible,
                SentenceProvider::Anthropic,
                SentenceProvider::Command,
            ])
    }

    pub fn name(self) -> &'static str {
        match self {
            SentenceProvider::Harness(h) => h.as_str(),
            SentenceProvider::Ollama => "ollama",
            SentenceProvider::OpenaiCompatible => "openai-compatible",
            SentenceProvider::Anthropic => "anthropic",
            SentenceProvider::Command => "command",
        }
    }

    pub fn parse(name: &str) -> Option<SentenceProvider> {
        Self::all().find(|p| p.name() == name)
    }
}

// Spelled by its name in the config, as serde spelled the variants before a
// harness provider carried its Harness.
impl Serialize for SentenceProvider {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SentenceProvider {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        SentenceProvider::parse(&name).ok_or_else(|| {
            let names: Vec<String> = Self::all().map(|p| format!("`{}`", p.name())).collect();
            serde::de::Error::custom(format!(
                "unknown variant `{name}`, expected one of {}",
                names.join(", ")
            ))
        })
    }
}

impl SentenceConfig {
    /// The provider in force: `provider`, else `command` when one is set.
    pub fn provider(&self) -> Option<SentenceProvider> {
        self.provider
            .or(self.command.as_ref().map(|_| SentenceProvider::Command))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SummaryConfig {
    /// `capture` runs this (`sh -c`) with the sanitized transcript on stdin and
    /// takes the summary body from its stdout; null means the extractive summary.
    pub command: Option<String>,
    pub timeout_seconds: u64,
}

impl Default for SummaryConfig {
    fn default() -> Self {
        SummaryConfig {
            command: None,
            timeout_seconds: 60,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Results when `--limit` is not given.
    pub limit: usize,
    /// A match in `memory_sentence` counts this many times a match in the body.
    pub sentence_weight: f64,
    /// The recency boost halves every this many days of session age.
    pub recency_half_life_days: f64,
    /// How much a brand-new session is boosted (1 + weight at age 0).
    pub recency_weight: f64,
    /// Past accesses fade with this half-life, in days since the last access.
    pub usage_half_life_days: f64,
    /// How much use boosts a session (1 + weight * ln(1 + decayed uses)).
    pub usage_weight: f64,
    /// Whether a prompt hook (Claude Code's UserPromptSubmit) is answered with
    /// up to three earlier sessions relevant to the prompt.
    pub prompt_recall: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            limit: 10,
            sentence_weight: 2.0,
            recency_half_life_days: 30.0,
            recency_weight: 0.05,
            usage_half_life_days: 30.0,
            usage_weight: 0.05,
            prompt_recall: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureConfig {
    /// Hook mode stops waiting for more of the payload after this much silence.
    pub hook_idle_ms: u64,
    /// A job that fails this many times stays failed (shown by `status`).
    pub job_attempts: u32,
    /// The wait before the first retry; it doubles with each attempt.
    pub job_backoff_seconds: u64,
    /// A worker's claim on a job; a claim older than this is taken over.
    pub job_lease_seconds: u64,
    /// The most of a conversation one transcript artifact keeps (its first
    /// request and answer, then the newest messages); also the longest line
    /// read. Bounds capture's memory and the index's.
    pub max_transcript_bytes: u64,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            hook_idle_ms: 1000,
            job_attempts: 5,
            job_backoff_seconds: 10,
            job_lease_seconds: 300,
            max_transcript_bytes: 4 * 1024 * 1024,
        }
    }
}

impl Default for ScanConfig {
    fn default() -> Self {
        let exclude = [
            ".git",
            ".obsidian",
            ".trash",
            ".memsync",
            "node_modules",
            "**/*.swp",
            "**/*.swx",
            "**/*~",
            "**/.#*",
            "**/4913",
            "**/*.tmp-*",
            "**/.*.tmp*",
            "**/*.lock",
            "**/MEMORY.backup-*",
            "**/.DS_Store",
        ];
        ScanConfig {
            include: vec!["**/*.md".into()],
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            max_file_bytes: 16 * 1024 * 1024,
        }
    }
}

impl Default for TokenConfig {
    fn default() -> Self {
        TokenConfig {
            write_rule: TokenRule::Spec,
        }
    }
}

impl Default for MemoryMdConfig {
    fn default() -> Self {
        MemoryMdConfig {
            enabled: true,
            budget_bytes: 20_000,
            window_days: 30,
            head_projects: 5,
            head_compactions: 3,
        }
    }
}

impl Default for DailyLogsConfig {
    fn default() -> Self {
        DailyLogsConfig {
            enabled: true,
            timezone: "local".into(),
        }
    }
}

impl Default for ProjectionConfig {
    fn default() -> Self {
        ProjectionConfig {
            exclude_projects: vec!["/tmp/**".into(), "/private/tmp/**".into()],
            exclude_sessions: ["test-*", "spec-*", "fixture-*", "synthetic-*", "tmp-*"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            exclude_harnesses: vec!["test".into()],
        }
    }
}

impl Default for SentenceConfig {
    fn default() -> Self {
        SentenceConfig {
            min_words: 12,
            max_words: 48,
            low_signal: ["Investigated issue.", "Worked on task.", "Reviewed code."]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            provider: None,
            model: None,
            program: None,
            base_url: None,
            api_key_env: None,
            command: None,
            timeout_seconds: 30,
            per_minute: 6,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WatchConfig {
    /// Events are gathered for this long before a batch is reconciled.
    pub debounce_ms: u64,
    /// A full (stat-only) reconcile this often, whatever the events say.
    pub reconcile_minutes: u64,
    /// How often to reconcile when file events are unavailable.
    pub poll_seconds: u64,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            debounce_ms: 200,
            reconcile_minutes: 10,
            poll_seconds: 5,
        }
    }
}

/// `memsync harvest`: capturing finished sessions from the harnesses' own
/// folders. Machine config only: the folders are this machine's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Unknown keys are refused by `HarnessDirs`, which takes the ones left over.
#[serde(default)]
pub struct HarvestConfig {
    /// Whether `memsync watch` harvests on its own.
    pub enabled: bool,
    /// A session is finished once its file has been quiet this long.
    pub idle_minutes: u64,
    /// Files older than this are not looked at (Claude Code deletes them after ~30 days).
    pub max_age_days: u64,
    /// How often the daemon looks, when `enabled`.
    pub interval_seconds: u64,
    /// Session files larger than this are skipped with their size as the
    /// reason, never read whole into memory.
    pub max_file_bytes: u64,
    /// The harnesses to read: claude-code, codex, openclaw, pi, gemini-cli,
    /// qwen-code, copilot-cli, opencode, cline.
    pub harnesses: Vec<String>,
    /// Sessions whose project matches one of these globs are not harvested.
    pub exclude_projects: Vec<String>,
    /// The memsync agent of Claude Code, Codex and pi sessions (OpenClaw's agents map to their own ids).
    pub agent: String,
    /// Each harness's own folder, when it is not where the harness keeps it
    /// by default: `claude_code_dir`, `codex_home`, … (`config/memsync.yaml`).
    #[serde(flatten)]
    pub dirs: HarnessDirs,
}

impl Default for HarvestConfig {
    fn default() -> Self {
        HarvestConfig {
            enabled: false,
            idle_minutes: 30,
            max_age_days: 30,
            interval_seconds: 20,
            max_file_bytes: 256 * 1024 * 1024,
            harnesses: crate::config::HARNESSES.map(String::from).to_vec(),
            exclude_projects: Vec::new(),
            agent: "default".into(),
            dirs: HarnessDirs::default(),
        }
    }
}

/// A copy of one agent's MEMORY.md and daily logs, rendered into a folder
/// outside the workspace that another harness reads (OpenClaw's workspace).
/// Machine only: the folder is this machine's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorConfig {
    /// The memsync agent whose projections are copied.
    pub agent: String,
    /// The folder: MEMORY.md and memory/YYYY-MM-DD.md are written there.
    pub dir: PathBuf,
}
