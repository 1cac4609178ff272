//! Nothing hangs on what it reads and nothing panics on a number: a FIFO
//! named like an artifact, a FIFO or a device given as a transcript, and a
//! config number no date can hold each get a clear answer within seconds.

mod common;

use std::time::Duration;

use common::{Workspace, memsync_bin};

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `cmd` on `ws`, which must answer within five seconds.
fn answers(ws: &Workspace, args: &[&str]) -> std::process::Output {
    memsync_bin()
        .args(["--workspace", ws.root().to_str().unwrap()])
        .args(args)
        .timeout(Duration::from_secs(5))
        .output()
        .unwrap()
}

#[test]
fn a_fifo_named_like_an_artifact_is_reported_not_read() {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    mkfifo(&ws.path("memory/2026-11-20T08-18-00.000Z--aaaaaaaaaaaaaaaa--summary.md"));
    for args in [&["sync"][..], &["check"], &["reindex"]] {
        let out = answers(&ws, args);
        assert!(out.status.code().is_some(), "{args:?} timed out: {out:?}");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {out:?}"
        );
    }
    let out = answers(&ws, &["check"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("a FIFO, not a regular file"), "{said}");
}

#[test]
fn a_fifo_or_a_device_as_a_transcript_is_refused_at_once() {
    let ws = Workspace::new();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("session.jsonl");
    mkfifo(&fifo);
    for transcript in [fifo.to_str().unwrap(), "/dev/zero", "/dev/urandom"] {
        let out = answers(
            &ws,
            &[
                "capture",
                "session-end",
                "--harness",
                "claude-code",
                "--transcript",
                transcript,
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_some_and(|c| c != 0),
            "{transcript}: {out:?}"
        );
        assert!(
            stderr.contains("not a regular file"),
            "{transcript}: {stderr}"
        );
    }
}

#[test]
fn a_window_no_date_can_hold_is_a_config_error_not_a_panic() {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    ws.write("memsync.yaml", "memory_md:\n  window_days: 100000000\n");
    for args in [&["status"][..], &["sync"], &["context"]] {
        let out = answers(&ws, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("window_days"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn deeply_nested_yaml_is_refused_before_it_is_parsed() {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    let deep = "[".repeat(60 * 1024);
    ws.write(
        "memory/2026-11-20T08-18-00.000Z--bbbbbbbbbbbbbbbb--summary.md",
        &format!("---\nkind: summary\nx: {deep}\n---\nbody\n"),
    );
    let out = answers(&ws, &["check"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("levels deep"), "{said}");
    ws.write("memsync.yaml", &format!("memory_md: {deep}\n"));
    let out = answers(&ws, &["status"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("levels deep"), "{stderr}");
}

/// A Claude Code session whose first line is over the line limit (a huge
/// pasted prompt) is still recognised: the line is cut inside its long
/// string and keeps its JSON shape, so neither detection nor the sentence
/// sees raw JSON.
#[test]
fn a_session_whose_first_line_is_over_the_limit_is_still_recognised() {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "capture:\n  max_transcript_bytes: 100000\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0.jsonl");
    let paste = "lorem ipsum ".repeat(30_000);
    let first = serde_json::json!({
        "type": "user", "uuid": "u1", "sessionId": "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
        "cwd": "/home/ana/shop", "timestamp": "2026-11-20T10:00:00.000Z",
        "message": {"role": "user", "content": format!("Fix the retry in src/pay.rs: {paste}")}
    });
    let reply = serde_json::json!({
        "type": "assistant", "uuid": "a1", "sessionId": "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
        "cwd": "/home/ana/shop", "timestamp": "2026-11-20T10:05:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Fixed the retry in src/pay.rs."}]}
    });
    std::fs::write(&path, format!("{first}\n{reply}\n")).unwrap();
    let out = answers(
        &ws,
        &[
            "--json",
            "capture",
            "session-end",
            "--transcript",
            path.to_str().unwrap(),
        ],
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = std::fs::read_dir(ws.path("memory"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with("--summary.md"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a summary");
    assert!(
        summary.contains("harness: \"claude-code\""),
        "{}",
        &summary[..600]
    );
    let sentence = summary
        .lines()
        .find(|l| l.starts_with("memory_sentence:"))
        .unwrap();
    assert!(!sentence.contains("{\\\"type"), "{sentence}");
    assert!(sentence.contains("retry"), "{sentence}");
}

/// The daemon starts beside a FIFO named like an artifact (it used to hang in
/// its start-up reconcile and then ignore SIGTERM) and answers SIGTERM
/// within a second.
#[test]
fn the_daemon_starts_beside_a_fifo_and_stops_within_a_second_of_sigterm() {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    mkfifo(&ws.path("memory/2026-11-20T08-18-00.000Z--aaaaaaaaaaaaaaaa--summary.md"));
    let daemon = common::daemon::Daemon::start(ws.root());
    let pid = daemon.pid();
    let started = std::time::Instant::now();
    // SAFETY: a signal to the daemon this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = daemon.stop();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "stopped after {:?}",
        started.elapsed()
    );
    assert!(status.code().is_some(), "{status:?}");
}

/// Special files where memsync reads: a FIFO, a socket, a device node and a
/// dangling link, each under every folder memsync walks (issue 68: a FIFO
/// named `notes/x.md` hung sync, check and reindex).
fn plant_everywhere(ws: &Workspace) -> Vec<std::path::PathBuf> {
    let mut planted = Vec::new();
    for dir in [
        "",
        "memory",
        "notes",
        "notes/claude-code",
        "agents/main",
        "memory/tombstones",
    ] {
        let d = ws.path(dir);
        std::fs::create_dir_all(&d).unwrap();
        let fifo = d.join("fifo-note.md");
        mkfifo(&fifo);
        let socket = d.join("socket-note.md");
        let _keep = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        std::mem::forget(_keep);
        let device = d.join("device-note.md");
        let made = std::process::Command::new("mknod")
            .arg(&device)
            .args(["c", "1", "3"])
            .status()
            .is_ok_and(|s| s.success());
        let link = d.join("dangling-note.md");
        std::os::unix::fs::symlink(d.join("nowhere.md"), &link).unwrap();
        planted.extend([fifo, socket, link]);
        if made {
            planted.push(device);
        }
    }
    // MEMORY.md and today's daily log themselves.
    let memory = ws.path("MEMORY.md");
    let _ = std::fs::remove_file(&memory);
    mkfifo(&memory);
    planted.push(memory);
    planted
}

fn modes(paths: &[std::path::PathBuf]) -> Vec<(String, u32)> {
    use std::os::unix::fs::MetadataExt;
    paths
        .iter()
        .map(|p| {
            let mode = std::fs::symlink_metadata(p).map_or(0, |m| m.mode());
            (p.display().to_string(), mode)
        })
        .collect()
}

#[test]
fn special_files_in_every_folder_memsync_walks_are_answered_within_seconds_and_left_as_they_are() {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    let planted = plant_everywhere(&ws);
    let before = modes(&planted);
    for args in [
        &["sync"][..],
        &["check"],
        &["reindex"],
        &["status"],
        &["search", "hello"],
        &["context"],
        &["sync", "--full"],
    ] {
        let out = answers(&ws, args);
        assert!(
            out.status.code().is_some(),
            "{args:?} hung: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(modes(&planted), before, "a special file's mode changed");
}

#[test]
fn a_device_or_a_fifo_named_as_the_index_is_refused_before_anything_touches_it() {
    use std::os::unix::fs::MetadataExt;
    let ws = Workspace::new();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("index.db");
    mkfifo(&fifo);
    let device = dir.path().join("null");
    let device_made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    let foreign = dir.path().join("notes.txt");
    std::fs::write(&foreign, "someone's file\n").unwrap();
    let mut targets = vec![fifo, foreign];
    if device_made {
        std::fs::set_permissions(&device, std::os::unix::fs::PermissionsExt::from_mode(0o666))
            .unwrap();
        targets.push(device);
    }
    for target in targets {
        let before = std::fs::symlink_metadata(&target).unwrap().mode();
        let config = dir.path().join("config.yaml");
        std::fs::write(&config, format!("index:\n  path: {}\n", target.display())).unwrap();
        let out = memsync_bin()
            .args(["--config", config.to_str().unwrap()])
            .args(["--workspace", ws.root().to_str().unwrap(), "sync"])
            .timeout(Duration::from_secs(5))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}: {out:?}", target.display());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not memsync's index"),
            "{out:?}"
        );
        assert_eq!(
            std::fs::symlink_metadata(&target).unwrap().mode(),
            before,
            "{}'s mode changed",
            target.display()
        );
        assert!(
            !dir.path()
                .join(format!("{}-wal", target.display()))
                .exists()
        );
    }
}

#[test]
fn dev_null_as_the_machine_config_means_no_config() {
    let ws = Workspace::new();
    let out = memsync_bin()
        .env("MEMSYNC_CONFIG", "/dev/null")
        .args(["--workspace", ws.root().to_str().unwrap(), "status"])
        .timeout(Duration::from_secs(5))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
