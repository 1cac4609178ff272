//! `memsync watch` against real file-system events: a daemon subprocess on a
//! temp workspace, driven by the ways files really change, and by real git.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use common::daemon::{Daemon, terminate, wait_for};
use common::{Workspace, memory_md, path_of, recent, session};

/// A datagram socket standing in for systemd's NOTIFY_SOCKET, read with `timeout`.
fn notify_socket(
    timeout: Duration,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::os::unix::net::UnixDatagram,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notify.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    socket.set_read_timeout(Some(timeout)).unwrap();
    (dir, path, socket)
}

/// Writes a file the way editors and sync tools do: a temp file, then a rename.
fn atomic_write(path: &Path, text: &str) {
    let tmp = path.with_extension("md.tmp-123");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn new_edited_and_deleted_sessions_reach_memory_md() {
    let ws = Workspace::new();
    ws.add(&session("default", "w-first", recent(5)));
    let daemon = Daemon::start(ws.root());
    assert!(memory_md(ws.root()).contains("session=w-first"));

    // A new session, written in place.
    let ended = recent(2);
    let files = ws.add(&session("default", "w-new", ended));
    wait_for(&daemon.log, "the new session", || {
        memory_md(ws.root()).contains("session=w-new")
    });

    // A re-capture with a new sentence, saved atomically (temp file + rename).
    let mut again = session("default", "w-new", ended);
    for c in [&mut again.summary, &mut again.transcript]
        .into_iter()
        .flatten()
    {
        c.sentence = Some("Rewrote the memsync watch loop in src/watch.rs so atomic saves land in the index at once.".into());
    }
    for (rel, text) in again.files(&ws.settings.config) {
        atomic_write(&ws.path(&rel), &text);
    }
    wait_for(&daemon.log, "the edited sentence", || {
        memory_md(ws.root()).contains("so atomic saves land")
    });

    // Deletes.
    for p in &files {
        ws.remove(p);
    }
    wait_for(&daemon.log, "the deletion", || {
        !memory_md(ws.root()).contains("session=w-new")
    });
    assert!(memory_md(ws.root()).contains("session=w-first"));
    assert!(daemon.stop().success());
}

/// The daemon compares only the projection files events name with what it
/// rendered (no stat of every daily log per event): each change must arrive
/// as an event and be rendered again.
#[test]
fn projection_files_changed_behind_the_daemon_are_rendered_again_from_their_events() {
    let ws = Workspace::new();
    let old = recent(24 * 5);
    ws.add(&session("default", "w-old-day", old));
    ws.add(&session("default", "w-today", recent(1)));
    let daemon = Daemon::start(ws.root());
    let old_log = format!("memory/{}.md", old.date_naive());
    assert!(ws.read(&old_log).contains("session=w-old-day"));

    // A daily log of a day nothing else touches, deleted.
    ws.remove(&old_log);
    wait_for(&daemon.log, "the deleted daily log", || {
        ws.exists(&old_log) && ws.read(&old_log).contains("session=w-old-day")
    });

    // MEMORY.md's block overwritten by hand: the block comes back, the
    // text added outside it stays.
    let md = memory_md(ws.root());
    let vandalised = format!(
        "# Notes kept by hand\n\n{}",
        md.replace("session=w-today", "session=typed-over")
    );
    atomic_write(&ws.path("MEMORY.md"), &vandalised);
    wait_for(&daemon.log, "the restored block", || {
        let md = memory_md(ws.root());
        md.contains("session=w-today") && md.starts_with("# Notes kept by hand")
    });
    assert!(!memory_md(ws.root()).contains("typed-over"));
    assert!(daemon.stop().success());
}

#[test]
fn a_hand_edit_is_reported_and_the_last_good_row_kept() {
    let ws = Workspace::new();
    let files = ws.add(&session("default", "w-edit", recent(3)));
    let daemon = Daemon::start(ws.root());
    let summary = path_of(&files, "summary");
    // vim-style save: the 4913 probe, a backup, then an in-place write.
    std::fs::write(ws.path("memory/4913"), "").unwrap();
    std::fs::remove_file(ws.path("memory/4913")).unwrap();
    std::fs::copy(ws.path(&summary), ws.path(&format!("{summary}~"))).unwrap();
    let text = ws.read(&summary);
    std::fs::write(ws.path(&summary), format!("{text}Edited by hand.\n")).unwrap();
    let status = || {
        let out = Command::new(env!("CARGO_BIN_EXE_memsync"))
            .args(["--json", "--workspace"])
            .arg(ws.root())
            .arg("status")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    wait_for(&daemon.log, "the checksum problem", || {
        status().contains("checksum.mismatch")
    });
    assert!(
        memory_md(ws.root()).contains("session=w-edit"),
        "the last good row stays"
    );
    assert!(status().contains("\"running\": true"));
    drop(daemon);
}

#[test]
fn a_new_directory_filled_at_once_is_reconciled() {
    let ws = Workspace::new();
    let files = ws.add(&session("default", "w-forget", recent(4)));
    ws.add(&session("default", "w-keep", recent(3)));
    let daemon = Daemon::start(ws.root());
    // memory/tombstones/ does not exist yet: the directory and its file arrive together.
    let token = memsync::contract::session_token("default", "w-forget");
    let (rel, text) = memsync::compose::tombstone("default", &token, Utc::now(), "privacy", &files);
    std::fs::create_dir_all(ws.path("memory/tombstones")).unwrap();
    std::fs::write(ws.path(&rel), text).unwrap();
    wait_for(&daemon.log, "the tombstone", || {
        !memory_md(ws.root()).contains("session=w-forget")
    });
    assert!(memory_md(ws.root()).contains("session=w-keep"));
    drop(daemon);
}

#[test]
fn a_second_daemon_refuses_naming_the_first() {
    let ws = Workspace::new();
    let daemon = Daemon::start(ws.root());
    let out = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws.root())
        .arg("watch")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("pid {}", daemon.pid())),
        "{stderr}"
    );
    assert!(daemon.stop().success());
}

#[test]
fn an_idle_workspace_causes_no_batches() {
    let ws = Workspace::new();
    ws.add(&session("default", "w-idle", recent(3)));
    let daemon = Daemon::start(ws.root());
    let batches = || {
        let db = rusqlite::Connection::open(ws.settings.index_path()).unwrap();
        db.query_row("SELECT COUNT(*) FROM telemetry_syncs", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap()
    };
    std::thread::sleep(Duration::from_millis(500));
    let before = (
        batches(),
        std::fs::metadata(ws.path("MEMORY.md"))
            .unwrap()
            .modified()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_secs(5));
    let after = (
        batches(),
        std::fs::metadata(ws.path("MEMORY.md"))
            .unwrap()
            .modified()
            .unwrap(),
    );
    assert_eq!(before, after, "work happened in 5 s of quiet");
    drop(daemon);
}

/// Context switches of one thread, from its `/proc/.../status`: each one is a wake-up.
fn thread_wake_ups(status: &Path) -> i64 {
    std::fs::read_to_string(status)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("ctxt_switches:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
        .sum()
}

/// Wake-ups of every thread of a process.
fn wake_ups(pid: i32) -> i64 {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
        .map(|t| thread_wake_ups(&t.path().join("status")))
        .sum()
}

/// Wake-ups of the daemon's event loop (the process's main thread).
fn event_loop_wake_ups(pid: i32) -> i64 {
    thread_wake_ups(Path::new(&format!("/proc/{pid}/task/{pid}/status")))
}

#[test]
fn an_idle_daemon_sleeps_until_something_changes() {
    let ws = Workspace::new();
    ws.add(&session("default", "w-sleep", recent(3)));
    let daemon = Daemon::start(ws.root());
    std::thread::sleep(Duration::from_millis(500));
    let before = wake_ups(daemon.pid());
    std::thread::sleep(Duration::from_secs(3));
    let woke = wake_ups(daemon.pid()) - before;
    // A fixed 50 ms tick would be 60 wake-ups; a few stray ones (the kernel
    // moving a thread) are not a timer.
    assert!(woke <= 5, "{woke} wake-ups in 3 s of quiet");
    // An agent polling MEMORY.md only reads, and reads change nothing: the
    // event loop sleeps through them (inotify's thread still sees each open).
    let before = event_loop_wake_ups(daemon.pid());
    for _ in 0..60 {
        assert!(memory_md(ws.root()).contains("session=w-sleep"));
        std::thread::sleep(Duration::from_millis(50));
    }
    let woke = event_loop_wake_ups(daemon.pid()) - before;
    assert!(woke <= 5, "the event loop woke {woke} times for 60 reads");
    // And it still wakes for a change.
    ws.add(&session("default", "w-wake", recent(1)));
    wait_for(&daemon.log, "the new session", || {
        memory_md(ws.root()).contains("session=w-wake")
    });
    drop(daemon);
}

#[test]
fn kill_9_then_restart_ends_in_the_clean_result() {
    let ws = Workspace::new();
    let daemon = Daemon::start(ws.root());
    for i in 0..30 {
        ws.add(&session("default", &format!("w-crash-{i}"), recent(1 + i)));
    }
    // No grace: SIGKILL mid-stream.
    std::thread::sleep(Duration::from_millis(120));
    drop(daemon);
    let restarted = Daemon::start(ws.root());
    wait_for(&restarted.log, "all 30 sessions", || {
        (0..30).all(|i| memory_md(ws.root()).contains(&format!("session=w-crash-{i} ")))
    });
    assert!(restarted.stop().success());
    let rows = ws.content_rows();
    ws.delete_index();
    memsync::pipeline::sync(
        &ws.settings,
        Utc::now(),
        memsync::pipeline::SyncOptions::INDEX_ONLY,
    )
    .unwrap();
    assert_eq!(ws.content_rows(), rows);
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=memsync test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_git_pull_burst_converges_to_a_one_shot_sync() {
    let tmp = tempfile::tempdir().unwrap();
    let (remote, a, b) = (
        tmp.path().join("remote.git"),
        tmp.path().join("a"),
        tmp.path().join("b"),
    );
    git(
        tmp.path(),
        &["init", "--bare", "-q", remote.to_str().unwrap()],
    );
    git(
        tmp.path(),
        &["clone", "-q", remote.to_str().unwrap(), a.to_str().unwrap()],
    );
    // Projections and state stay out of git here; issue "git-synced workspaces" covers tracking them.
    std::fs::write(
        a.join(".gitignore"),
        ".memsync/\nMEMORY.md\nagents/*/MEMORY.md\nmemory/????-??-??.md\nagents/*/memory/\n",
    )
    .unwrap();
    std::fs::write(
        a.join("memsync.yaml"),
        "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\n",
    )
    .unwrap();
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "init"]);
    git(&a, &["push", "-q", "origin", "main"]);
    git(
        tmp.path(),
        &["clone", "-q", remote.to_str().unwrap(), b.to_str().unwrap()],
    );
    let daemon = Daemon::start(&b);

    // A: 200 sessions and one forgotten, pushed at once.
    let settings =
        memsync::config::Settings::load(Some(&a), None, &memsync::config::Env::default()).unwrap();
    let mut forgotten = Vec::new();
    for i in 0..200 {
        let files = session("default", &format!("pull-{i:03}"), recent(1 + i % 600))
            .files(&settings.config);
        memsync::compose::write_files(&a, &files).unwrap();
        if i == 7 {
            forgotten = files.into_iter().map(|(p, _)| p).collect();
        }
    }
    let token = memsync::contract::session_token("default", "pull-007");
    let (rel, text) =
        memsync::compose::tombstone("default", &token, Utc::now(), "privacy", &forgotten);
    memsync::compose::write_files(&a, &[(rel, text)]).unwrap();
    for p in &forgotten {
        std::fs::remove_file(a.join(p)).unwrap();
    }
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "200 sessions, one forgotten"]);
    git(&a, &["push", "-q", "origin", "main"]);

    let pulled = Instant::now();
    git(&b, &["pull", "-q", "origin", "main"]);
    let pulled_sessions = || {
        let db = rusqlite::Connection::open(b.join(".memsync/index.db")).unwrap();
        db.query_row(
            "SELECT COUNT(*) FROM sessions WHERE session_id LIKE 'pull-%'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap_or(0)
    };
    wait_for(&daemon.log, "the pulled sessions", || {
        pulled_sessions() == 199 && memory_md(&b).contains("session=pull-000 ")
    });
    eprintln!(
        "pull of 200 sessions reflected in MEMORY.md after {:?}",
        pulled.elapsed()
    );
    assert!(!memory_md(&b).contains("session=pull-007 "));
    // Let any last batch finish, then compare with a one-shot sync of the same tree.
    std::thread::sleep(Duration::from_millis(500));
    assert!(daemon.stop().success());
    let from_daemon = memory_md(&b);
    let fresh = tmp.path().join("fresh");
    git(
        tmp.path(),
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            fresh.to_str().unwrap(),
        ],
    );
    let settings =
        memsync::config::Settings::load(Some(&fresh), None, &memsync::config::Env::default())
            .unwrap();
    memsync::pipeline::sync(
        &settings,
        Utc::now(),
        memsync::pipeline::SyncOptions::RENDER,
    )
    .unwrap();
    assert_eq!(from_daemon, memory_md(&fresh));
    assert_eq!(index_rows(&b), index_rows(&fresh));
    let day = format!("memory/{}.md", recent(1).date_naive());
    assert_eq!(
        std::fs::read_to_string(b.join(&day)).unwrap_or_default(),
        std::fs::read_to_string(fresh.join(&day)).unwrap_or_default(),
    );
}

/// The content rows of a workspace's index, in a stable order.
fn index_rows(root: &Path) -> Vec<String> {
    let db = rusqlite::Connection::open(root.join(".memsync/index.db")).unwrap();
    let mut out = Vec::new();
    for sql in [
        "SELECT source_path || ' ' || source_sha256 || ' ' || agent_id || ' ' || token || ' ' || stale FROM artifacts ORDER BY source_path",
        "SELECT agent_id || ' ' || token || ' ' || membership_ts || ' ' || sentence FROM sessions ORDER BY agent_id, token",
        "SELECT source_path || ' ' || token FROM tombstones ORDER BY source_path",
        "SELECT path || ' ' || rule FROM problems ORDER BY path, rule",
    ] {
        let mut stmt = db.prepare(sql).unwrap();
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        out.extend(rows);
    }
    out
}

#[test]
fn systemd_hears_ready_after_the_first_reconcile() {
    let ws = Workspace::new();
    ws.add(&session("default", "w-ready", recent(2)));
    let (_dir, socket_path, socket) = notify_socket(Duration::from_secs(15));
    let child = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws.root())
        .arg("watch")
        .env("NOTIFY_SOCKET", &socket_path)
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut buf = [0u8; 256];
    let n = socket
        .recv(&mut buf)
        .expect("a notification from the daemon");
    let message = String::from_utf8_lossy(&buf[..n]).into_owned();
    // READY comes only after the first reconcile rendered MEMORY.md.
    let rendered = memory_md(ws.root()).contains("session=w-ready");
    let status = terminate(child);
    assert!(message.contains("READY=1"), "{message}");
    assert!(rendered);
    assert!(status.success());
}

fn problems_for(ws: &Workspace, path: &str) -> i64 {
    let db = rusqlite::Connection::open(ws.settings.index_path()).unwrap();
    db.query_row(
        "SELECT COUNT(*) FROM problems WHERE path = ?1",
        [path],
        |r| r.get(0),
    )
    .unwrap_or(0)
}

#[test]
fn a_half_written_file_is_retried_and_never_reported() {
    let ws = Workspace::new();
    let daemon = Daemon::start(ws.root());
    let files = session("default", "w-slow", recent(2)).files(&ws.settings.config);
    let (summary, text) = files
        .iter()
        .find(|(p, _)| p.ends_with("--summary.md"))
        .unwrap()
        .clone();
    // Truncate-and-rewrite in two steps, far enough apart for the debounce to fire between them.
    std::fs::create_dir_all(ws.path("memory")).unwrap();
    std::fs::write(ws.path(&summary), &text[..text.len() / 3]).unwrap();
    let deadline = Instant::now() + Duration::from_millis(400);
    while Instant::now() < deadline {
        assert_eq!(
            problems_for(&ws, &summary),
            0,
            "a half-written file was reported"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for (rel, text) in &files {
        std::fs::write(ws.path(rel), text).unwrap();
    }
    wait_for(&daemon.log, "the completed session", || {
        memory_md(ws.root()).contains("session=w-slow")
    });
    assert_eq!(problems_for(&ws, &summary), 0);
    drop(daemon);
}

#[test]
fn renames_out_of_and_back_into_memory_are_followed() {
    let ws = Workspace::new();
    let files = ws.add(&session("default", "w-move", recent(2)));
    let daemon = Daemon::start(ws.root());
    let summary = path_of(&files, "summary");
    std::fs::create_dir_all(ws.path("archive")).unwrap();
    let away = summary.replace("memory/", "archive/");
    let reported = |path: &str| {
        ws.problems_for(path)
            .iter()
            .any(|p| p.rule == "naming.moved")
    };
    // Moved out: reported as the session's summary, and the session keeps it.
    std::fs::rename(ws.path(&summary), ws.path(&away)).unwrap();
    wait_for(&daemon.log, "the move reported", || reported(&away));
    assert!(memory_md(ws.root()).contains(&format!("[[{summary}|summary]]")));
    // Moved back: the report goes, the link stays.
    std::fs::rename(ws.path(&away), ws.path(&summary)).unwrap();
    wait_for(&daemon.log, "the report to go", || !reported(&away));
    assert!(memory_md(ws.root()).contains(&format!("[[{summary}|summary]]")));
    // Moved out and deleted: the summary leaves.
    std::fs::rename(ws.path(&summary), ws.path(&away)).unwrap();
    wait_for(&daemon.log, "the move reported", || reported(&away));
    std::fs::remove_file(ws.path(&away)).unwrap();
    wait_for(&daemon.log, "the summary link to go", || {
        !memory_md(ws.root()).contains("--summary.md|summary")
    });
    drop(daemon);
}

#[test]
fn sighup_reloads_the_configuration() {
    let ws = Workspace::new();
    ws.add(&session("default", "w-hideme", recent(2)));
    ws.add(&session("default", "w-visible", recent(3)));
    let daemon = Daemon::start(ws.root());
    assert!(memory_md(ws.root()).contains("session=w-hideme"));
    std::fs::write(
        ws.path("memsync.yaml"),
        "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\nprojection:\n  exclude_sessions: [\"w-hide*\"]\n",
    )
    .unwrap();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(daemon.pid(), libc::SIGHUP) };
    wait_for(&daemon.log, "the reloaded exclusion", || {
        !memory_md(ws.root()).contains("session=w-hideme")
    });
    assert!(memory_md(ws.root()).contains("session=w-visible"));
    assert!(daemon.stop().success());
}

#[test]
fn a_vanished_root_means_polling_until_it_returns() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    let settings =
        memsync::config::Settings::load(Some(&root), None, &memsync::config::Env::default())
            .unwrap();
    memsync::compose::write_files(
        &root,
        &session("default", "w-root", recent(2)).files(&settings.config),
    )
    .unwrap();
    std::fs::write(
        root.join("memsync.yaml"),
        "watch:\n  debounce_ms: 50\n  poll_seconds: 1\ndaily_logs:\n  timezone: UTC\n",
    )
    .unwrap();
    let daemon = Daemon::start(&root);
    let away = parent.path().join("ws-away");
    std::fs::rename(&root, &away).unwrap();
    // The state file went with the workspace, so the log is where the daemon says so.
    let log = || std::fs::read_to_string(&daemon.log).unwrap_or_default();
    wait_for(&daemon.log, "polling", || {
        log().contains("polling instead of watching")
    });
    assert!(
        !root.exists(),
        "the daemon recreated the vanished workspace"
    );
    std::fs::rename(&away, &root).unwrap();
    let state =
        |p: &Path| std::fs::read_to_string(p.join(".memsync/daemon.json")).unwrap_or_default();
    wait_for(&daemon.log, "watching again", || {
        state(&root).contains("\"watching\"")
    });
    memsync::compose::write_files(
        &root,
        &session("default", "w-back", recent(1)).files(&settings.config),
    )
    .unwrap();
    wait_for(&daemon.log, "a session written after the return", || {
        memory_md(&root).contains("session=w-back")
    });
    assert!(daemon.stop().success());
}

#[test]
fn the_window_rolls_with_no_file_event() {
    let ws = Workspace::new();
    // Future sessions are out of the window until their time comes.
    ws.add(&session(
        "default",
        "w-soon",
        Utc::now() + chrono::Duration::seconds(3),
    ));
    ws.add(&session("default", "w-now", recent(1)));
    let daemon = Daemon::start(ws.root());
    assert!(!memory_md(ws.root()).contains("session=w-soon"));
    wait_for(&daemon.log, "the session entering the window", || {
        memory_md(ws.root()).contains("session=w-soon")
    });
    assert!(daemon.stop().success());
}

#[test]
fn the_window_rolls_while_other_files_keep_changing() {
    let ws = Workspace::new();
    ws.add(&session(
        "default",
        "w-busy",
        Utc::now() + chrono::Duration::seconds(2),
    ));
    let daemon = Daemon::start(ws.root());
    assert!(!memory_md(ws.root()).contains("session=w-busy"));
    // A note edited every 20 ms keeps events (and batches) coming across the
    // moment the session enters the window: the roll must not be lost to them.
    let note = ws.root().join("scratch.md");
    let started = Instant::now();
    let mut i = 0;
    while !memory_md(ws.root()).contains("session=w-busy") {
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the window never rolled while a note was being edited; daemon log:\n{}",
            std::fs::read_to_string(&daemon.log).unwrap_or_default()
        );
        i += 1;
        std::fs::write(&note, format!("edit {i}\n")).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(daemon.stop().success());
}

#[test]
fn systemd_gets_watchdog_pings_within_the_interval() {
    let ws = Workspace::new();
    let (_dir, socket_path, socket) = notify_socket(Duration::from_secs(5));
    // systemd sets WATCHDOG_PID to the service's pid; `exec` keeps the shell's.
    let child = Command::new("sh")
        .arg("-c")
        .arg("WATCHDOG_PID=$$ exec \"$0\" --workspace \"$1\" watch")
        .arg(env!("CARGO_BIN_EXE_memsync"))
        .arg(ws.root())
        .env("NOTIFY_SOCKET", &socket_path)
        .env("WATCHDOG_USEC", "600000") // systemd kills a unit silent for 0.6 s
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut buf = [0u8; 256];
    let mut pings = Vec::new();
    let started = Instant::now();
    while pings.len() < 3 && started.elapsed() < Duration::from_secs(5) {
        let Ok(n) = socket.recv(&mut buf) else { break };
        if String::from_utf8_lossy(&buf[..n]).contains("WATCHDOG=1") {
            pings.push(Instant::now());
        }
    }
    assert!(terminate(child).success());
    assert_eq!(pings.len(), 3, "fewer than 3 watchdog pings in 5 s");
    for gap in pings.windows(2).map(|w| w[1] - w[0]) {
        assert!(
            gap < Duration::from_millis(600),
            "a {gap:?} gap would trip a 0.6 s watchdog"
        );
    }
}

/// A Claude Code transcript of one short session that ended an hour ago.
fn transcript_file(dir: &Path, session: &str) -> std::path::PathBuf {
    let at = |m: i64| memsync::contract::format_ts(recent(1) + chrono::Duration::minutes(m));
    let path = dir.join(format!("{session}.jsonl"));
    std::fs::write(
        &path,
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u-{session}\",\"sessionId\":\"{session}\",\"cwd\":\"/home/ana/shop\",\"timestamp\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"Fix src/pay.rs\"}}}}\n\
             {{\"type\":\"assistant\",\"uuid\":\"a-{session}\",\"sessionId\":\"{session}\",\"timestamp\":\"{}\",\"message\":{{\"id\":\"m\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"Fixed.\"}}]}}}}\n",
            at(0),
            at(5)
        ),
    )
    .unwrap();
    path
}

#[test]
fn captures_racing_the_daemon_converge_with_a_one_shot_sync() {
    let ws = Workspace::new();
    let daemon = Daemon::start(ws.root());
    let inputs = tempfile::tempdir().unwrap();
    let captures: Vec<Child> = (0..8)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_memsync"))
                .arg("--workspace")
                .arg(ws.root())
                .args(["-q", "capture", "session-end", "--transcript"])
                .arg(transcript_file(inputs.path(), &format!("race-{i}")))
                .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in captures {
        assert!(c.wait().unwrap().success());
    }
    wait_for(&daemon.log, "all eight sessions in MEMORY.md", || {
        (0..8).all(|i| memory_md(ws.root()).contains(&format!("session=race-{i} ")))
    });
    // Let the daemon see the last events, then compare with a one-shot sync of a copy.
    std::thread::sleep(Duration::from_millis(500));
    assert!(daemon.stop().success());
    let copy = tempfile::tempdir().unwrap();
    for (rel, bytes) in common::tree(ws.root()) {
        let path = copy.path().join(&rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(copy.path())
        .args(["-q", "sync"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .status()
        .unwrap();
    assert_eq!(common::tree(copy.path()), common::tree(ws.root()));
    assert_eq!(index_rows(copy.path()), index_rows(ws.root()));
    assert!(
        !index_rows(ws.root()).iter().any(|r| r.contains("graph.")),
        "no graph problem left behind"
    );
}

#[test]
fn a_hook_job_is_run_by_the_running_daemon() {
    use std::io::Write;
    let ws = Workspace::new();
    let daemon = Daemon::start(ws.root());
    let inputs = tempfile::tempdir().unwrap();
    let t = transcript_file(inputs.path(), "hooked");
    let mut hook = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws.root())
        .args(["capture", "--hook", "claude-code"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = serde_json::json!({"session_id": "hooked", "transcript_path": t, "hook_event_name": "SessionEnd"});
    hook.stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    assert!(hook.wait().unwrap().success());
    wait_for(&daemon.log, "the daemon to run the job", || {
        memory_md(ws.root()).contains("session=hooked ")
            && std::fs::read_to_string(&daemon.log)
                .unwrap_or_default()
                .contains("capture jobs")
    });
    let log = std::fs::read_to_string(&daemon.log).unwrap();
    assert!(log.contains("succeeded=1"), "{log}");
    assert!(daemon.stop().success());
}
