//! Faults injected into a real workspace, with real processes: the index
//! destroyed under a running daemon, `kill -9` at random moments of `sync` and
//! `capture`, everything at once, an unwritable state directory, a file the
//! reader may not open, and a full disk. Each ends in a state that the next
//! `sync` turns into exactly the clean result, and loses nothing.
//!
//! The run counts are constants that `report.rs` prints into
//! `docs/HARDENING.md`, so the report says what these tests do.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use chrono::Utc;
use common::daemon::{Daemon, wait_for};
use common::{Workspace, memsync_bin, session, tree};

pub use common::hardening::*;

fn recent(hours: i64) -> chrono::DateTime<Utc> {
    Utc::now() - chrono::Duration::hours(hours)
}

fn memory_md(root: &Path) -> String {
    std::fs::read_to_string(root.join("MEMORY.md")).unwrap_or_default()
}

/// The workspace's files and rows equal a fresh sync of a copy of its files.
fn assert_clean(ws: &Workspace, at: chrono::DateTime<Utc>, what: &str) {
    let (files, rows) = Workspace::copy_of(ws.root()).synced_state(at);
    let ours = tree(ws.root());
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        files.keys().collect::<Vec<_>>(),
        "{what}: file set differs"
    );
    for (rel, bytes) in &files {
        assert!(
            ours.get(rel) == Some(bytes),
            "{what}: {rel} differs from the clean result:\n{}\n---clean---\n{}",
            String::from_utf8_lossy(&ours[rel]),
            String::from_utf8_lossy(bytes)
        );
    }
    assert_eq!(ws.content_rows(), rows, "{what}: index rows differ");
}

#[test]
fn the_index_destroyed_under_the_daemon_is_rebuilt_from_markdown_and_logged() {
    for (i, fault) in INDEX_FAULTS.iter().enumerate() {
        let ws = Workspace::new();
        ws.add(&session("default", &format!("before-{i}"), recent(3)));
        let daemon = Daemon::start(ws.root());
        let index = ws.settings.index_path();
        match *fault {
            "deleted" => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
                }
            }
            "truncated" => {
                std::fs::File::options()
                    .write(true)
                    .open(&index)
                    .unwrap()
                    .set_len(0)
                    .unwrap();
            }
            "corrupted" => {
                let mut bytes = std::fs::read(&index).unwrap();
                let n = bytes.len().min(8192);
                bytes[..n].fill(0x5a);
                std::fs::write(&index, bytes).unwrap();
            }
            other => panic!("unknown fault {other}"),
        }
        ws.add(&session("default", &format!("after-{i}"), recent(2)));
        wait_for(&daemon.log, "the session written after the fault", || {
            let md = memory_md(ws.root());
            md.contains(&format!("session=after-{i} "))
                && md.contains(&format!("session=before-{i} "))
        });
        wait_for(&daemon.log, "the rebuild in the log", || {
            std::fs::read_to_string(&daemon.log).is_ok_and(|l| l.contains("rebuilding"))
        });
        assert!(
            daemon.stop().success(),
            "{fault}: the daemon did not exit 0"
        );
        assert_clean(&ws, Utc::now(), fault);
    }
}

#[test]
fn an_unwritable_state_directory_is_reported_and_the_daemon_carries_on() {
    let ws = Workspace::new();
    ws.add(&session("default", "st-before", recent(3)));
    let daemon = Daemon::start(ws.root());
    let state = ws.settings.state_dir();
    let _immutable = Immutable::set(&state);
    ws.add(&session("default", "st-after", recent(2)));
    wait_for(
        &daemon.log,
        "the new session despite the state directory",
        || memory_md(ws.root()).contains("session=st-after "),
    );
    wait_for(&daemon.log, "the state-file warning", || {
        std::fs::read_to_string(&daemon.log).is_ok_and(|l| l.contains("state file not written"))
    });
    assert!(daemon.stop().success());
}

#[test]
fn a_cold_sync_with_an_unwritable_state_directory_fails_naming_it_and_writes_nothing() {
    let ws = Workspace::new();
    ws.add(&session("default", "st-cold", recent(3)));
    let before = tree(ws.root());
    std::fs::create_dir_all(ws.settings.state_dir()).unwrap();
    let _immutable = Immutable::set(&ws.settings.state_dir());
    let out = ws.cli(&["sync"]).get_output().clone();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".memsync"), "{stderr}");
    assert_eq!(tree(ws.root()), before);
}

/// `chattr +i` for the life of the value: even root cannot write there.
struct Immutable(std::path::PathBuf);

impl Immutable {
    fn set(path: &Path) -> Immutable {
        let ok = Command::new("chattr").arg("+i").arg(path).status().unwrap();
        assert!(ok.success(), "chattr +i {}", path.display());
        Immutable(path.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// A deterministic stream of delays, so a failing run can be replayed.
struct Delays(u64);

impl Delays {
    fn next_ms(&mut self, max: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % max
    }
}

/// Starts `cmd`, waits `delay`, then SIGKILLs it (if it is still running).
/// True when the kill landed before the command finished.
fn kill_after(mut cmd: Command, delay: Duration) -> bool {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(delay);
    let landed = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    landed
}

fn binary(ws: &Workspace, at: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memsync"));
    cmd.env_remove("MEMSYNC_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC")
        .arg("--workspace")
        .arg(ws.root())
        .args(["--now", at])
        .args(args);
    cmd
}

const AT: &str = "2026-11-20T12:00:00Z";

#[test]
fn kill_9_at_random_moments_of_sync_always_leaves_a_recoverable_state() {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    for i in 0..60 {
        ws.add(&session(
            "default",
            &format!("k-{i:03}"),
            common::now() - chrono::Duration::hours(i),
        ));
    }
    let mut delays = Delays(0x9e37_79b9_7f4a_7c15);
    let mut landed = 0;
    // Kills land within the time an uninterrupted run of the same kind took.
    let (mut warm_ms, mut cold_ms) = (20, 200);
    for run in 0..KILL_SYNC_RUNS {
        // Give every run something to do: a new session, and every fifth run a cold index.
        ws.add(&session(
            "default",
            &format!("k-run-{run:03}"),
            common::now() - chrono::Duration::minutes(run as i64),
        ));
        if run % 5 == 0 {
            let index = ws.settings.index_path();
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
            }
        }
        let cold = run % 5 == 0;
        let delay = Duration::from_millis(delays.next_ms(if cold { cold_ms } else { warm_ms }));
        landed += usize::from(kill_after(binary(&ws, AT, &["sync"]), delay));
        let started = std::time::Instant::now();
        let out = binary(&ws, AT, &["sync"]).output().unwrap();
        assert!(
            out.status.success(),
            "run {run}: recovery sync failed: {out:?}"
        );
        let took = (started.elapsed().as_millis() as u64).max(5);
        if cold {
            cold_ms = took
        } else {
            warm_ms = took
        }
        assert_clean(
            &ws,
            common::now(),
            &format!("sync run {run} (killed after {delay:?})"),
        );
    }
    eprintln!("kill -9 during sync: {landed} of {KILL_SYNC_RUNS} kills landed mid-run");
    assert!(
        landed >= KILL_SYNC_RUNS / 2,
        "only {landed} kills landed mid-run"
    );
}
