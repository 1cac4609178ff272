//! `memsync sync` by hand beside a running `memsync watch`: the daemon saw
//! every change as an event, so `sync` asks it to reconcile what it has
//! pending instead of a stat of every file; what was written before `sync`
//! started is indexed and rendered when it returns.

mod common;

use std::process::Output;
use std::time::{Duration, Instant};

use common::daemon::Daemon;
use common::{Workspace, memory_md, recent, session};

/// `memsync sync --json` as the user runs it, with the daemon's environment.
fn sync(ws: &Workspace, extra: &[&str]) -> (Output, serde_json::Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws.root())
        .args(["--json", "sync"])
        .args(extra)
        .env_remove("MEMSYNC_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .output()
        .expect("memsync runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, json)
}

fn daemon_pid(report: &serde_json::Value) -> Option<i64> {
    report["report"]["daemon_pid"].as_i64()
}

fn flush_dir_entries(ws: &Workspace) -> usize {
    std::fs::read_dir(ws.path(".memsync/flush")).map_or(0, |d| d.count())
}

#[test]
fn what_was_written_before_sync_is_indexed_when_it_returns_without_a_scan() {
    let ws = Workspace::new();
    ws.add(&session("default", "first", recent(3)));
    let daemon = Daemon::start(ws.root());
    for round in 0..10 {
        let id = format!("asked-{round}");
        ws.add(&session("default", &id, recent(2)));
        let (out, json) = sync(&ws, &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(daemon_pid(&json), Some(daemon.pid() as i64), "{json}");
        // The daemon's batch: at most the new session's three files, never
        // the workspace's (none when its timer took them just before).
        assert!(json["report"]["scanned"].as_u64() <= Some(3), "{json}");
        // Rendered by the time `sync` returned, not some time later.
        assert!(
            memory_md(ws.root()).contains(&format!("session={id}")),
            "round {round}"
        );
        let found = ws.search_json(&[&id]);
        assert!(!found.is_empty(), "round {round}: {id} searchable");
    }
    assert_eq!(flush_dir_entries(&ws), 0, "requests and answers cleaned up");
    assert!(daemon.stop().success());
}

#[test]
fn sync_full_scans_here_even_beside_a_daemon() {
    let ws = Workspace::new();
    ws.add(&session("default", "scanned", recent(3)));
    let daemon = Daemon::start(ws.root());
    let (out, json) = sync(&ws, &["--full"]);
    assert!(out.status.success());
    assert_eq!(daemon_pid(&json), None);
    assert!(json["report"]["scanned"].as_u64() > Some(0), "{json}");
    assert!(daemon.stop().success());
}

#[test]
fn a_daemon_running_another_configuration_is_not_asked() {
    let ws = Workspace::new();
    ws.add(&session("default", "configured", recent(3)));
    let daemon = Daemon::start(ws.root());
    // Edited but not reloaded (no SIGHUP): the daemon still runs the old one.
    ws.write(
        "memsync.yaml",
        "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\nmemory_md:\n  head_projects: 3\n",
    );
    let (out, json) = sync(&ws, &[]);
    assert!(out.status.success());
    assert_eq!(daemon_pid(&json), None, "{json}");
    assert!(daemon.stop().success());
}

#[test]
fn a_stopped_daemon_costs_sync_a_few_seconds_and_then_it_scans_itself() {
    let ws = Workspace::new();
    ws.add(&session("default", "before-stop", recent(3)));
    let daemon = Daemon::start(ws.root());
    // SAFETY: stopping and continuing our own child process.
    unsafe { libc::kill(daemon.pid(), libc::SIGSTOP) };
    ws.add(&session("default", "while-stopped", recent(2)));
    let started = Instant::now();
    let (out, json) = sync(&ws, &[]);
    let took = started.elapsed();
    unsafe { libc::kill(daemon.pid(), libc::SIGCONT) };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(daemon_pid(&json), None, "{json}");
    assert!(memory_md(ws.root()).contains("session=while-stopped"));
    assert!(
        took < Duration::from_secs(10),
        "gave up on the daemon after {took:?}"
    );
    assert_eq!(
        flush_dir_entries(&ws),
        0,
        "the unanswered request is removed"
    );
    assert!(daemon.stop().success());
}
