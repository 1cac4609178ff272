//! The command line: every argument, subcommand and help text, as clap types.
//!
//! Owns: what a user can type and how each value is parsed. Must not: run
//! anything (that is `dispatch`).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};
use clap_complete::engine::ArgValueCandidates;

/// `--help`, with the commands in groups; `tests/cli.rs` checks that every
/// command is named here.
const HELP_TEMPLATE: &str = "\
{about}

{usage-heading} {usage}

Everyday:
  status       The workspace, its sessions, what MEMORY.md keeps, problems, the daemon
  search       Find past sessions (any language); `open` shows one
  open         One session: its artifacts, state and bodies
  context      What an agent starting in a folder should know, within a token budget
  capture      Add a session (a transcript, a compaction), or run as a harness hook
  harvest      Capture every finished session from the harnesses' own folders
  forget       Remove a session for good (tombstone first; --dry-run to see)

Set up:
  init         Make a folder a memsync workspace
  connect      Wire a harness to this workspace; `disconnect` undoes it
  disconnect   Take out everything `connect` added
  doctor       Per harness: connected, working, and the fix when not
  config       The configuration in force, each key with the file it comes from
  log          What the daemon did: batches, commits, harvests, failures
  service      Install `memsync watch` as a systemd user unit or launchd agent
  git          Set up a git-synced workspace

Maintenance:
  sync         Index what changed and re-render MEMORY.md and the daily logs
  check        Validate every artifact; exit 1 on an error
  watch        The daemon: keep the index and projections current
  reindex      Rebuild the index from markdown
  mcp          Serve memory search, get, recent, store and correct over MCP on stdio
  demo         Write and sync the bundled example workspace

Other: completions, man, help (generate: benchmark workspaces, hidden)

Options:
{options}{after-help}";

#[derive(Parser)]
#[command(
    name = "memsync",
    version = env!("MEMSYNC_LONG_VERSION"),
    about = "Keeps an AI agent's markdown memory workspace honest."
)]
#[command(
    after_help = "Example:\n  memsync demo            # write the example workspace to a temp dir and sync it\n  memsync --workspace ~/.agents sync",
    help_template = HELP_TEMPLATE
)]
pub struct Cli {
    /// The workspace root (else $MEMSYNC_WORKSPACE, the one the current folder is in, $SIGNET_WORKSPACE, $SIGNET_PATH, config, ~/.agents).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// The machine config file (else $MEMSYNC_CONFIG, else $XDG_CONFIG_HOME/memsync/config.yaml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Fix the clock (RFC 3339) for reproducible runs.
    #[arg(long, global = true, value_name = "RFC3339", value_parser = parse_now)]
    pub now: Option<DateTime<Utc>>,
    /// Print reports as JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// More log output (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Print nothing but errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Bold search matches: auto (on a terminal, unless $NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Reconcile once: index what changed and re-render projections.
    #[command(
        after_help = "Beside a running `memsync watch`, the daemon is asked to reconcile what it has\npending (it saw every change as an event); --full scans every file here instead.\n\nExample:\n  memsync --workspace ~/.agents sync"
    )]
    Sync {
        /// Scan and stat every file in this process, even with a daemon watching.
        #[arg(long)]
        full: bool,
    },
    /// Validate every canonical artifact; exit 1 if any error.
    #[command(
        after_help = "Example:\n  memsync check --json | jq '.problems[] | select(.severity == \"error\")'"
    )]
    Check,
    /// Run the daemon: reconcile on file events, git pulls and timers until SIGTERM.
    #[command(after_help = "Example:\n  RUST_LOG=memsync=info memsync --workspace ~/.agents watch")]
    Watch,
    /// Install, remove or inspect `memsync watch` as a systemd user unit or launchd agent.
    #[command(after_help = "Example:\n  memsync --workspace ~/.agents service install --dry-run")]
    Service {
        #[command(subcommand)]
        action: ServiceAction,
    },
    /// Drop the content rows and rebuild them from markdown (telemetry is kept).
    #[command(after_help = "Example:\n  memsync reindex --reset-telemetry")]
    Reindex {
        /// Also clear the runtime telemetry (access counts, sync history).
        #[arg(long)]
        reset_telemetry: bool,
    },
    /// Show the workspace, index, sessions per agent, problems and projections.
    #[command(after_help = "Example:\n  memsync status --json")]
    Status,
    /// Add a session to the workspace: its transcript, summary and manifest (or a
    /// compaction), written in the spec's order, then indexed and projected.
    #[command(
        args_conflicts_with_subcommands = true,
        after_help = "Examples:\n  memsync capture session-end --session-id 5d3c --project ~/code/shop --transcript ~/.claude/projects/-home-ana-shop/5d3c.jsonl\n  memsync capture compaction --session-id 5d3c --body compact.md\n  memsync capture --hook claude-code      # in a Claude Code hook: payload on stdin, exits at once"
    )]
    Capture(CaptureArgs),
    /// Remove a session for good: tombstone first, then its files, index rows and ledger rows.
    #[command(
        after_help = "Example:\n  memsync forget 5d3c0f3e-session-id --reason \"pasted a customer's data\""
    )]
    Forget {
        /// The session: its token, session id or session key; or a note's path (notes/x.md).
        #[arg(add = ArgValueCandidates::new(super::complete::session_tokens))]
        session: String,
        /// Why, recorded in the tombstone (not needed with --dry-run).
        #[arg(long, required_unless_present = "dry_run")]
        reason: Option<String>,
        /// The agent (needed when several agents have a session of that id).
        #[arg(long, add = ArgValueCandidates::new(super::complete::agents))]
        agent: Option<String>,
        /// Say what would be removed; change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Do not ask first (on a terminal, forget asks before removing anything).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Find sessions again: full-text search over bodies and sentences, grouped by session.
    #[command(
        after_help = "Examples:\n  memsync search retry backoff\n  memsync search 'pay*' --agent default --since 7d --kind summary\n  memsync search '\"exact phrase\" OR other' --json"
    )]
    Search {
        /// A question or words in any language (any may match, best first), or FTS5 syntax (quotes, OR, NOT, NEAR, prefix*).
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Only this agent's sessions (default: every agent).
        #[arg(long, add = ArgValueCandidates::new(super::complete::agents))]
        agent: Option<String>,
        /// A project path, its last segment, or a glob.
        #[arg(long)]
        project: Option<String>,
        /// summary, transcript, compaction or manifest.
        #[arg(long, value_parser = parse_kind())]
        kind: Option<crate::contract::ArtifactKind>,
        /// Only sessions since then: 7d, 24h, 2w, a date or an RFC 3339 time.
        #[arg(long)]
        since: Option<String>,
        /// Else `search.limit` (10); 1 to 1000.
        #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
        limit: Option<usize>,
        /// Also search sessions marked private.
        #[arg(long)]
        include_private: bool,
        /// Also list notes a newer note corrected (or whose harness deleted them): the history.
        #[arg(long)]
        include_superseded: bool,
    },
    /// What an agent starting in a folder should know: that project's recent sessions first, within a token budget.
    #[command(
        after_help = "Examples:\n  memsync context                       # for the current folder's project\n  memsync context --cwd ~/code/shop --budget 800 --json"
    )]
    Context {
        /// The working directory whose project comes first (default: the current one).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// The agent whose sessions are read.
        #[arg(long, default_value = "default", add = ArgValueCandidates::new(super::complete::agents))]
        agent: String,
        /// Most tokens the digest may cost, roughly (4 characters a token); 100 to 100000.
        #[arg(long, value_name = "TOKENS", default_value_t = crate::context::DEFAULT_BUDGET_TOKENS,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(100..=100_000))]
        budget: usize,
        /// Also sessions with a request from someone other than you (a chat group member).
        #[arg(long)]
        include_untrusted: bool,
    },
    /// Show one session: its artifacts, paths, wikilinks and validation state.
    #[command(
        after_help = "Examples:\n  memsync open 5d3c0f3e-session-id\n  memsync open ztmhonk77zydhh6n --print transcript | less"
    )]
    Open {
        /// A token, session id or session key.
        #[arg(add = ArgValueCandidates::new(super::complete::session_tokens))]
        session: String,
        /// The agent (needed when several agents have a session of that id).
        #[arg(long, add = ArgValueCandidates::new(super::complete::agents))]
        agent: Option<String>,
        /// Print one artifact's body instead of the overview.
        #[arg(long, value_parser = parse_kind())]
        print: Option<crate::contract::ArtifactKind>,
    },
    /// Print a shell completion script; it asks `memsync` (on PATH) for the values at each TAB:
    /// commands, flags, harness names, kinds, agents and the index's session tokens.
    #[command(
        after_help = "Examples:\n  echo 'source <(memsync completions bash)' >> ~/.bashrc\n  echo 'source <(memsync completions zsh)' >> ~/.zshrc      # after compinit\n  memsync completions fish > ~/.config/fish/completions/memsync.fish"
    )]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Write man pages (memsync.1 and one per command) into DIR, or print memsync.1.
    #[command(after_help = "Example:\n  memsync man --out ~/.local/share/man/man1 && man memsync")]
    Man {
        /// The folder for the pages (created if needed); else memsync.1 goes to stdout.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Set up a git workspace: ignore rules, the projection merge driver, projection commits.
    #[command(
        after_help = "Examples:\n  memsync --workspace ~/.agents git setup --dry-run\n  memsync --workspace ~/.agents git setup"
    )]
    Git {
        #[command(subcommand)]
        action: GitAction,
    },
    /// Make DIR (default: the workspace in force) a memsync workspace: create it
    /// and its memory/ folder if needed, then sync (MEMORY.md appears).
    #[command(
        after_help = "Examples:\n  memsync init ~/.agents\n  memsync --workspace ~/notes/agent-memory init"
    )]
    Init {
        /// The folder to make a workspace (default: the workspace in force, ~/.agents).
        dir: Option<PathBuf>,
    },
    /// Capture every finished session from the harnesses' own folders (Claude
    /// Code, Codex, OpenClaw, pi): idle ones, once each, growth as continuations.
    #[command(
        after_help = "Examples:\n  memsync harvest --dry-run\n  memsync harvest --harness codex --since 7d\n  memsync harvest --json | jq '.failed'"
    )]
    Harvest {
        /// Only this harness (repeatable): claude-code, codex, openclaw, pi.
        #[arg(long = "harness", value_name = "HARNESS", value_parser = parse_harness())]
        harnesses: Vec<crate::harness::Harness>,
        /// Look no further back: 7d, 24h, 2w, a date or an RFC 3339 time (else harvest.max_age_days).
        #[arg(long)]
        since: Option<String>,
        /// Say what would be captured; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Ask the sentence provider (sentence.provider) for sessions of any age;
        /// without it only sessions that ended in the last hour cost a model call.
        #[arg(long)]
        sentences: bool,
        /// Take sessions that still look live (written to in the last
        /// harvest.idle_minutes) too: for sessions you know have ended.
        #[arg(long)]
        no_wait: bool,
    },
    /// Wire a harness to this workspace: its end-of-session hook or harvest, the
    /// MCP server, and MEMORY.md where the agent reads its instructions.
    #[command(after_help = CONNECT_HELP)]
    Connect {
        /// claude-code, codex, openclaw, gemini-cli, qwen-code, opencode, copilot-cli, cline or pi (the table below).
        #[arg(value_parser = parse_target())]
        harness: crate::harness::Harness,
        /// Say which files would change, and how; write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Replace an MCP server entry named `memsync` that memsync did not write.
        #[arg(long)]
        force: bool,
        /// Claude Code: also import the whole MEMORY.md into ~/.claude/CLAUDE.md
        /// (every project's ledger in every session; off by default).
        #[arg(long)]
        import_memory_md: bool,
        /// Do not write the workspace's copy of this harness's own memory
        /// (imported by `harvest` on another machine) into its folder here.
        #[arg(long)]
        no_restore: bool,
        /// claude-code, codex, gemini-cli: this harness's print mode (your login,
        /// your model) writes each session's memory sentence; `disconnect` stops it.
        #[arg(long)]
        sentences: bool,
        /// Codex, OpenClaw: let the agent write notes (memory_store, memory_correct)
        /// without asking you each time; by default Codex asks and OpenClaw gets none.
        #[arg(long)]
        memory_writes: bool,
    },
    /// Take out everything `connect` added to a harness's files (exactly, when
    /// nobody edited them since).
    #[command(after_help = "Example:\n  memsync disconnect claude-code --dry-run")]
    Disconnect {
        /// claude-code, codex, openclaw, gemini-cli, qwen-code, opencode, copilot-cli, cline or pi.
        #[arg(value_parser = parse_target())]
        harness: crate::harness::Harness,
        /// Say which files would change, and how; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// One screen per harness on this machine: what is connected, whether it
    /// works, and what to run to fix it. Exit 1 when something is broken.
    #[command(after_help = "Example:\n  memsync doctor --json")]
    Doctor,
    /// The configuration in force, key by key, with where each value comes
    /// from: the workspace's memsync.yaml, the machine config, connect's
    /// record, or the default.
    #[command(
        after_help = "Examples:\n  memsync config\n  memsync config --json | jq '.[] | select(.from != \"default\")'"
    )]
    Config,
    /// What the daemon did: each batch that changed something, each commit,
    /// each harvest that captured, each failure (newest last).
    #[command(after_help = "Examples:\n  memsync log\n  memsync log -n 100 --json")]
    Log {
        /// How many entries, newest last.
        #[arg(long, short = 'n', default_value_t = 20)]
        lines: usize,
    },
    /// Serve the memory to an agent over MCP on stdio: memory_search,
    /// memory_get and memory_recent (read-only), memory_store and
    /// memory_correct (each writes a new note).
    #[command(
        after_help = "Examples:\n  claude mcp add memsync -- memsync mcp\n  memsync --workspace ~/.agents mcp --no-sync"
    )]
    Mcp {
        /// Skip the index sync at start (answer from the index as it is).
        #[arg(long)]
        no_sync: bool,
        /// Leave out the tools that write notes (memory_store, memory_correct):
        /// for a harness that would run them without asking (connect openclaw).
        #[arg(long)]
        read_only: bool,
    },
    /// Write the bundled example workspace into DIR (default: a new temp dir) and sync it.
    #[command(after_help = "Example:\n  memsync demo /tmp/memsync-demo")]
    Demo {
        /// Where to write it (default: a new temp dir).
        dir: Option<PathBuf>,
    },
    #[command(hide = true)]
    /// Generate a synthetic workspace for benchmarks (~1,750 sessions by default).
    #[command(
        after_help = "Example:\n  memsync generate /tmp/big && memsync --workspace /tmp/big sync"
    )]
    Generate {
        dir: PathBuf,
        /// Days of recent sessions, 1 to 3650.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(i64).range(1..=3650))]
        days: i64,
        /// Sessions per recent day, 0 to 10000.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i64).range(0..=10_000))]
        per_day: i64,
        /// Sessions older than the window, 0 to 1000000.
        #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(i64).range(0..=1_000_000))]
        older: i64,
        /// Also write the recall benchmark's story sessions, and their
        /// questions with the session that answers each to this JSON Lines file.
        #[arg(long, value_name = "FILE")]
        questions: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
pub struct CaptureArgs {
    /// Hook mode: read one hook payload (JSON) from stdin, queue the capture as a
    /// job, and exit 0 at once. Supported: claude-code, gemini-cli, qwen-code, copilot-cli.
    #[arg(long, value_name = "HARNESS")]
    pub hook: Option<String>,
    /// The agent the session belongs to (a path segment: ^[a-z0-9][a-z0-9-]*$).
    #[arg(long, global = true, default_value = "default", add = ArgValueCandidates::new(super::complete::agents))]
    pub agent: String,
    #[command(subcommand)]
    pub action: Option<CaptureAction>,
}

#[derive(Subcommand)]
pub enum CaptureAction {
    /// Capture a finished session from its transcript.
    #[command(
        after_help = "Example:\n  memsync capture session-end --session-id 5d3c --transcript session.jsonl --summary summary.md"
    )]
    SessionEnd {
        /// Else taken from the transcript (Claude Code, Codex, OpenClaw).
        #[arg(long)]
        session_id: Option<String>,
        /// The harness's key for the conversation (OpenClaw's `agent:main:main`), if any.
        #[arg(long)]
        session_key: Option<String>,
        /// Else the transcript's working directory.
        #[arg(long)]
        project: Option<String>,
        /// Else detected from the transcript's format, else `manual`.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(
            crate::harness::NAMES.into_iter().chain(crate::harness::CAPTURE_ONLY_NAMES),
        ))]
        harness: Option<String>,
        /// When the session started; else taken from the transcript.
        #[arg(long, value_name = "RFC3339", value_parser = parse_now)]
        started_at: Option<DateTime<Utc>>,
        /// When it ended; else taken from the transcript.
        #[arg(long, value_name = "RFC3339", value_parser = parse_now)]
        ended_at: Option<DateTime<Utc>>,
        /// Plain text, markdown, or JSONL as the harness wrote it (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        transcript: PathBuf,
        /// The summary body; else `summary.command`, else an extractive summary.
        #[arg(long, value_name = "FILE")]
        summary: Option<PathBuf>,
        /// Mark the session private: indexed, never projected.
        #[arg(long)]
        private: bool,
        /// Else `session-end:<token>`: a retried call is recognised by it.
        #[arg(long)]
        idempotency_key: Option<String>,
    },
    /// Capture a compaction of a session that already has a manifest.
    #[command(
        after_help = "Example:\n  memsync capture compaction --session-id 5d3c --body compact.md"
    )]
    Compaction {
        /// The session it compacts (captured before, with its manifest).
        #[arg(long)]
        session_id: String,
        /// The harness's key for the conversation, if any.
        #[arg(long)]
        session_key: Option<String>,
        /// The compaction narrative (`-` for stdin).
        #[arg(long, value_name = "FILE")]
        body: PathBuf,
        /// Else `compaction:<token>`.
        #[arg(long)]
        idempotency_key: Option<String>,
    },
    /// Run the queued hook jobs now (what the detached worker runs).
    #[command(after_help = "Example:\n  memsync capture jobs && memsync status")]
    Jobs,
}

#[derive(Subcommand)]
pub enum GitAction {
    /// Add the managed blocks to .gitignore and .gitattributes and register the merge driver (idempotent).
    #[command(after_help = "Example:\n  memsync git setup --dry-run")]
    Setup {
        /// Show what would change; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The merge driver git runs for projection files (registered by `git setup`).
    #[command(
        after_help = "Example (what git runs):\n  memsync --workspace ~/.agents git merge-driver %O %A %B %P"
    )]
    MergeDriver {
        /// The common ancestor's version (git's %O).
        base: PathBuf,
        /// This side's version, where the result is written (git's %A).
        ours: PathBuf,
        /// The other side's version (git's %B).
        theirs: PathBuf,
        /// The file's path in the repository.
        path: String,
    },
}

#[derive(Subcommand)]
pub enum ServiceAction {
    /// Write the unit for this workspace and enable it.
    #[command(after_help = "Example:\n  memsync service install")]
    Install {
        /// Print the file and the commands; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Stop, disable and remove the unit.
    #[command(after_help = "Example:\n  memsync service uninstall")]
    Uninstall {
        /// Print the commands; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Whether the unit is installed, and what the service manager says.
    #[command(after_help = "Example:\n  memsync service status")]
    Status,
}

/// A parser for one of `names`: clap knows the values, so `--help` lists
/// them, a typo gets "did you mean", and completion scripts offer them.
fn one_of<T: Clone + Send + Sync + 'static>(
    names: &'static [&'static str],
    parse: fn(&str) -> Option<T>,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).try_map(move |s: String| {
        parse(&s).ok_or_else(|| format!("{s:?} is not one of {}", names.join(", ")))
    })
}

pub fn parse_harness() -> impl clap::builder::TypedValueParser<Value = crate::harness::Harness> {
    one_of(&crate::config::HARNESSES, crate::harness::Harness::parse)
}

/// What `connect` does for each harness, and where it cannot.
const CONNECT_HELP: &str = "What connect does, per harness:
  claude-code  SessionEnd, PostCompact, SessionStart and UserPromptSubmit hooks, the MCP server
               (read-only tools allowed) in ~/.claude.json and settings.json
  codex        harvest by `memsync watch` (Codex runs only hooks you reviewed), the MCP server
               (read-only tools approved, memory_store and memory_correct asking) in
               config.toml, an AGENTS.md block naming MEMORY.md
  openclaw     harvest of its session database, MEMORY.md and daily logs mirrored into its
               workspace, the read-only MCP server in openclaw.json
  gemini-cli   SessionEnd, PreCompress, SessionStart and BeforeAgent hooks and the MCP server
               in ~/.gemini/settings.json, a GEMINI.md block naming MEMORY.md
  qwen-code    SessionEnd, PostCompact, SessionStart and UserPromptSubmit hooks and the MCP
               server in ~/.qwen/settings.json, a QWEN.md block naming MEMORY.md, harvest of
               `qwen -p` runs by `memsync watch`
  opencode     harvest of opencode.db by `memsync watch` (its hooks are JavaScript plugins), the
               MCP server in ~/.config/opencode/opencode.json, an AGENTS.md block naming MEMORY.md
  copilot-cli  sessionEnd, sessionStart and userPromptSubmitted hooks in ~/.copilot/settings.json,
               the MCP server in ~/.copilot/mcp-config.json, a copilot-instructions.md block
  cline        harvest of ~/.cline/data/sessions by `memsync watch` (its hooks fire before a
               session is written whole), the MCP server in cline_mcp_settings.json, a rules file
               in ~/Documents/Cline/Rules naming MEMORY.md
  pi           harvest of ~/.pi/agent/sessions, an AGENTS.md block there naming MEMORY.md
--sentences: that harness writes the memory sentences; --memory-writes: no asking before notes.

Examples:
  memsync connect claude-code --dry-run
  memsync connect codex
  memsync connect gemini-cli
  memsync connect openclaw --json";

pub fn parse_target() -> impl clap::builder::TypedValueParser<Value = crate::harness::Harness> {
    one_of(
        &crate::harness::CONNECT_NAMES,
        crate::harness::Harness::parse,
    )
}

pub fn parse_kind() -> impl clap::builder::TypedValueParser<Value = crate::contract::ArtifactKind> {
    one_of(
        &["summary", "transcript", "compaction", "manifest"],
        crate::contract::ArtifactKind::parse,
    )
}

pub fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    use chrono::Datelike;
    let ts = crate::contract::parse_ts(s)
        .ok_or_else(|| format!("{s:?} is not an RFC 3339 timestamp with a zone"))?;
    // Windows and retention reach years back and ahead; keep their arithmetic in range.
    if !(1970..=9999).contains(&ts.year()) {
        return Err(format!("{s:?} is outside the years 1970 to 9999"));
    }
    Ok(ts)
}

/// When terminal styling is used, as in ripgrep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to style output bound for stdout: `auto` means a terminal
    /// and no `NO_COLOR` (any non-empty value, per no-color.org).
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}
