//! Configuration: the documented keys, their defaults, and the load order.
//!
//! Owns: reading and merging config files, and resolving the workspace root.
//! Must not: touch the workspace or the index.
//!
//! Load order: `--config FILE`, else `$MEMSYNC_CONFIG`, else
//! `$XDG_CONFIG_HOME/memsync/config.yaml` (machine settings), overlaid by
//! `<workspace>/memsync.yaml` (settings that travel with the workspace).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_yaml::Value;

use crate::contract::TokenRule;
use crate::error::{Error, Result};

/// The file name of the workspace-level overlay.
pub const WORKSPACE_CONFIG: &str = "memsync.yaml";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The workspace root (machine config only; see `resolve_root`).
    pub workspace: Option<PathBuf>,
    pub index: IndexConfig,
    pub scan: ScanConfig,
    pub token: TokenConfig,
    pub memory_md: MemoryMdConfig,
    pub daily_logs: DailyLogsConfig,
    pub projection: ProjectionConfig,
    pub sentence: SentenceConfig,
    pub summary: SummaryConfig,
    pub capture: CaptureConfig,
    pub search: SearchConfig,
    pub git: GitConfig,
    pub watch: WatchConfig,
}

/// Whether the daemon commits the projections it re-renders in a git workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AutoCommit {
    /// On once `memsync git setup` has registered the merge driver in the repository.
    Auto,
    On,
    Off,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitConfig {
    pub auto_commit: AutoCommit,
    /// The message of the daemon's projection commits (fixed, so they are recognisable).
    pub commit_message: String,
}

impl Default for GitConfig {
    fn default() -> Self {
        GitConfig {
            auto_commit: AutoCommit::Auto,
            commit_message: "memsync: update projections".into(),
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
    /// `capture` runs this (`sh -c`) with the summary body on stdin and takes one
    /// sentence from its stdout; null, failure or timeout means the fallback.
    pub command: Option<String>,
    pub timeout_seconds: u64,
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
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            limit: 10,
            sentence_weight: 2.0,
            recency_half_life_days: 30.0,
            recency_weight: 0.5,
            usage_half_life_days: 30.0,
            usage_weight: 0.25,
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
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            hook_idle_ms: 1000,
            job_attempts: 5,
            job_backoff_seconds: 10,
            job_lease_seconds: 300,
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
            command: None,
            timeout_seconds: 10,
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

/// Where the settings in force came from, for `status`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ConfigSources {
    pub machine: Option<PathBuf>,
    pub workspace: Option<PathBuf>,
}

/// The environment that decides the config file and workspace root; passed in so
/// tests need not mutate the process environment.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub memsync_config: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub home: Option<PathBuf>,
    pub memsync_workspace: Option<PathBuf>,
    pub signet_workspace: Option<PathBuf>,
    pub signet_path: Option<PathBuf>,
}

impl Env {
    pub fn from_process() -> Self {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Env {
            memsync_config: var("MEMSYNC_CONFIG"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            home: var("HOME"),
            memsync_workspace: var("MEMSYNC_WORKSPACE"),
            signet_workspace: var("SIGNET_WORKSPACE"),
            signet_path: var("SIGNET_PATH"),
        }
    }

    /// The machine config file to read, and whether it was named explicitly
    /// (an explicitly named file must exist).
    fn machine_config(&self, flag: Option<&Path>) -> Option<(PathBuf, bool)> {
        if let Some(p) = flag {
            return Some((p.to_path_buf(), true));
        }
        if let Some(p) = &self.memsync_config {
            return Some((p.clone(), true));
        }
        let base = self
            .xdg_config_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".config")))?;
        Some((base.join("memsync").join("config.yaml"), false))
    }
}

/// A loaded configuration together with the resolved workspace root.
#[derive(Debug, Clone)]
pub struct Settings {
    pub root: PathBuf,
    pub config: Config,
    pub sources: ConfigSources,
    /// The clock was fixed (`--now`): renders use it exactly. On the real
    /// clock a render never goes back before the previous render's time.
    pub fixed_clock: bool,
}

impl Settings {
    /// Loads the machine config, resolves the workspace root, and overlays the
    /// workspace's own `memsync.yaml`. Any unknown key or wrong type is an error.
    pub fn load(
        workspace_flag: Option<&Path>,
        config_flag: Option<&Path>,
        env: &Env,
    ) -> Result<Settings> {
        let mut sources = ConfigSources::default();
        let mut merged = Value::Mapping(Default::default());
        if let Some((path, required)) = env.machine_config(config_flag)
            && let Some(value) = read_layer(&path, required)?
        {
            merge(&mut merged, value);
            sources.machine = Some(path);
        }
        let machine: Config = from_value(&merged, sources.machine.as_deref())?;
        let root = resolve_root(workspace_flag, env, &machine)?;

        let ws_path = root.join(WORKSPACE_CONFIG);
        if let Some(value) = read_layer(&ws_path, false)? {
            check_machine_only(&ws_path, &value)?;
            merge(&mut merged, value);
            sources.workspace = Some(ws_path.clone());
        }
        let config: Config = from_value(&merged, sources.workspace.as_deref())?;
        validate(
            &config,
            sources.workspace.as_deref().or(sources.machine.as_deref()),
        )?;
        Ok(Settings {
            root,
            config,
            sources,
            fixed_clock: false,
        })
    }

    /// The index file in force.
    pub fn index_path(&self) -> PathBuf {
        match &self.config.index.path {
            Some(p) if p.is_absolute() => p.clone(),
            Some(p) => self.root.join(p),
            None => self.root.join(crate::STATE_DIR).join("index.db"),
        }
    }

    pub fn state_dir(&self) -> PathBuf {
        self.root.join(crate::STATE_DIR)
    }
}

/// `--workspace DIR` > `MEMSYNC_WORKSPACE` > `SIGNET_WORKSPACE` > `SIGNET_PATH` >
/// config `workspace` > `~/.agents`.
pub fn resolve_root(flag: Option<&Path>, env: &Env, config: &Config) -> Result<PathBuf> {
    let chosen = flag
        .map(Path::to_path_buf)
        .or_else(|| env.memsync_workspace.clone())
        .or_else(|| env.signet_workspace.clone())
        .or_else(|| env.signet_path.clone())
        .or_else(|| config.workspace.as_ref().map(|p| expand_home(p, env)))
        .or_else(|| env.home.as_ref().map(|h| h.join(".agents")))
        .ok_or(crate::error::ConfigError::Environment {
            var: "HOME",
            needed_for: "no workspace was given and the default ~/.agents needs it",
        })?;
    Ok(chosen)
}

fn expand_home(p: &Path, env: &Env) -> PathBuf {
    match (p.strip_prefix("~"), &env.home) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => p.to_path_buf(),
    }
}

fn read_layer(path: &Path, required: bool) -> Result<Option<Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => return Err(Error::config(path, e.to_string())),
    };
    if text.trim().is_empty() {
        return Ok(Some(Value::Mapping(Default::default())));
    }
    // Deserialising the layer on its own gives errors that name the key and line.
    serde_yaml::from_str::<Config>(&text).map_err(|e| Error::config(path, e.to_string()))?;
    let value =
        serde_yaml::from_str::<Value>(&text).map_err(|e| Error::config(path, e.to_string()))?;
    Ok(Some(value))
}

fn from_value(value: &Value, path: Option<&Path>) -> Result<Config> {
    serde_yaml::from_value(value.clone())
        .map_err(|e| Error::config(path.unwrap_or(Path::new("<config>")), e.to_string()))
}

/// Overlays `top` on `base`: mappings merge key by key, everything else replaces.
/// Keys a synced workspace must not set: where the workspace is, and the
/// commands `capture` runs (a hostile clone could otherwise run anything).
const MACHINE_ONLY: &[(&str, Option<&str>)] = &[
    ("workspace", None),
    ("sentence", Some("command")),
    ("summary", Some("command")),
];

fn check_machine_only(path: &Path, overlay: &Value) -> Result<()> {
    for (section, key) in MACHINE_ONLY {
        let found = match key {
            None => overlay.get(section).is_some(),
            Some(k) => overlay.get(section).and_then(|s| s.get(k)).is_some(),
        };
        if found {
            let name = key.map_or(section.to_string(), |k| format!("{section}.{k}"));
            return Err(Error::config(
                path,
                format!(
                    "key `{name}` belongs in the machine config, not in the workspace's memsync.yaml"
                ),
            ));
        }
    }
    Ok(())
}

fn merge(base: &mut Value, top: Value) {
    match (base, top) {
        (Value::Mapping(b), Value::Mapping(t)) => {
            for (k, v) in t {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

fn validate(config: &Config, path: Option<&Path>) -> Result<()> {
    let path = path.unwrap_or(Path::new("<config>"));
    crate::contract::DayZone::parse(&config.daily_logs.timezone)
        .map_err(|reason| Error::config(path, format!("daily_logs.timezone: {reason}")))?;
    for (key, globs) in [
        ("scan.include", &config.scan.include),
        ("scan.exclude", &config.scan.exclude),
        (
            "projection.exclude_projects",
            &config.projection.exclude_projects,
        ),
        (
            "projection.exclude_sessions",
            &config.projection.exclude_sessions,
        ),
    ] {
        for g in globs {
            globset::Glob::new(g).map_err(|e| Error::config(path, format!("{key}: {e}")))?;
        }
    }
    if config.sentence.min_words == 0 || config.sentence.min_words > config.sentence.max_words {
        return Err(Error::config(
            path,
            "sentence.min_words must be at least 1 and at most sentence.max_words",
        ));
    }
    if config.memory_md.window_days == 0 {
        return Err(Error::config(
            path,
            "memory_md.window_days must be at least 1",
        ));
    }
    Ok(())
}
