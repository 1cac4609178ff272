//! Writers that keep a projection open (a logger, `fs.createWriteStream(p,
//! {flags: 'a'})`, a shell's `exec >>`) lose no line to memsync's renders
//! (issue 43, item 3): the daemon follows the file it replaced for as long as
//! the writer holds it, and a one-shot command leaves a held file alone.

mod common;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::daemon::{Daemon, wait_for};
use common::lines::{LineCount, numbered};
#[cfg(target_os = "linux")]
use common::stall::StalledWriter;
use common::{Workspace, session, ts};
#[cfg(target_os = "linux")]
use memsync::files::{HeldFiles, WhileHeld, replace_preserving_appends};

const LINES: usize = 100_000;
const LOG: &str = "memory/2026-11-20.md";

fn day() -> chrono::DateTime<chrono::Utc> {
    ts("2026-11-20T09:00:00Z")
}

/// A workspace whose daily log memsync has rendered once, and its path.
fn rendered_log() -> (Workspace, std::path::PathBuf) {
    let ws = Workspace::new();
    ws.add(&session("default", "first", day()));
    ws.sync();
    let log = ws.path(LOG);
    (ws, log)
}

/// A second session that day: the next render rewrites the log.
fn add_second_session(ws: &Workspace) {
    ws.add(&session(
        "default",
        "second",
        day() + chrono::Duration::hours(1),
    ));
}

/// Opens `path` to append, once, as a logger does.
fn open_to_append(path: &std::path::Path) -> std::fs::File {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append")
}

#[test]
fn a_writer_holding_the_daily_log_open_loses_no_line_while_the_daemon_renders_it() {
    let (ws, log) = rendered_log();
    let daemon = Daemon::start(ws.root());

    // One open for the whole run, 100,000 writes through it.
    let done = Arc::new(AtomicBool::new(false));
    let writer = std::thread::spawn({
        let (log, done) = (log.clone(), done.clone());
        move || {
            let mut file = open_to_append(&log);
            for i in 0..LINES {
                file.write_all(numbered("held", i).as_bytes())
                    .expect("write");
                if i % 40 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            // Still open a while after its last line, as a logger is.
            std::thread::sleep(Duration::from_millis(300));
            done.store(true, Ordering::SeqCst);
        }
    });
    // New sessions make the daemon rewrite the log while the writer holds it.
    let mut added = 0;
    while !done.load(Ordering::SeqCst) {
        added += 1;
        let at = day() + chrono::Duration::seconds(added);
        ws.add(&session("default", &format!("s{added}"), at));
        std::thread::sleep(Duration::from_millis(120));
    }
    writer.join().expect("writer");
    let last = format!("session=s{added}");
    wait_for(&daemon.log, "every held line and the last session", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains(&last) && LineCount::of(&text, "held", LINES).lost.is_empty()
    });
    let text = std::fs::read_to_string(&log).expect("read");
    let count = LineCount::of(&text, "held", LINES);
    assert!(
        count.is_whole(),
        "{} over {added} sessions",
        count.summary(LINES)
    );
    assert_eq!(text.matches("<!-- memsync:begin").count(), 1);
    // The log was rewritten while the writer held it, not only after.
    let log_text = std::fs::read_to_string(&daemon.log).expect("daemon log");
    assert!(added >= 5, "only {added} sessions overlapped the writes");
    assert!(daemon.stop().success());
    assert!(
        !log_text.contains("left for later"),
        "the daemon never leaves a held file alone"
    );
}

/// A daemon stopped (an upgrade, `systemctl restart`) while a logger holds
/// the replaced log: the next daemon finds the file again by its inode and
/// copies what was written meanwhile.
#[cfg(target_os = "linux")]
#[test]
fn a_writer_holding_the_log_across_a_daemon_restart_loses_no_line() {
    const N: usize = 500;
    let (ws, log) = rendered_log();
    let mut writer = open_to_append(&log);
    writer
        .write_all(numbered("held", 0).as_bytes())
        .expect("write");
    let daemon = Daemon::start(ws.root());
    add_second_session(&ws);
    wait_for(
        &daemon.log,
        "the log rewritten with the writer's line",
        || {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            text.contains("session=second") && text.contains("- held line 0")
        },
    );
    assert!(daemon.stop().success());
    assert!(
        ws.path(".memsync/held-files.json").exists(),
        "recorded at stop"
    );
    // Written while no daemon runs: into the file memsync replaced.
    for i in 1..N {
        writer
            .write_all(numbered("held", i).as_bytes())
            .expect("write");
    }
    let daemon = Daemon::start(ws.root());
    wait_for(&daemon.log, "every line written while stopped", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        LineCount::of(&text, "held", N).lost.is_empty()
    });
    drop(writer);
    let text = std::fs::read_to_string(&log).expect("read");
    let count = LineCount::of(&text, "held", N);
    assert!(count.is_whole(), "{}", count.summary(N));
    assert!(daemon.stop().success());
    assert!(
        !ws.path(".memsync/held-files.json").exists(),
        "nothing left to follow"
    );
}

#[test]
fn a_one_shot_sync_leaves_a_held_daily_log_alone_and_renders_it_once_the_writer_closes() {
    let (ws, log) = rendered_log();
    let mut writer = open_to_append(&log);
    writer
        .write_all(numbered("held", 0).as_bytes())
        .expect("write");
    add_second_session(&ws);

    let before = std::fs::read(&log).expect("read");
    let started = Instant::now();
    let report = ws.sync();
    assert_eq!(report.projections_held, vec![LOG.to_string()]);
    assert!(!report.projections_written.iter().any(|p| p == LOG));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a held file costs a short wait, not a hang"
    );
    assert_eq!(
        std::fs::read(&log).expect("read"),
        before,
        "left byte for byte"
    );
    // Written after the sync: it lands in the same file, which memsync left alone.
    writer
        .write_all(numbered("held", 1).as_bytes())
        .expect("write");
    drop(writer);

    let report = ws.sync();
    assert!(report.projections_held.is_empty());
    assert!(report.projections_written.iter().any(|p| p == LOG));
    let text = std::fs::read_to_string(&log).expect("read");
    assert!(text.contains("session=second"), "{text}");
    assert!(LineCount::of(&text, "held", 2).is_whole(), "{text}");
}

#[test]
fn sync_says_which_files_it_left_because_a_writer_holds_them() {
    let (ws, log) = rendered_log();
    let _writer = open_to_append(&log);
    add_second_session(&ws);
    let out = ws.cli(&["sync"]).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("another process holds them open for writing): memory/2026-11-20.md"),
        "{stdout}"
    );
}

/// Issue 68: a one-shot capture skipped a daily log another process held
/// and said nothing (only `status` called it stale); its report names it.
#[test]
fn a_one_shot_capture_says_which_daily_log_it_left_because_a_writer_holds_it() {
    let (ws, log) = rendered_log();
    let _writer = open_to_append(&log);
    let transcript = ws.path("in.jsonl");
    std::fs::write(
        &transcript,
        r#"{"type":"user","uuid":"u1","sessionId":"held-1","cwd":"/home/ana/shop","timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"user","content":"add a retry to the payment client"}}"#,
    )
    .expect("write");
    let out = ws
        .cli(&[
            "capture",
            "session-end",
            "--transcript",
            transcript.to_str().expect("utf-8"),
        ])
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("another process holds them open for writing): memory/2026-11-20.md"),
        "{stdout}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_held_half_visible_across_a_page_is_never_cut_by_renders_around_it() {
    let Some(mut stalled) = StalledWriter::new(Duration::from_millis(30)) else {
        eprintln!(
            "skipped: this system does not allow userfaultfd (root or vm.unprivileged_userfaultfd)"
        );
        return;
    };
    const STALLED: usize = 40;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("log.md");
    std::fs::write(&path, "# render 0\n").expect("write");
    let held = HeldFiles::start(|| false, None).expect("follower");

    // 100,000 short lines, one open-write-close each, as `echo >>` does...
    let plain_done = Arc::new(AtomicBool::new(false));
    let plain = std::thread::spawn({
        let (path, done) = (path.clone(), plain_done.clone());
        move || {
            for i in 0..LINES {
                open_to_append(&path)
                    .write_all(numbered("plain", i).as_bytes())
                    .expect("append");
                if i % 500 == 0 {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            done.store(true, Ordering::SeqCst);
        }
    });
    // ...and long lines whose single write stalls half visible.
    let long = |j: usize| format!("- stalled line {j} {}\n", "x".repeat(3000));
    let stalled_done = Arc::new(AtomicBool::new(false));
    let stalling = std::thread::spawn({
        let (path, done) = (path.clone(), stalled_done.clone());
        move || {
            for j in 0..STALLED {
                stalled.append(&path, long(j).as_bytes());
                std::thread::sleep(Duration::from_millis(5));
            }
            done.store(true, Ordering::SeqCst);
            stalled.seen_half.load(Ordering::SeqCst)
        }
    });
    let mut renders = 0;
    while !(plain_done.load(Ordering::SeqCst) && stalled_done.load(Ordering::SeqCst)) {
        renders += 1;
        replace_preserving_appends(&path, WhileHeld::Follow(&held), |text| {
            let rest = text.split_once('\n').map_or("", |(_, rest)| rest);
            Some(format!("# render {renders}\n{rest}"))
        })
        .expect("render");
    }
    plain.join().expect("plain writer");
    let seen_half = stalling.join().expect("stalled writer");
    drop(held);

    let text = std::fs::read_to_string(&path).expect("read");
    let count = LineCount::of(&text, "plain", LINES);
    assert!(
        count.is_whole(),
        "{} over {renders} renders",
        count.summary(LINES)
    );
    for j in 0..STALLED {
        let line = long(j);
        assert_eq!(text.matches(&line).count(), 1, "stalled line {j}");
    }
    assert!(
        seen_half > STALLED / 2,
        "only {seen_half} of {STALLED} writes were seen half done: the stall did not work"
    );
    eprintln!("{renders} renders, {seen_half} of {STALLED} writes seen half done");
}
