//! Dispatch: turns parsed arguments into library calls and prints their
//! reports as text or JSON.
//!
//! Owns: which call each command makes, and stdout. Must not: hold logic a
//! command needs (that is in the entry points and `commands`).

use std::io::IsTerminal;
use std::path::Path;

use chrono::Utc;

use super::args::{CaptureAction, Cli, Command, GitAction, ServiceAction};
use super::render;
use crate::config::{Env, Settings};
use crate::error::{Error, ExitStatus, Result};

/// A report as JSON; our reports always serialize.
fn json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// Runs the command `cli` names and says how the process should exit.
pub fn run(cli: &Cli) -> Result<ExitStatus> {
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
    let bar = super::commands::TerminalProgress::for_stderr(cli.quiet || cli.json);
    let progress = bar.as_ref().map(|p| p as &dyn crate::pipeline::Progress);
    match &cli.command {
        Command::Sync => {
            let (report, problems) =
                super::commands::sync(&load(cli.workspace.as_deref())?, now, progress)?;
            let status = super::commands::sync_exit_status(&problems);
            print(
                serde_json::json!({ "report": report, "problems": problems }),
                render::render_sync(&report, &problems),
            );
            Ok(status)
        }
        Command::Watch => {
            if cli.now.is_some() {
                return Err(crate::error::UsageError::Conflict {
                    flag: "--now",
                    reason: "watch runs on the real clock; --now is for one-shot commands",
                }
                .into());
            }
            crate::watch::run(|| load(cli.workspace.as_deref()))?;
            Ok(ExitStatus::Ok)
        }
        Command::Service { action } => {
            use crate::service::{self, Action, Places};
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
            let report = super::commands::check(&load(cli.workspace.as_deref())?, now, progress)?;
            print(json(&report), render::render_check(&report));
            Ok(report.exit_status())
        }
        Command::Reindex { reset_telemetry } => {
            let settings = load(cli.workspace.as_deref())?;
            let report = super::commands::reindex(&settings, now, *reset_telemetry, progress)?;
            let problems = crate::store::Index::open(&settings.index_path())?.problems()?;
            print(json(&report), render::render_sync(&report, &problems));
            Ok(ExitStatus::Ok)
        }
        Command::Status => {
            let status = super::commands::status(&load(cli.workspace.as_deref())?, now)?;
            print(json(&status), render::render_status(&status));
            Ok(ExitStatus::Ok)
        }
        Command::Capture(args) => {
            if let Some(harness) = &args.hook {
                // Hook mode never fails the harness and never writes to stdout.
                let outcome = load(cli.workspace.as_deref()).and_then(|settings| {
                    super::commands::hook(
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
                return Err(crate::error::UsageError::Missing {
                    flag: "capture",
                    reason: "needs session-end, compaction, jobs, or --hook HARNESS",
                }
                .into());
            };
            match action {
                CaptureAction::Jobs => {
                    let report = crate::jobs::run_worker(&settings)?;
                    print(json(&report), render::render_worker(&report));
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
                    print(json(&report), render::render_capture(&report));
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
                    print(json(&report), render::render_capture(&report));
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
            let report = crate::forget::forget(&settings, now, session, reason, agent.as_deref())?;
            print(json(&report), render::render_forget(&report));
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
            };
            let hits = super::commands::search(&settings, &q, now)?;
            let color = std::io::stdout().is_terminal();
            print(json(&hits), render::render_search(&hits, color));
            Ok(ExitStatus::Ok)
        }
        Command::Open {
            session,
            agent,
            print: body,
        } => {
            let settings = load(cli.workspace.as_deref())?;
            let view = super::commands::open(&settings, session, agent.as_deref(), now)?;
            if let Some(kind) = body {
                print!("{}", crate::session::body(&settings, &view, *kind)?);
                return Ok(ExitStatus::Ok);
            }
            print(json(&view), render::render_open(&view));
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
                    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
                    clap_mangen::generate_to(cmd, dir).map_err(|e| Error::io(dir, e))?;
                    if !cli.quiet {
                        println!("wrote man pages to {}", dir.display());
                    }
                }
                None => clap_mangen::Man::new(cmd)
                    .render(&mut std::io::stdout())
                    .map_err(|e| Error::io("<stdout>", e))?,
            }
            Ok(ExitStatus::Ok)
        }
        Command::Git { action } => match action {
            GitAction::Setup { dry_run } => {
                let settings = load(cli.workspace.as_deref())?;
                let exe = std::env::current_exe().map_err(|e| Error::io("<current exe>", e))?;
                let report = crate::git::setup(&settings, &exe, *dry_run)?;
                print(json(&report), render::render_git_setup(&report));
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
        Command::Demo { dir } => {
            let (settings, report, problems) =
                super::commands::demo(dir.as_deref(), now, |d| load(Some(d)))?;
            print(
                serde_json::json!({ "workspace": settings.root, "report": report, "problems": problems }),
                render::render_demo(&settings, &report, &problems),
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
            let shape = crate::generate::Shape {
                days: *days,
                per_day: *per_day,
                older: *older,
                ..Default::default()
            };
            let g = crate::generate::generate(dir, now, shape, &settings.config)?;
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
