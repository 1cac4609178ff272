//! Configuration: the documented keys, their defaults, and the load order.
//!
//! Owns: reading and merging config files, and resolving the workspace root.
//! Must not: touch the workspace or the index.
//!
//! Load order: `--config FILE`, else `$MEMSYNC_CONFIG`, else
//! `$XDG_CONFIG_HOME/memsync/config.yaml` (machine settings), overlaid by
//! `<workspace>/memsync.yaml` (settings that travel with the workspace).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_yaml::Value;

use crate::error::{ConfigError, Error, Result};
use crate::harness::Harness;

mod connected;
mod effective;
mod harness_dirs;
mod numbers;
mod sections;

pub use effective::{EffectiveKey, effective};
pub use sections::*;

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
    pub harvest: HarvestConfig,
    pub mirrors: Vec<MirrorConfig>,
}

/// Where the settings in force came from, for `status`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ConfigSources {
    pub machine: Option<PathBuf>,
    pub workspace: Option<PathBuf>,
    /// What named the workspace root: `--workspace`, a variable, the config, or the default.
    pub root_from: &'static str,
    /// connect's record, when it turned on harvest or a mirror for this workspace.
    pub connect: Option<PathBuf>,
}

/// The harnesses harvest reads, as `harvest.harnesses` and `--harness` name them.
pub use crate::harness::NAMES as HARNESSES;

/// The environment that decides the config file and workspace root; passed in so
/// tests need not mutate the process environment.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub memsync_config: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub xdg_state_home: Option<PathBuf>,
    pub home: Option<PathBuf>,
    pub memsync_workspace: Option<PathBuf>,
    pub signet_workspace: Option<PathBuf>,
    pub signet_path: Option<PathBuf>,
    /// The harnesses' own folder variables ([`Harness::home_variable`]) that
    /// are set, for `harvest` and `connect`.
    pub harness_homes: BTreeMap<Harness, PathBuf>,
    /// Where opencode keeps its database (`$XDG_DATA_HOME/opencode`).
    pub xdg_data_home: Option<PathBuf>,
    /// The folder memsync runs in: a workspace in it or above it is found
    /// the way git finds its repository.
    pub cwd: Option<PathBuf>,
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
            xdg_state_home: var("XDG_STATE_HOME"),
            home: var("HOME"),
            memsync_workspace: var("MEMSYNC_WORKSPACE"),
            signet_workspace: var("SIGNET_WORKSPACE"),
            signet_path: var("SIGNET_PATH"),
            harness_homes: Harness::ALL
                .into_iter()
                .filter_map(|h| Some((h, var(h.home_variable()?)?)))
                .collect(),
            xdg_data_home: var("XDG_DATA_HOME"),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// The machine config file to read, and whether it was named explicitly
    /// (an explicitly named file must exist).
    pub fn machine_config(&self, flag: Option<&Path>) -> Option<(PathBuf, bool)> {
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

    /// Where `connect` keeps its record: `$XDG_STATE_HOME/memsync/connect.json`.
    pub fn connect_record(&self) -> Option<PathBuf> {
        let state = self
            .xdg_state_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".local/state")))?;
        Some(state.join("memsync").join("connect.json"))
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
        let (root, root_from) = resolve_root_from(workspace_flag, env, &machine)?;
        sources.root_from = root_from;
        if root.exists() && !root.is_dir() {
            return Err(ConfigError::NotADirectory { path: root }.into());
        }

        let ws_path = root.join(WORKSPACE_CONFIG);
        if let Some(value) = read_layer(&ws_path, false)? {
            check_machine_only(&ws_path, &value)?;
            merge(&mut merged, value);
            sources.workspace = Some(ws_path.clone());
        }
        let mut config: Config = from_value(&merged, sources.workspace.as_deref())?;
        if let Some(record) = env.connect_record()
            && connected::apply(&mut config, &merged, &root, &record)
        {
            sources.connect = Some(record);
        }
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

    /// The workspace must exist: a typo in `--workspace` must not make a new,
    /// empty workspace with its own MEMORY.md (`memsync init` makes one).
    pub fn require_workspace(&self) -> Result<()> {
        match std::fs::metadata(&self.root) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(ConfigError::NotADirectory {
                path: self.root.clone(),
            }
            .into()),
            Err(_) => Err(ConfigError::NoWorkspace {
                path: self.root.clone(),
                source_name: self.sources.root_from,
                nearby: match self.sources.root_from == DEFAULT_ROOT_FROM {
                    true => nearby_workspaces(),
                    false => String::new(),
                },
            }
            .into()),
        }
    }
}

/// When no workspace was named and the default is missing: the workspaces
/// in the current folder (`memsync init W` then a command run where W was
/// made; one the folder is in would have been chosen), named as the flag
/// that reaches them.
fn nearby_workspaces() -> String {
    let Ok(entries) = std::env::current_dir().and_then(std::fs::read_dir) else {
        return String::new();
    };
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && is_workspace(p))
        .collect();
    found.sort();
    match found.first() {
        None => String::new(),
        Some(ws) => format!(
            "; {} is a workspace: `memsync --workspace {} …` (or export MEMSYNC_WORKSPACE={0})",
            ws.display(),
            ws.display()
        ),
    }
}

/// A folder memsync has made a workspace of: its state, and `memory/` or a
/// MEMORY.md (a vault whose `memory/` a person moved away is still one).
fn is_workspace(d: &Path) -> bool {
    d.join(crate::STATE_DIR).is_dir()
        && (d.join(crate::contract::MEMORY_DIR).is_dir() || d.join("MEMORY.md").is_file())
}

/// The workspace `cwd` is in: it or the nearest folder above it that is one.
fn enclosing_workspace(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|d| is_workspace(d))
        .map(Path::to_path_buf)
}

/// `ConfigSources::root_from` when nothing named the workspace.
pub const DEFAULT_ROOT_FROM: &str = "the default ~/.agents";

/// `--workspace DIR` > `MEMSYNC_WORKSPACE` > the workspace the current folder
/// is in > `SIGNET_WORKSPACE` > `SIGNET_PATH` > config `workspace` > `~/.agents`.
pub fn resolve_root(flag: Option<&Path>, env: &Env, config: &Config) -> Result<PathBuf> {
    resolve_root_from(flag, env, config).map(|(root, _)| root)
}

/// The glob set of a config key's patterns; a bad pattern is a config error
/// naming the key.
pub fn glob_set<'a>(
    key: &str,
    patterns: impl IntoIterator<Item = &'a String>,
) -> Result<globset::GlobSet> {
    let mut b = globset::GlobSetBuilder::new();
    for p in patterns {
        b.add(globset::Glob::new(p).map_err(|e| Error::config("<config>", format!("{key}: {e}")))?);
    }
    b.build()
        .map_err(|e| Error::config("<config>", format!("{key}: {e}")))
}

/// The workspace root when the configuration cannot be loaded (hook mode must
/// still record its job): the flag, the variables, a `workspace:` key if the
/// machine config still reads as YAML, else `~/.agents`.
pub fn fallback_root(
    flag: Option<&Path>,
    config_flag: Option<&Path>,
    env: &Env,
) -> Option<PathBuf> {
    let workspace = env
        .machine_config(config_flag)
        .and_then(|(path, _)| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_yaml::from_str::<Value>(&text).ok())
        .and_then(|v| v.get("workspace")?.as_str().map(PathBuf::from));
    let config = Config {
        workspace,
        ..Config::default()
    };
    resolve_root(flag, env, &config).ok()
}

/// `resolve_root`, and what named the root (for an error that says where to look).
fn resolve_root_from(
    flag: Option<&Path>,
    env: &Env,
    config: &Config,
) -> Result<(PathBuf, &'static str)> {
    let candidates = [
        (flag.map(Path::to_path_buf), "--workspace"),
        (env.memsync_workspace.clone(), "$MEMSYNC_WORKSPACE"),
        (
            env.cwd.as_deref().and_then(enclosing_workspace),
            "the current folder",
        ),
        (env.signet_workspace.clone(), "$SIGNET_WORKSPACE"),
        (env.signet_path.clone(), "$SIGNET_PATH"),
        (
            config.workspace.as_ref().map(|p| expand_home(p, env)),
            "the config's `workspace`",
        ),
        (
            env.home.as_ref().map(|h| h.join(".agents")),
            DEFAULT_ROOT_FROM,
        ),
    ];
    candidates
        .into_iter()
        .find_map(|(path, from)| path.map(|p| (p, from)))
        .ok_or_else(|| {
            ConfigError::Environment {
                var: "HOME",
                needed_for: "no workspace was given and the default ~/.agents needs it",
            }
            .into()
        })
}

fn expand_home(p: &Path, env: &Env) -> PathBuf {
    match (p.strip_prefix("~"), &env.home) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => p.to_path_buf(),
    }
}

fn read_layer(path: &Path, required: bool) -> Result<Option<Value>> {
    // The usual way to say "no config" (`MEMSYNC_CONFIG=/dev/null`): read
    // as empty, never opened.
    if path == Path::new("/dev/null") {
        return Ok(None);
    }
    let text = match crate::files::read_text(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => return Err(Error::config(path, e.to_string())),
    };
    if text.trim().is_empty() {
        return Ok(Some(Value::Mapping(Default::default())));
    }
    if let Some(reason) = crate::contract::yaml_too_deep(&text) {
        return Err(Error::config(path, reason));
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
/// Keys a synced workspace must not set: where the workspace is, the
/// commands `capture` runs (a hostile clone could otherwise run anything),
/// and every path that can reach outside the workspace: the index's file (a
/// clone aiming it at `~/.bashrc` would have memsync write a database there),
/// the harnesses' folders and the mirrors.
const MACHINE_ONLY: &[(&str, Option<&str>)] = &[
    ("workspace", None),
    ("index", Some("path")),
    ("sentence", Some("provider")),
    ("sentence", Some("model")),
    ("sentence", Some("program")),
    ("sentence", Some("base_url")),
    ("sentence", Some("api_key_env")),
    ("sentence", Some("command")),
    ("summary", Some("command")),
    ("harvest", None),
    ("mirrors", None),
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
    numbers::check(config).map_err(|reason| Error::config(path, reason))?;
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
    check_sentence_provider(&config.sentence).map_err(|reason| Error::config(path, reason))?;
    for h in &config.harvest.harnesses {
        if !HARNESSES.contains(&h.as_str()) {
            return Err(Error::config(
                path,
                format!(
                    "harvest.harnesses: {h:?} is not one of {}",
                    HARNESSES.join(", ")
                ),
            ));
        }
    }
    for g in &config.harvest.exclude_projects {
        globset::Glob::new(g)
            .map_err(|e| Error::config(path, format!("harvest.exclude_projects: {e}")))?;
    }
    if !crate::contract::is_valid_agent_id(&config.harvest.agent) {
        return Err(Error::config(
            path,
            "harvest.agent must match ^[a-z0-9][a-z0-9-]*$",
        ));
    }
    if config.capture.max_transcript_bytes < 64 * 1024 {
        return Err(Error::config(
            path,
            "capture.max_transcript_bytes must be at least 65536 (64 KiB)",
        ));
    }
    if config.harvest.interval_seconds == 0 {
        return Err(Error::config(
            path,
            "harvest.interval_seconds must be at least 1",
        ));
    }
    for m in &config.mirrors {
        if !crate::contract::is_valid_agent_id(&m.agent) {
            return Err(Error::config(
                path,
                format!(
                    "mirrors: agent {:?} must match ^[a-z0-9][a-z0-9-]*$",
                    m.agent
                ),
            ));
        }
        if !m.dir.is_absolute() {
            return Err(Error::config(
                path,
                format!("mirrors: dir {} must be an absolute path", m.dir.display()),
            ));
        }
    }
    if !(1..=1000).contains(&config.search.limit) {
        return Err(Error::config(path, "search.limit must be 1 to 1000"));
    }
    if config.memory_md.window_days == 0 {
        return Err(Error::config(
            path,
            "memory_md.window_days must be at least 1",
        ));
    }
    Ok(())
}

/// A provider's settings must be whole before any capture calls it; a key
/// pasted where its variable's name belongs is refused without echoing it.
fn check_sentence_provider(s: &SentenceConfig) -> std::result::Result<(), String> {
    use SentenceProvider::*;
    let Some(provider) = s.provider() else {
        return Ok(());
    };
    let name = provider.name();
    if let Some(var) = &s.api_key_env
        && (var.is_empty()
            || !var
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    {
        return Err(
            "sentence.api_key_env takes the NAME of an environment variable (like OPENAI_API_KEY), \
             never the key itself; put the key in that variable"
                .into(),
        );
    }
    if let Some(url) = &s.base_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(format!(
            "sentence.base_url must start with http:// or https:// (got {url:?})"
        ));
    }
    match provider {
        Command if s.command.is_none() => {
            Err("sentence.provider: command needs sentence.command".into())
        }
        Ollama | OpenaiCompatible | Anthropic if s.model.is_none() => Err(format!(
            "sentence.provider: {name} needs sentence.model (the model's name)"
        )),
        OpenaiCompatible if s.base_url.is_none() => Err(
            "sentence.provider: openai-compatible needs sentence.base_url (like https://api.openai.com/v1)"
                .into(),
        ),
        _ => Ok(()),
    }
}
