//! Dispatch: turns parsed arguments into library calls and prints their
//! reports as text or JSON.
//!
//! Owns: which call each command makes, and stdout. Must not: hold logic a
//! command needs (that is in the entry points and `commands`).

use std::path::Path;

use chrono::Utc;
use serde_json::json;

use super::args::{CaptureAction, Cli, Command, GitAction};
use super::render;
use super::terminal::json;
use crate::config::{Env, Settings};
use crate::error::{Error, ExitStatus, Result, STDOUT};

/// Writes to stdout. A reader that went away (`memsync search x | head -1`)
/// is `Error::Io` on `<stdout>` with `BrokenPipe`, which the binary turns
/// into a quiet exit instead of the panic `println!` would give.
fn write_stdout(bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Error::io(STDOUT, e))
}

/// A sync-like report: JSON with every problem (streamed), or the text `text` makes.
fn print_sync(
    cli: &Cli,
    fields: serde_json::Value,
    index: &crate::store::Index,
    text: impl FnOnce() -> Result<String>,
) -> Result<()> {
    if cli.json {
        super::listing::write_json_with_problems(index, fields)
    } else if cli.quiet {
        Ok(())
    } else {
        write_stdout(text()?.as_bytes())
    }
}

/// Runs the command `cli` names and says how the process should exit. The
/// index is derived: a command that finds it damaged sets it aside, says so
/// once, and runs again on an index rebuilt from markdown.
pub fn run(cli: &Cli) -> Result<ExitStatus> {
    // Capture and harvest read session files of any size in one go; kept
    // compact, the heap stays near what they hold (the README's 64 MiB).
    if matches!(cli.command, Command::Capture(_) | Command::Harvest { .. }) {
        crate::pipeline::keep_heap_compact();
    }
    match run_command(cli) {
        Err(Error::Store(crate::error::StoreError::Sqlite { path, source }))
            if crate::store::is_corrupt(&source) && crate::store::set_aside_if_damaged(&path)? =>
        {
            // Setting it aside logged the one line that says so.
            run_command(cli)
        }
        done => done,
    }
}

fn run_command(cli: &Cli) -> Result<ExitStatus> {
    let now = cli.now.unwrap_or_else(Utc::now);
    let env = Env::from_process();
    let load = |ws: Option<&Path>| {
        Settings::load(ws, cli.config.as_deref(), &env).map(|settings| Settings {
            fixed_clock: cli.now.is_some(),
            ..settings
        })
    };
    // Every command but init, demo and generate works on a workspace that exists.
    let existing = || {
        let settings = load(cli.workspace.as_deref())?;
        settings.require_workspace()?;
        Ok::<_, Error>(settings)
    };
    let print = |mut json: serde_json::Value, text: String| -> Result<()> {
        if cli.json {
            crate::search::for_machines(&mut json);
            let mut out = serde_json::to_string_pretty(&json).unwrap_or_default();
            out.push('\n');
            write_stdout(out.as_bytes())
        } else if !cli.quiet {
            write_stdout(text.as_bytes())
        } else {
            Ok(())
        }
    };
    // Drawn only on a terminal, outside CI, for long reads.
    let bar = super::progress::TerminalProgress::for_stderr(cli.quiet || cli.json);
    let progress = bar.as_ref().map(|p| p as &dyn crate::pipeline::Progress);
    match &cli.command {
        Command::Sync { full } => {
            let settings = existing()?;
            let (report, index) = super::commands::sync(&settings, now, *full, progress)?;
            // Said when MEMORY.md was rendered: a no-op sync stays a stat a file.
            let left_out = match report.projections_written.is_empty() {
                true => Default::default(),
                false => super::commands::clipped_ledgers(&settings, &index, now)?,
            };
            print_sync(
                cli,
                json!({ "report": report, "memory_md": left_out }),
                &index,
                || {
                    let mut text =
                        render::render_sync(&report, &super::listing::first_problems(&index)?);
                    for (agent, a) in &left_out {
                        text.push_str(&format!("  {agent}: {}\n", render::memory_md_account(a)));
                    }
                    Ok(text)
                },
            )?;
            super::commands::sync_exit_status(&index)
        }
        Command::Watch => {
            if cli.now.is_some() {
                return Err(crate::error::UsageError::Conflict {
                    flag: "--now",
                    reason: "watch runs on the real clock; --now is for one-shot commands",
                }
                .into());
            }
            let settings = existing()?;
            if !cli.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                eprintln!(
                    "memsync watch: keeping {} current (Ctrl-C stops; -v shows each batch)",
                    settings.root.display()
                );
            }
            crate::watch::run(|| load(cli.workspace.as_deref()))?;
            Ok(ExitStatus::Ok)
        }
        Command::Service { action } => {
            let (value, text, status) = super::service::run(action, &existing()?, &env)?;
            print(value, text)?;
            Ok(status)
        }
        Command::Check => {
            let (counts, index) = super::commands::check_index(&existing()?, now, progress)?;
            if cli.json {
                super::listing::write_json_with_problems(&index, json(&counts))?;
            } else if !cli.quiet {
                super::listing::write_check_text(&index, counts.errors, counts.warnings)?;
            }
            Ok(counts.exit_status())
        }
        Command::Reindex { reset_telemetry } => {
            let settings = existing()?;
            let report = super::commands::reindex(&settings, now, *reset_telemetry, progress)?;
            let index = crate::store::Index::open(&settings.index_path())?;
            print(
                json(&report),
                render::render_sync(&report, &super::listing::first_problems(&index)?),
            )?;
            Ok(ExitStatus::Ok)
        }
        Command::Config | Command::Log { .. } => {
            let (value, text) =
                super::inspect::run(&cli.command, &load(cli.workspace.as_deref())?)?;
            print(value, text)?;
            Ok(ExitStatus::Ok)
        }
        Command::Status => {
            let status = super::status::status(&existing()?, now)?;
            print(json(&status), super::render_status::render_status(&status))?;
            Ok(ExitStatus::Ok)
        }
        Command::Capture(args) => {
            if let Some(harness) = &args.hook {
                // Hook mode never fails the harness, and writes to stdout only
                // what the harness reads (SessionStart's digest).
                let places = super::commands::HookPlaces {
                    workspace: cli.workspace.as_deref(),
                    config: cli.config.as_deref(),
                    env: &env,
                };
                let settings = load(cli.workspace.as_deref());
                let outcome = super::commands::hook(settings, places, now, harness, &args.agent);
                match outcome {
                    Ok(line) => match line.strip_prefix(super::commands::HOOK_STDOUT) {
                        // Nothing to say is no output at all: Claude Code adds
                        // a prompt hook's plain stdout to the context.
                        Some("") => {}
                        Some(reply) => write_stdout(format!("{reply}\n").as_bytes())?,
                        None => tracing::info!("{line}"),
                    },
                    Err(e) => eprintln!("memsync capture --hook: {e}"),
                }
                return Ok(ExitStatus::Ok);
            }
            let settings = existing()?;
            let Some(action) = &args.action else {
                return Err(crate::error::UsageError::Missing {
                    flag: "capture",
                    reason: "needs session-end, compaction, jobs, or --hook HARNESS",
                }
                .into());
            };
            match action {
                CaptureAction::Jobs => {
                    let report = crate::jobs::run_worker(&settings)?;
                    print(json(&report), render::render_worker(&report))?;
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
                    let req = crate::capture::SessionEnd {
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
                    let report = crate::capture::session_end(&settings, now, &req)?;
                    print(json(&report), render::render_capture(&report))?;
                }
                CaptureAction::Compaction {
                    session_id,
                    session_key,
                    body,
                    idempotency_key,
                } => {
                    let req = crate::capture::Compaction {
                        agent_id: args.agent.clone(),
                        session_id: session_id.clone(),
                        session_key: session_key.clone(),
                        body: crate::capture::read_input(body)?,
                        idempotency_key: idempotency_key.clone(),
                        ..Default::default()
                    };
                    let report = crate::capture::compaction(&settings, now, &req)?;
                    print(json(&report), render::render_capture(&report))?;
                }
            }
            Ok(ExitStatus::Ok)
        }
        Command::Forget {
            session,
            reason,
            agent,
            dry_run,
            yes,
        } => {
            let ask = !*yes && !cli.json && super::commands::asks_first();
            let how = super::forget::How {
                dry_run: *dry_run,
                ask,
            };
            super::forget::run(
                &existing()?,
                now,
                session,
                reason.as_deref().unwrap_or_default(),
                agent.as_deref(),
                how,
                &print,
            )
        }
        Command::Search {
            query,
            agent,
            project,
            kind,
            since,
            limit,
            include_private,
            include_superseded,
        } => {
            let settings = existing()?;
            let q = crate::search::Query {
                text: query.join(" "),
                agent: agent.clone(),
                project: project.clone(),
                kind: *kind,
                since: since
                    .as_deref()
                    .map(|s| crate::search::parse_since(s, now))
                    .transpose()?,
                limit: limit.unwrap_or(settings.config.search.limit),
                include_private: *include_private,
                include_superseded: *include_superseded,
            };
            let (found, tries) = super::commands::search(&settings, &q, now)?;
            let hits = found.hits;
            let color = cli.color.enabled();
            if let Some(note) = found.note.as_deref().filter(|_| !cli.quiet) {
                // One line on stderr: stdout stays the hits a script expects.
                eprintln!("memsync: {note}");
            }
            if cli.json && !tries.is_empty() && !cli.quiet {
                eprint!("{}", super::render_search::render_suggestions(&tries));
            }
            // Notes follow the sessions in one list, marked `"kind": "note"`.
            let mut machine = serde_json::to_value(&hits).unwrap_or_default();
            if let Some(list) = machine.as_array_mut() {
                list.extend(found.notes.iter().map(super::render_search::note_json));
            }
            print(
                json(&machine),
                super::render_search::render_search(&hits, &settings.root, color)
                    + &super::render_search::render_notes(&found.notes, color)
                    + &super::render_search::render_suggestions(&tries),
            )?;
            Ok(ExitStatus::Ok)
        }
        Command::Context {
            cwd,
            agent,
            budget,
            include_untrusted,
        } => {
            if !crate::contract::is_valid_agent_id(agent) {
                return Err(crate::error::Error::value(
                    "--agent",
                    agent,
                    "an agent id is [a-z0-9-], such as `default`",
                ));
            }
            let cwd = match cwd {
                Some(dir) => dir.clone(),
                None => std::env::current_dir().map_err(|e| crate::error::Error::io(".", e))?,
            };
            let req = crate::context::ContextRequest {
                cwd: crate::context::resolve_cwd(&cwd),
                agent: agent.clone(),
                budget_tokens: *budget,
                include_untrusted: *include_untrusted,
            };
            let digest = super::commands::context(&existing()?, &req, now)?;
            let text = digest.text.clone();
            print(json(&digest), text)?;
            Ok(ExitStatus::Ok)
        }
        Command::Open {
            session,
            agent,
            print: body,
        } => {
            let settings = existing()?;
            if let Some(note) = super::commands::open_note(&settings, session, now)? {
                print(json(&note), render::render_note(&note))?;
                return Ok(ExitStatus::Ok);
            }
            let view = super::commands::open(&settings, session, agent.as_deref(), now)?;
            if let Some(kind) = body {
                write_stdout(crate::session::body(&settings, &view, *kind)?.as_bytes())?;
                return Ok(ExitStatus::Ok);
            }
            let link = cli.color.enabled();
            print(
                json(&view),
                render::render_open(&view, &settings.root, link),
            )?;
            Ok(ExitStatus::Ok)
        }
        Command::Completions { shell } => {
            write_stdout(&super::complete::registration(*shell))?;
            Ok(ExitStatus::Ok)
        }
        Command::Man { out } => {
            use clap::CommandFactory;
            let cmd = Cli::command();
            match out {
                Some(dir) => {
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                    super::manual::write_pages(cmd, dir).map_err(|e| Error::io(dir, e))?;
                    if !cli.quiet {
                        let hint = super::manual::manpath_hint(dir).unwrap_or_default();
                        let said = format!("wrote man pages to {}\n{hint}", dir.display());
                        write_stdout(said.as_bytes())?;
                    }
                }
                None => {
                    write_stdout(&super::manual::top_page(cmd).map_err(|e| Error::io(STDOUT, e))?)?
                }
            }
            Ok(ExitStatus::Ok)
        }
        Command::Git { action } => match action {
            GitAction::Setup { dry_run } => {
                let settings = existing()?;
                let exe = std::env::current_exe().map_err(|e| Error::io("<current exe>", e))?;
                let report = crate::git::setup(&settings, &exe, *dry_run)?;
                print(json(&report), render::render_git_setup(&report))?;
                Ok(ExitStatus::Ok)
            }
            GitAction::MergeDriver {
                base,
                ours,
                theirs,
                path,
            } => {
                // A failure leaves `ours` untouched and exits 1: git then marks a conflict.
                let outcome = crate::git::merge_driver(base, ours, theirs, path)?;
                if let Ok(settings) = load(cli.workspace.as_deref()) {
                    let at = crate::contract::format_ts(now);
                    crate::git::log_union(&settings.state_dir(), &outcome, &at);
                }
                Ok(ExitStatus::Ok)
            }
        },
        Command::Harvest {
            harnesses,
            since,
            dry_run,
            sentences,
            no_wait,
        } => {
            let settings = existing()?;
            let opts = crate::harvest::HarvestOptions {
                harnesses: harnesses.clone(),
                since: since
                    .as_deref()
                    .map(|s| crate::search::parse_since(s, now))
                    .transpose()?,
                dry_run: *dry_run,
                daemon: false,
                sentences: *sentences,
                no_wait: *no_wait,
            };
            let bar = super::progress::TerminalProgress::for_stderr(cli.quiet || cli.json)
                .map(|b| b.doing("harvesting", "sessions"));
            let progress = bar.as_ref().map(|p| p as &dyn crate::pipeline::Progress);
            let report = crate::harvest::harvest(&settings, &env, now, &opts, progress)?;
            print(json(&report), render::render_harvest(&report))?;
            Ok(if report.has_problems() {
                ExitStatus::Problems
            } else {
                ExitStatus::Ok
            })
        }
        Command::Connect {
            harness,
            dry_run,
            force,
            import_memory_md,
            no_restore,
            sentences,
            memory_writes,
        } => {
            let settings = existing()?;
            let mut places =
                crate::connect::Places::resolve(&settings, &env, cli.config.as_deref())?;
            places.import_memory_md = *import_memory_md;
            places.sentences = *sentences;
            places.memory_writes = *memory_writes;
            let mut done = super::connect::connect(
                &settings,
                &env,
                &places,
                *harness,
                *dry_run,
                *force,
                !no_restore,
            )?;
            if !dry_run {
                // Render MEMORY.md (and OpenClaw's mirror) with the settings connect
                // recorded, so the file the agent is pointed at exists now.
                super::commands::sync(&existing()?, now, true, None)?;
                let needs_daemon = harness.needs_harvest();
                done.report
                    .notes
                    .extend(super::connect::reload_daemon(&settings, needs_daemon));
            }
            print(json(&done), super::connect::render_connected(&done))?;
            Ok(ExitStatus::Ok)
        }
        Command::Disconnect { harness, dry_run } => {
            let settings = existing()?;
            let places = crate::connect::Places::resolve(&settings, &env, cli.config.as_deref())?;
            let mut report = crate::connect::disconnect(*harness, &places, *dry_run)?;
            if !dry_run {
                report
                    .notes
                    .extend(super::connect::reload_daemon(&settings, false));
            }
            print(json(&report), super::connect::render_connect(&report))?;
            Ok(ExitStatus::Ok)
        }
        Command::Doctor => {
            // With no workspace named anywhere, the one `connect` wired.
            let mut settings = load(cli.workspace.as_deref())?;
            if settings.sources.root_from == crate::config::DEFAULT_ROOT_FROM
                && let Some(ws) = crate::connect::recorded_workspace(&env)
            {
                settings = load(Some(&ws))?;
            }
            settings.require_workspace()?;
            let places = crate::connect::Places::resolve(&settings, &env, cli.config.as_deref())?;
            let doctor = crate::connect::doctor(&settings, &places)?;
            print(
                json(&doctor),
                super::connect::render_doctor(&doctor, &settings),
            )?;
            Ok(if doctor.broken() {
                ExitStatus::Problems
            } else {
                ExitStatus::Ok
            })
        }
        Command::Mcp { no_sync, read_only } => {
            // stdout carries the protocol alone; every log line goes to stderr.
            crate::mcp::run(existing()?, !no_sync, *read_only, cli.now)?;
            Ok(ExitStatus::Ok)
        }
        Command::Init { dir } => {
            let settings = load(dir.as_deref().or(cli.workspace.as_deref()))?;
            let (report, index) = super::commands::init(&settings, now)?;
            let fields = json!({ "workspace": settings.root, "report": report });
            print_sync(cli, fields, &index, || {
                Ok(render::render_init(&settings, &report))
            })?;
            super::commands::sync_exit_status(&index)
        }
        Command::Demo { dir } => {
            let (settings, report, problems) =
                super::commands::demo(dir.as_deref(), now, |d| load(Some(d)))?;
            print(
                json!({ "workspace": settings.root, "report": report, "problems": problems }),
                render::render_demo(&settings, &report, &problems),
            )?;
            Ok(ExitStatus::Ok)
        }
        Command::Generate {
            dir,
            days,
            per_day,
            older,
            questions,
        } => {
            let settings = load(Some(dir))?;
            let shape = crate::generate::Shape {
                days: *days,
                per_day: *per_day,
                older: *older,
                ..Default::default()
            };
            let g = match questions {
                None => crate::generate::generate(dir, now, shape, &settings.config)?,
                Some(file) => {
                    crate::generate::generate_questions_to(dir, now, shape, &settings.config, file)?
                }
            };
            let machine = json!({ "sessions": g.sessions, "files": g.files, "bytes": g.bytes });
            print(machine, render::render_generated(&g, dir))?;
            Ok(ExitStatus::Ok)
        }
    }
}
