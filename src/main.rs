//! The `memsync` binary: parses arguments and calls the library. Nothing else.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};
use memsync::config::{Env, Settings};
use memsync::{ExitStatus, commands};

#[derive(Parser)]
#[command(
    name = "memsync",
    version,
    about = "Keeps an AI agent's markdown memory workspace honest."
)]
#[command(
    after_help = "Example:\n  memsync demo            # write the example workspace to a temp dir and sync it\n  memsync --workspace ~/.agents sync"
)]
struct Cli {
    /// The workspace root (else $MEMSYNC_WORKSPACE, $SIGNET_WORKSPACE, $SIGNET_PATH, config, ~/.agents).
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// The machine config file (else $MEMSYNC_CONFIG, else $XDG_CONFIG_HOME/memsync/config.yaml).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Fix the clock (RFC 3339) for reproducible runs.
    #[arg(long, global = true, value_name = "RFC3339", value_parser = parse_now)]
    now: Option<DateTime<Utc>>,
    /// Print reports as JSON.
    #[arg(long, global = true)]
    json: bool,
    /// More log output (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Print nothing but errors.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Reconcile once: index what changed and re-render projections.
    #[command(after_help = "Example:\n  memsync --workspace ~/.agents sync")]
    Sync,
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
        /// The session: its token, session id or session key.
        session: String,
        /// Why, recorded in the tombstone.
        #[arg(long)]
        reason: String,
        /// The agent (needed when several agents have a session of that id).
        #[arg(long)]
        agent: Option<String>,
    },
    /// Find sessions again: full-text search over bodies and sentences, grouped by session.
    #[command(
        after_help = "Examples:\n  memsync search retry backoff\n  memsync search 'pay*' --agent default --since 7d --kind summary\n  memsync search '\"exact phrase\" OR other' --json"
    )]
    Search {
        /// Words (all must match), or an FTS5 query (quotes, OR, NOT, NEAR, prefix*).
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[arg(long)]
        agent: Option<String>,
        /// A project path, its last segment, or a glob.
        #[arg(long)]
        project: Option<String>,
        /// summary, transcript, compaction or manifest.
        #[arg(long, value_parser = parse_kind)]
        kind: Option<memsync::contract::ArtifactKind>,
        /// Only sessions since then: 7d, 24h, 2w, a date or an RFC 3339 time.
        #[arg(long)]
        since: Option<String>,
        /// Else `search.limit` (10).
        #[arg(long)]
        limit: Option<usize>,
        /// Also search sessions marked private.
        #[arg(long)]
        include_private: bool,
    },
    /// Show one session: its artifacts, paths, wikilinks and validation state.
    #[command(
        after_help = "Examples:\n  memsync open 5d3c0f3e-session-id\n  memsync open ztmhonk77zydhh6n --print transcript | less"
    )]
    Open {
        /// A token, session id or session key.
        session: String,
        #[arg(long)]
        agent: Option<String>,
        /// Print one artifact's body instead of the overview.
        #[arg(long, value_parser = parse_kind)]
        print: Option<memsync::contract::ArtifactKind>,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  memsync completions bash > ~/.local/share/bash-completion/completions/memsync\n  memsync completions zsh > ~/.zfunc/_memsync\n  memsync completions fish > ~/.config/fish/completions/memsync.fish"
    )]
    Completions { shell: clap_complete::Shell },
    /// Write man pages (memsync.1 and one per command) into DIR, or print memsync.1.
    #[command(after_help = "Example:\n  memsync man --out ~/.local/share/man/man1 && man memsync")]
    Man {
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
    /// Write the bundled example workspace into DIR (default: a new temp dir) and sync it.
    #[command(after_help = "Example:\n  memsync demo /tmp/memsync-demo")]
    Demo { dir: Option<PathBuf> },
    /// Generate a synthetic workspace for benchmarks (~1,750 sessions by default).
    #[command(
        after_help = "Example:\n  memsync generate /tmp/big && memsync --workspace /tmp/big sync"
    )]
    Generate {
        dir: PathBuf,
        #[arg(long, default_value_t = 30)]
        days: i64,
        #[arg(long, default_value_t = 50)]
        per_day: i64,
        #[arg(long, default_value_t = 250)]
        older: i64,
    },
}

#[derive(clap::Args)]
struct CaptureArgs {
    /// Hook mode: read one hook payload (JSON) from stdin, queue the capture as a
    /// job, and exit 0 at once. Supported: claude-code.
    #[arg(long, value_name = "HARNESS")]
    hook: Option<String>,
    /// The agent the session belongs to (a path segment: ^[a-z0-9][a-z0-9-]*$).
    #[arg(long, global = true, default_value = "default")]
    agent: String,
    #[command(subcommand)]
    action: Option<CaptureAction>,
}

#[derive(Subcommand)]
enum CaptureAction {
    /// Capture a finished session from its transcript.
    #[command(
        after_help = "Example:\n  memsync capture session-end --session-id 5d3c --transcript session.jsonl --summary summary.md"
    )]
    SessionEnd {
        /// Else taken from the transcript (Claude Code, Codex, OpenClaw).
        #[arg(long)]
        session_id: Option<String>,
        #[arg(long)]
        session_key: Option<String>,
        /// Else the transcript's working directory.
        #[arg(long)]
        project: Option<String>,
        /// Else detected from the transcript's format, else `manual`.
        #[arg(long)]
        harness: Option<String>,
        #[arg(long, value_name = "RFC3339", value_parser = parse_now)]
        started_at: Option<DateTime<Utc>>,
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
        #[arg(long)]
        session_id: String,
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
enum GitAction {
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
        base: PathBuf,
        ours: PathBuf,
        theirs: PathBuf,
        /// The file's path in the repository.
        path: String,
    },
}

#[derive(Subcommand)]
enum ServiceAction {
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
        #[arg(long)]
        dry_run: bool,
    },
    /// Whether the unit is installed, and what the service manager says.
    #[command(after_help = "Example:\n  memsync service status")]
    Status,
}

fn parse_kind(s: &str) -> Result<memsync::contract::ArtifactKind, String> {
    memsync::contract::ArtifactKind::parse(s)
        .ok_or_else(|| format!("{s:?} is not summary, transcript, compaction or manifest"))
}

fn parse_now(s: &str) -> Result<DateTime<Utc>, String> {
    memsync::contract::parse_ts(s)
        .ok_or_else(|| format!("{s:?} is not an RFC 3339 timestamp with a zone"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose, cli.quiet);
    match run(&cli) {
        Ok(status) => ExitCode::from(status as u8),
        Err(e) => {
            // Library errors already show their source; print each cause once.
            let mut message = e.to_string();
            for cause in e.chain().skip(1).map(ToString::to_string) {
                if !message.contains(&cause) {
                    message = format!("{message}: {cause}");
                }
            }
            eprintln!("memsync: {message}");
            let status = e
                .downcast_ref::<memsync::Error>()
                .map(memsync::Error::exit_status)
                .unwrap_or(ExitStatus::Runtime);
            ExitCode::from(status as u8)
        }
    }
}

fn init_logging(verbose: u8, quiet: bool) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("memsync={level}")));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn run(cli: &Cli) -> anyhow::Result<ExitStatus> {
    let now = cli.now.unwrap_or_else(Utc::now);
    let env = Env::from_process();
    let load = |ws: Option<&Path>| {
        Settings::load(ws, cli.config.as_deref(), &env).map(|settings| Settings {
            fixed_clock: cli.now.is_some(),
            ..settings
        })
    };
    let print = |json: serde_json::Value, text: String| {
        if cli.json {
            println!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
        } else if !cli.quiet {
            print!("{text}");
        }
    };
    // Drawn only on a terminal, outside CI, for long reads.
    let bar = commands::TerminalProgress::for_stderr(cli.quiet || cli.json);
    let progress = bar.as_ref().map(|p| p as &dyn memsync::pipeline::Progress);
    match &cli.command {
        Command::Sync => {
            let (report, problems) =
                commands::sync(&load(cli.workspace.as_deref())?, now, progress)?;
            let status = commands::sync_exit_status(&problems);
            print(
                serde_json::json!({ "report": report, "problems": problems }),
                commands::render_sync(&report, &problems),
            );
            Ok(status)
        }
        Command::Watch => {
            if cli.now.is_some() {
                anyhow::bail!(memsync::Error::Usage(
                    "watch runs on the real clock; --now is for one-shot commands".into()
                ));
            }
            memsync::watch::run(|| load(cli.workspace.as_deref()))?;
            Ok(ExitStatus::Ok)
        }
        Command::Service { action } => {
            use memsync::service::{self, Action, Places};
            let (action, dry_run) = match action {
                ServiceAction::Install { dry_run } => (Action::Install, *dry_run),
                ServiceAction::Uninstall { dry_run } => (Action::Uninstall, *dry_run),
                ServiceAction::Status => (Action::Status, false),
            };
            let places = Places::resolve(&load(cli.workspace.as_deref())?, &env)?;
            let plan = service::plan(action, service::this_platform(), &places);
            let text = if dry_run {
                service::describe(action, &plan)
            } else {
                service::apply(action, &plan)?
            };
            print(
                serde_json::json!({ "file": plan.file, "output": text }),
                text,
            );
            Ok(ExitStatus::Ok)
        }
        Command::Check => {
            let report = commands::check(&load(cli.workspace.as_deref())?, now, progress)?;
            print(
                serde_json::to_value(&report)?,
                commands::render_check(&report),
            );
            Ok(report.exit_status())
        }
        Command::Reindex { reset_telemetry } => {
            let settings = load(cli.workspace.as_deref())?;
            let report = commands::reindex(&settings, now, *reset_telemetry, progress)?;
            let problems = memsync::index::Index::open(&settings.index_path())?.problems()?;
            print(
                serde_json::to_value(&report)?,
                commands::render_sync(&report, &problems),
            );
            Ok(ExitStatus::Ok)
        }
        Command::Status => {
            let status = commands::status(&load(cli.workspace.as_deref())?, now)?;
            print(
                serde_json::to_value(&status)?,
                commands::render_status(&status),
            );
            Ok(ExitStatus::Ok)
        }
        Command::Capture(args) => {
            if let Some(harness) = &args.hook {
                // Hook mode never fails the harness and never writes to stdout.
                let outcome = load(cli.workspace.as_deref()).and_then(|settings| {
                    commands::hook(
                        &settings,
                        now,
                        harness,
                        &args.agent,
                        cli.config.as_deref(),
                        &env,
                    )
                });
                match outcome {
                    Ok(line) => tracing::info!("{line}"),
                    Err(e) => eprintln!("memsync capture --hook: {e}"),
                }
                return Ok(ExitStatus::Ok);
            }
            let settings = load(cli.workspace.as_deref())?;
            let Some(action) = &args.action else {
                anyhow::bail!(memsync::Error::Usage(
                    "capture needs session-end, compaction, jobs, or --hook HARNESS".into()
                ));
            };
            match action {
                CaptureAction::Jobs => {
                    let report = memsync::jobs::run_worker(&settings)?;
                    print(
                        serde_json::to_value(&report)?,
                        commands::render_worker(&report),
                    );
                    return Ok(ExitStatus::Ok);
                }
                CaptureAction::SessionEnd {
                    session_id,
                    session_key,
                    project,
                    harness,
                    started_at,
                    ended_at,
                    transcript,
                    summary,
                    private,
                    idempotency_key,
                } => {
                    let req = memsync::capture::SessionEnd {
                        agent_id: args.agent.clone(),
                        session_id: session_id.clone(),
                        session_key: session_key.clone(),
                        project: project.clone(),
                        harness: harness.clone(),
                        started_at: *started_at,
                        ended_at: *ended_at,
                        transcript: transcript.clone(),
                        summary: summary.clone(),
                        private: *private,
                        idempotency_key: idempotency_key.clone(),
                        ..Default::default()
                    };
                    let report = memsync::capture::session_end(&settings, now, &req)?;
                    print(
                        serde_json::to_value(&report)?,
                        commands::render_capture(&report),
                    );
                }
                CaptureAction::Compaction {
                    session_id,
                    session_key,
                    body,
                    idempotency_key,
                } => {
                    let req = memsync::capture::Compaction {
                        agent_id: args.agent.clone(),
                        session_id: session_id.clone(),
                        session_key: session_key.clone(),
                        body: memsync::capture::read_input(body)?,
                        idempotency_key: idempotency_key.clone(),
                        ..Default::default()
                    };
                    let report = memsync::capture::compaction(&settings, now, &req)?;
                    print(
                        serde_json::to_value(&report)?,
                        commands::render_capture(&report),
                    );
                }
            }
            Ok(ExitStatus::Ok)
        }
        Command::Forget {
            session,
            reason,
            agent,
        } => {
            let settings = load(cli.workspace.as_deref())?;
            let report =
                memsync::forget::forget(&settings, now, session, reason, agent.as_deref())?;
            print(
                serde_json::to_value(&report)?,
                commands::render_forget(&report),
            );
            Ok(ExitStatus::Ok)
        }
        Command::Search {
            query,
            agent,
            project,
            kind,
            since,
            limit,
            include_private,
        } => {
            let settings = load(cli.workspace.as_deref())?;
            let q = memsync::search::Query {
                text: query.join(" "),
                agent: agent.clone(),
                project: project.clone(),
                kind: *kind,
                since: since
                    .as_deref()
                    .map(|s| memsync::search::parse_since(s, now))
                    .transpose()?,
                limit: limit.unwrap_or(settings.config.search.limit),
                include_private: *include_private,
            };
            let hits = commands::search(&settings, &q, now)?;
            let color = std::io::stdout().is_terminal();
            print(
                serde_json::to_value(&hits)?,
                commands::render_search(&hits, color),
            );
            Ok(ExitStatus::Ok)
        }
        Command::Open {
            session,
            agent,
            print: body,
        } => {
            let settings = load(cli.workspace.as_deref())?;
            let view = commands::open(&settings, session, agent.as_deref(), now)?;
            if let Some(kind) = body {
                print!("{}", memsync::session::body(&settings, &view, *kind)?);
                return Ok(ExitStatus::Ok);
            }
            print(serde_json::to_value(&view)?, commands::render_open(&view));
            Ok(ExitStatus::Ok)
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut cmd = Cli::command();
            clap_complete::generate(*shell, &mut cmd, "memsync", &mut std::io::stdout());
            Ok(ExitStatus::Ok)
        }
        Command::Man { out } => {
            use clap::CommandFactory;
            let cmd = Cli::command();
            match out {
                Some(dir) => {
                    std::fs::create_dir_all(dir)?;
                    clap_mangen::generate_to(cmd, dir)?;
                    if !cli.quiet {
                        println!("wrote man pages to {}", dir.display());
                    }
                }
                None => clap_mangen::Man::new(cmd).render(&mut std::io::stdout())?,
            }
            Ok(ExitStatus::Ok)
        }
        Command::Git { action } => match action {
            GitAction::Setup { dry_run } => {
                let settings = load(cli.workspace.as_deref())?;
                let exe = std::env::current_exe()?;
                let report = memsync::git::setup(&settings, &exe, *dry_run)?;
                print(
                    serde_json::to_value(&report)?,
                    commands::render_git_setup(&report),
                );
                Ok(ExitStatus::Ok)
            }
            GitAction::MergeDriver {
                base,
                ours,
                theirs,
                path,
            } => {
                // A failure leaves `ours` untouched and exits 1: git then marks a conflict.
                let outcome = memsync::git::merge_driver(base, ours, theirs, path)?;
                if let Ok(settings) = load(cli.workspace.as_deref()) {
                    let at = memsync::contract::format_ts(now);
                    memsync::git::log_union(&settings.state_dir(), &outcome, &at);
                }
                Ok(ExitStatus::Ok)
            }
        },
        Command::Demo { dir } => {
            let (settings, report, problems) =
                commands::demo(dir.as_deref(), now, |d| load(Some(d)))?;
            print(
                serde_json::json!({ "workspace": settings.root, "report": report, "problems": problems }),
                commands::render_demo(&settings, &report, &problems),
            );
            Ok(ExitStatus::Ok)
        }
        Command::Generate {
            dir,
            days,
            per_day,
            older,
        } => {
            let settings = load(Some(dir))?;
            let shape = memsync::generate::Shape {
                days: *days,
                per_day: *per_day,
                older: *older,
                ..Default::default()
            };
            let g = memsync::generate::generate(dir, now, shape, &settings.config)?;
            print(
                serde_json::json!({ "sessions": g.sessions, "files": g.files, "bytes": g.bytes }),
                format!(
                    "generated {} sessions, {} files, {} bytes in {}\n",
                    g.sessions,
                    g.files,
                    g.bytes,
                    dir.display()
                ),
            );
            Ok(ExitStatus::Ok)
        }
    }
}
