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
use common::{Workspace, memory_md, recent, session, tree};

pub use common::hardening::*;

/// The workspace's files and rows equal a fresh sync of a copy of its files.
fn assert_clean(ws: &Workspace, at: chrono::DateTime<Utc>, what: &str) {
    let leftovers: Vec<String> = tree(ws.root())
        .into_keys()
        .filter(|rel| {
            rel.rsplit('/')
                .next()
                .is_some_and(|name| name.starts_with('.'))
        })
        .collect();
    assert!(
        leftovers.is_empty(),
        "{what}: temporary files left behind: {leftovers:?}"
    );
    let (files, rows) = Workspace::copy_of(ws.root()).synced_state(at);
    assert_same_files(ws.root(), &files, what);
    assert_eq!(ws.content_rows(), rows, "{what}: index rows differ");
}

/// The files under `root` are exactly `want`; a difference is shown file by file.
fn assert_same_files(root: &Path, want: &std::collections::BTreeMap<String, Vec<u8>>, what: &str) {
    let ours = tree(root);
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: file set differs"
    );
    for (rel, bytes) in want {
        assert!(
            ours.get(rel) == Some(bytes),
            "{what}: {rel} differs:\n{}\n---expected---\n{}",
            String::from_utf8_lossy(&ours[rel]),
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn the_index_destroyed_under_the_daemon_is_rebuilt_from_markdown_and_logged() {
    for (i, fault) in INDEX_FAULTS.iter().enumerate() {
        let ws = Workspace::new();
        ws.add(&session("default", &format!("before-{i}"), recent(3)));
        let daemon = Daemon::start(ws.root());
        let index = ws.settings.index_path();
        match *fault {
            "deleted" => ws.delete_index(),
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
    let _immutable = common::Immutable::set(&state);
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
    let _immutable = common::Immutable::set(&ws.settings.state_dir());
    let out = ws.cli(&["sync"]).get_output().clone();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".memsync"), "{stderr}");
    assert_eq!(tree(ws.root()), before);
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
fn kill_after(cmd: Command, delay: Duration) -> bool {
    kill_logged_after(cmd, delay, Stdio::null())
}

/// [`kill_after`], with the command's stderr going to `log`.
fn kill_logged_after(mut cmd: Command, delay: Duration, log: Stdio) -> bool {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("spawn");
    std::thread::sleep(delay);
    let landed = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    landed
}

fn binary(ws: &Workspace, at: &str, args: &[&str]) -> Command {
    on_workspace(
        Command::new(env!("CARGO_BIN_EXE_memsync")),
        ws,
        Some(at),
        args,
    )
}

/// `cmd` (memsync, perhaps behind `setpriv`) on `ws` with no machine config,
/// at a fixed clock or (`None`) the real one.
fn on_workspace(mut cmd: Command, ws: &Workspace, at: Option<&str>, args: &[&str]) -> Command {
    cmd.env_remove("MEMSYNC_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC")
        .arg("--workspace")
        .arg(ws.root());
    if let Some(at) = at {
        cmd.args(["--now", at]);
    }
    cmd.args(args);
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
            ws.delete_index();
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

/// A plain-text transcript long enough that a capture takes a while.
fn transcript_text(run: usize) -> String {
    let mut t = String::new();
    for line in 0..400 {
        t.push_str(&format!(
            "user: run {run} step {line}: fix the retry loop in src/pay.rs\nassistant: patched src/pay.rs, the integration test passes (run {run}).\n"
        ));
    }
    t
}

fn capture_cmd(ws: &Workspace, run: usize, transcript: &Path) -> Command {
    let at = (common::now() + chrono::Duration::minutes(run as i64)).to_rfc3339();
    capture_session(ws, Some(&at), &format!("cap-{run:03}"), transcript)
}

/// `capture session-end` of a plain-text transcript as `session_id`.
fn capture_session(
    ws: &Workspace,
    at: Option<&str>,
    session_id: &str,
    transcript: &Path,
) -> Command {
    let args = [
        "capture",
        "session-end",
        "--project",
        "/home/dev/code/pay",
        "--session-id",
    ];
    let mut cmd = on_workspace(Command::new(env!("CARGO_BIN_EXE_memsync")), ws, at, &args);
    cmd.arg(session_id).arg("--transcript").arg(transcript);
    cmd
}

#[test]
fn kill_9_at_random_moments_of_capture_always_leaves_a_recoverable_state() {
    let (ws, reference) = (Workspace::new(), Workspace::new());
    for w in [&ws, &reference] {
        w.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    }
    let inputs = tempfile::tempdir().unwrap();
    let mut delays = Delays(0x2545_f491_4f6c_dd1d);
    let (mut landed, mut typical_ms) = (0, 100);
    for run in 0..KILL_CAPTURE_RUNS {
        let transcript = inputs.path().join(format!("t-{run}.txt"));
        std::fs::write(&transcript, transcript_text(run)).unwrap();
        let started = std::time::Instant::now();
        let out = capture_cmd(&reference, run, &transcript).output().unwrap();
        assert!(out.status.success(), "reference capture {run}: {out:?}");
        typical_ms = (started.elapsed().as_millis() as u64).max(5);

        let delay = Duration::from_millis(delays.next_ms(typical_ms));
        landed += usize::from(kill_after(capture_cmd(&ws, run, &transcript), delay));
        // Whatever the kill left, the next sync makes it the clean result...
        let out = binary(&ws, AT, &["sync"]).output().unwrap();
        assert!(
            out.status.success(),
            "run {run}: sync after the kill: {out:?}"
        );
        assert_clean(
            &ws,
            common::now(),
            &format!("capture run {run} (killed after {delay:?})"),
        );
        // ...and the harness's retry completes the session exactly.
        let out = capture_cmd(&ws, run, &transcript).output().unwrap();
        assert!(out.status.success(), "run {run}: retried capture: {out:?}");
    }
    eprintln!(
        "kill -9 during capture: {landed} of {KILL_CAPTURE_RUNS} kills landed mid-run (a capture takes ~{typical_ms} ms)"
    );
    assert!(
        landed >= KILL_CAPTURE_RUNS / 2,
        "only {landed} kills landed mid-run"
    );
    assert_same_files(
        ws.root(),
        &tree(reference.root()),
        "retried captures against uninterrupted ones",
    );
    assert_eq!(ws.content_rows(), reference.content_rows());
}

#[test]
fn sync_removes_only_the_temporary_files_of_memsync_writes_that_died() {
    let ws = Workspace::new();
    ws.add(&session("default", "tmp-1", common::now()));
    ws.sync();
    let dead = {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    };
    let ours_dead = format!(".MEMORY.md.memsync-{dead}.a1B2c3");
    let ours_alive = format!(".MEMORY.md.memsync-{}.d4E5f6", std::process::id());
    let rsync_style = "memory/.2026-11-20.md.Xy12Zq";
    for rel in [ours_dead.as_str(), ours_alive.as_str(), rsync_style] {
        ws.write(rel, "half a write");
    }
    ws.cli(&["sync"]).success();
    assert!(!ws.exists(&ours_dead), "a dead writer's temp file stays");
    assert!(
        ws.exists(&ours_alive),
        "a live writer's temp file was removed"
    );
    assert!(
        ws.exists(rsync_style),
        "a file memsync does not own was removed"
    );
}

/// memsync run as `nobody` (for root, through `setpriv`).
fn as_nobody() -> Command {
    let mut c = Command::new("setpriv");
    c.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        env!("CARGO_BIN_EXE_memsync"),
    ]);
    c
}

/// Runs the binary as an unprivileged user, so file permissions bind (root
/// reads everything). Under root that is `nobody` via `setpriv`, owning `root`.
fn unprivileged(ws: &Workspace, args: &[&str]) -> std::process::Output {
    let root_user = unsafe { libc::geteuid() } == 0;
    let cmd = if root_user {
        let ok = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(ws.root())
            .status()
            .unwrap();
        assert!(ok.success(), "chown the workspace to nobody");
        as_nobody()
    } else {
        Command::new(env!("CARGO_BIN_EXE_memsync"))
    };
    on_workspace(cmd, ws, Some(AT), args)
        .output()
        .expect("run memsync")
}

#[test]
fn an_unreadable_file_is_reported_and_its_last_good_rows_are_kept() {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    let files = ws.add(&session("default", "perm-a", common::now()));
    ws.add(&session("default", "perm-b", common::now()));
    // The dir tempfile made is 0700 root: let nobody in.
    std::fs::set_permissions(
        ws.root(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = unprivileged(&ws, &["sync"]);
    assert!(out.status.success(), "{out:?}");
    let summary = common::path_of(&files, "summary");
    let artifact = |ws: &Workspace| -> (String, i64) {
        ws.db()
            .query_row(
                "SELECT source_sha256, stale FROM artifacts WHERE source_path = ?1",
                [&summary],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("the artifact row")
    };
    let (sha, _) = artifact(&ws);
    let others = |ws: &Workspace| -> Vec<String> {
        ws.content_rows()
            .into_iter()
            .filter(|r| !r.starts_with(&format!("{summary:?}")))
            .collect()
    };
    let rows = others(&ws);
    // A sync tool replaces the file with one nobody may read.
    let path = ws.path(&summary);
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    let out = unprivileged(&ws, &["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.contains(&summary)
            && l.contains("read.io")
            && l.contains("ermission denied")),
        "{stdout}"
    );
    let out = unprivileged(&ws, &["sync"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("read.io"),
        "{out:?}"
    );
    assert!(
        ws.read("MEMORY.md").contains("session=perm-a "),
        "the unreadable session left MEMORY.md"
    );
    // Its artifact row is the last good one, marked stale; no other row moved
    // but the problem row that names it.
    assert_eq!(artifact(&ws), (sha, 1));
    let lost: Vec<String> = rows
        .iter()
        .filter(|r| !others(&ws).contains(r))
        .cloned()
        .collect();
    assert!(
        lost.is_empty(),
        "rows lost while the file was unreadable: {lost:?}"
    );
    // Readable again: the problem clears.
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = unprivileged(&ws, &["check"]);
    assert!(
        out.status.success() && !String::from_utf8_lossy(&out.stdout).contains("read.io"),
        "{out:?}"
    );
}

/// The disk-full script: a 1 MiB tmpfs (in a private mount namespace) holds the
/// workspace; the index lives outside it, so only the projection write meets
/// the full disk.
const DISK_FULL_SCRIPT: &str = r#"
set -eu
mount -t tmpfs -o size=1m tmpfs "$MNT"
cp -a "$SRC/." "$MNT/"
cp -a "$NEW/." "$MNT/memory/"
cp "$MNT/MEMORY.md" "$OUT/before.md"
dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true
set +e
"$BIN" --workspace "$MNT" --now "$AT" sync >"$OUT/full.out" 2>&1; echo $? >"$OUT/full.rc"
cp "$MNT/MEMORY.md" "$OUT/during.md"
ls -A "$MNT" >"$OUT/during.ls"
rm "$MNT/filler"
"$BIN" --workspace "$MNT" --now "$AT" sync >"$OUT/after.out" 2>&1; echo $? >"$OUT/after.rc"
cp "$MNT/MEMORY.md" "$OUT/after.md"
"#;

#[test]
fn a_full_disk_while_writing_a_projection_keeps_the_old_file_and_retries() {
    let tmp = tempfile::tempdir().unwrap();
    let (mnt, out, new) = (
        tmp.path().join("mnt"),
        tmp.path().join("out"),
        tmp.path().join("new"),
    );
    for d in [&mnt, &out, &new] {
        std::fs::create_dir_all(d).unwrap();
    }
    let ws = Workspace::new();
    // The index lives outside the small disk: a machine setting (a
    // workspace's memsync.yaml may not place files outside the workspace).
    let index = tmp.path().join("index.db");
    let machine = tmp.path().join("machine.yaml");
    std::fs::write(&machine, format!("index:\n  path: {index:?}\n")).unwrap();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    ws.add(&session("default", "full-old", common::now()));
    assert!(
        binary(&ws, AT, &["sync"])
            .env("MEMSYNC_CONFIG", &machine)
            .status()
            .unwrap()
            .success()
    );
    // The next session's files wait outside; the script adds them before filling the disk.
    let fresh = Workspace::new();
    for rel in fresh.add(&session("default", "full-new", common::now())) {
        std::fs::copy(
            fresh.path(&rel),
            new.join(rel.trim_start_matches("memory/")),
        )
        .unwrap();
    }
    let status = Command::new("unshare")
        .args(["--mount", "sh", "-c", DISK_FULL_SCRIPT])
        .env("MNT", &mnt)
        .env("SRC", ws.root())
        .env("NEW", &new)
        .env("OUT", &out)
        .env("BIN", env!("CARGO_BIN_EXE_memsync"))
        .env("AT", AT)
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("MEMSYNC_CONFIG", &machine)
        .status()
        .expect("unshare");
    assert!(
        status.success(),
        "the disk-full script failed (it needs mount rights)"
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    assert_ne!(
        read("full.rc").trim(),
        "0",
        "a sync that could not write MEMORY.md succeeded: {}",
        read("full.out")
    );
    assert!(
        read("full.out").contains("projection.write") && read("full.out").contains("No space left"),
        "{}",
        read("full.out")
    );
    assert_eq!(
        read("during.md"),
        read("before.md"),
        "the old MEMORY.md was not kept"
    );
    assert!(
        !read("during.ls").contains(".memsync-"),
        "a temporary file was left: {}",
        read("during.ls")
    );
    assert_eq!(read("after.rc").trim(), "0", "{}", read("after.out"));
    assert!(
        read("after.md").contains("session=full-new "),
        "the write was not retried"
    );
    assert!(read("after.md").contains("session=full-old "));
}

#[test]
fn sync_watch_and_two_captures_at_once_converge_to_the_clean_result() {
    let ws = Workspace::new();
    for i in 0..20 {
        ws.add(&session("default", &format!("busy-{i}"), recent(i + 1)));
    }
    let daemon = Daemon::start(ws.root());
    let inputs = tempfile::tempdir().unwrap();
    for round in 0..CONCURRENT_ROUNDS {
        let mut children = Vec::new();
        for side in ["a", "b"] {
            let transcript = inputs.path().join(format!("{round}-{side}.txt"));
            std::fs::write(&transcript, transcript_text(round)).unwrap();
            let mut cmd = capture_session(&ws, None, &format!("both-{round}-{side}"), &transcript);
            children.push((
                format!("capture {side}"),
                cmd.stderr(Stdio::piped()).spawn().unwrap(),
            ));
        }
        let mut sync = on_workspace(
            Command::new(env!("CARGO_BIN_EXE_memsync")),
            &ws,
            None,
            &["sync"],
        );
        children.push((
            "sync".into(),
            sync.stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        ));
        for (what, child) in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {what}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let both = || {
            let md = memory_md(ws.root());
            md.contains(&format!("session=both-{round}-a "))
                && md.contains(&format!("session=both-{round}-b "))
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        while !both() {
            if std::time::Instant::now() > deadline {
                let marks: Vec<String> = ws
                    .db()
                    .prepare("SELECT agent_id || ' ' || ts FROM projection_dirty")
                    .unwrap()
                    .query_map([], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let sessions: Vec<String> = ws.db().prepare("SELECT session_id || ' ' || membership_ts FROM sessions WHERE session_id LIKE 'both-%'").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
                panic!(
                    "round {round}: MEMORY.md:\n{}\nmarks {marks:?}\nsessions {sessions:?}",
                    memory_md(ws.root())
                );
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(daemon.stop().success());
    assert_clean(&ws, Utc::now(), "after the concurrent rounds");
}

#[test]
fn every_hostile_input_is_handled_on_its_own_file_and_harms_nothing_else() {
    for case in HOSTILE_INPUTS {
        let ws = Workspace::new();
        let bystander = ws.add(&session(
            "default",
            "bystander",
            common::ts("2026-11-19T09:00:00Z"),
        ));
        ws.sync();
        let bystander_rows: Vec<String> = ws
            .content_rows()
            .into_iter()
            .filter(|r| bystander.iter().any(|p| r.contains(p.as_str())))
            .collect();
        let bystander_line = |md: &str| {
            md.lines()
                .find(|l| l.contains("session=bystander "))
                .map(String::from)
        };
        let line_before = bystander_line(&ws.read("MEMORY.md"));

        let path = (case.plant)(&ws);
        let started = std::time::Instant::now();
        let report = ws.sync();
        let problems: Vec<_> = ws
            .check()
            .problems
            .into_iter()
            .filter(|p| p.path == path)
            .collect();
        let what = format!("{} ({path})", case.input);
        // Bombs and deep nesting are refused, not chewed on.
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what}: took {:?}",
            started.elapsed()
        );
        match case.outcome {
            Outcome::Reported(rule) => assert!(
                problems
                    .iter()
                    .any(|p| p.rule == rule && !p.reason.is_empty()),
                "{what}: no {rule}: {problems:?}"
            ),
            Outcome::Accepted | Outcome::Inert => {
                assert!(
                    problems
                        .iter()
                        .all(|p| p.severity != memsync::validate::Severity::Error),
                    "{what}: {problems:?}"
                );
                assert!(
                    ws.content_rows().iter().any(|r| r.contains(path.as_str())),
                    "{what}: not indexed"
                );
            }
        }
        for rel in report
            .projections_written
            .iter()
            .chain(["MEMORY.md".to_string()].iter())
        {
            if ws.exists(rel) {
                assert_structural(rel, &ws.read(rel));
            }
        }
        let now_rows = ws.content_rows();
        for row in &bystander_rows {
            assert!(
                now_rows.contains(row),
                "{what}: a bystander row changed: {row}"
            );
        }
        assert_eq!(
            bystander_line(&ws.read("MEMORY.md")),
            line_before,
            "{what}: the bystander's ledger row changed"
        );
    }
}

#[test]
fn no_command_reads_writes_or_deletes_through_a_symlinked_directory() {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    ws.add(&session(
        "default",
        "inside",
        common::ts("2026-11-19T10:00:00Z"),
    ));
    assert!(binary(&ws, AT, &["sync"]).status().unwrap().success());
    // Someone swaps memory/ for a link to a directory outside the workspace.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("memory");
    std::fs::rename(ws.path("memory"), &target).unwrap();
    std::os::unix::fs::symlink(&target, ws.path("memory")).unwrap();
    let before = tree(outside.path());

    let out = binary(&ws, AT, &["sync"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("memory: warning: path.symlink"), "{stdout}");
    let transcript = outside.path().join("t.txt");
    std::fs::write(&transcript, transcript_text(0)).unwrap();
    let capture = capture_cmd(&ws, 0, &transcript).output().unwrap();
    assert_eq!(capture.status.code(), Some(3), "{capture:?}");
    assert!(
        String::from_utf8_lossy(&capture.stderr).contains("symbolic link"),
        "{capture:?}"
    );
    let forget = binary(&ws, AT, &["forget", "inside", "--reason", "test"])
        .output()
        .unwrap();
    assert!(!forget.status.success(), "{forget:?}");
    let said = String::from_utf8_lossy(&forget.stderr);
    assert_eq!(said.matches("symbolic link").count(), 1, "{said}");

    std::fs::remove_file(&transcript).unwrap();
    assert_eq!(
        tree(outside.path()),
        before,
        "a file outside the workspace changed"
    );
}

/// The socket inodes of every TCP, UDP and raw socket on this host.
fn network_socket_inodes() -> Vec<String> {
    let mut inodes = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6", "raw", "raw6"] {
        let text = std::fs::read_to_string(format!("/proc/net/{table}")).unwrap_or_default();
        // Columns: sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
        inodes.extend(
            text.lines()
                .skip(1)
                .filter_map(|l| l.split_whitespace().nth(9))
                .map(String::from),
        );
    }
    inodes
}

#[test]
fn the_daemon_opens_no_network_socket() {
    let ws = Workspace::new();
    ws.add(&session("default", "net", recent(1)));
    let daemon = Daemon::start(ws.root());
    let ours: Vec<String> = std::fs::read_dir(format!("/proc/{}/fd", daemon.pid()))
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|t| {
            let t = t.to_string_lossy().into_owned();
            Some(t.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect();
    // Its only sockets are tokio's signal socketpair, which no network table lists.
    let network = network_socket_inodes();
    let open: Vec<&String> = ours.iter().filter(|i| network.contains(i)).collect();
    assert!(open.is_empty(), "the daemon holds network sockets {open:?}");
    assert!(daemon.stop().success());
}

/// Runs the binary where it may read the workspace but not write it: as
/// `nobody` under root (the files stay root's), else with write permission
/// taken away for the run.
fn read_only(ws: &Workspace, args: &[&str]) -> std::process::Output {
    if unsafe { libc::geteuid() } == 0 {
        return on_workspace(as_nobody(), ws, Some(AT), args)
            .output()
            .expect("run memsync");
    }
    let chmod = |mode: &str| {
        let ok = Command::new("chmod")
            .args(["-R", mode])
            .arg(ws.root())
            .status();
        assert!(ok.is_ok_and(|s| s.success()), "chmod {mode}");
    };
    chmod("a-w");
    let out = on_workspace(
        Command::new(env!("CARGO_BIN_EXE_memsync")),
        ws,
        Some(AT),
        args,
    )
    .output()
    .expect("run memsync");
    chmod("u+w");
    out
}

/// A synced workspace with sessions `ro-alpha` and `ro-beta` that others may read.
fn readable_workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    ws.add(&session("default", "ro-alpha", common::now()));
    ws.add(&session("default", "ro-beta", common::now()));
    ws.cli(&["sync"]).success();
    // Let nobody in to read (tempfile made the dir 0700).
    std::fs::set_permissions(
        ws.root(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    ws
}

#[test]
fn a_read_only_workspace_still_answers_search_status_check_and_open() {
    let ws = readable_workspace();
    let before = common::tree(ws.root());
    for (args, expect) in [
        (&["search", "ro-alpha"][..], "ro-alpha"),
        (&["status"], "2 sessions"),
        (&["check"], "0 errors, 0 warnings"),
        (&["open", "ro-beta"], "ro-beta"),
    ] {
        let out = read_only(&ws, args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
        assert!(stdout.contains(expect), "{args:?}: {stdout}");
        assert!(
            stderr.contains("scratch index"),
            "{args:?} says why: {stderr}"
        );
    }
    assert!(
        common::tree(ws.root()) == before,
        "nothing in the workspace was written"
    );
}

/// `mcp` answers a read-only workspace as `search` does: from a scratch index.
#[test]
fn a_read_only_workspace_is_served_over_mcp() {
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to run as nobody (setpriv)");
        return;
    }
    let ws = readable_workspace();
    let before = common::tree(ws.root());
    let mut child = on_workspace(as_nobody(), &ws, Some(AT), &["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run memsync mcp");
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"ro-alpha"}}}"#,
    ];
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        for r in requests {
            writeln!(stdin, "{r}").unwrap();
        }
        // Give the server the call before closing its input.
        std::thread::sleep(std::time::Duration::from_millis(1500));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("\"id\":2") && stdout.contains("ro-alpha"),
        "{stdout}{stderr}"
    );
    assert!(stderr.contains("scratch index"), "{stderr}");
    assert!(
        common::tree(ws.root()) == before,
        "nothing in the workspace was written"
    );
}

#[test]
fn kill_9_across_daemon_capture_sync_and_rebuild_leaves_every_command_working() {
    let ws = Workspace::new();
    ws.write("memsync.yaml", "daily_logs:\n  timezone: UTC\n");
    for i in 0..20 {
        ws.add(&session(
            "default",
            &format!("mix-{i:03}"),
            common::now() - chrono::Duration::hours(i),
        ));
    }
    let inputs = tempfile::tempdir().unwrap();
    let daemon_log = inputs.path().join("daemon.log");
    let mut delays = Delays(0x51_7cc1_b727_220a);
    let mut landed = 0;
    // Kills land within the time the last uninterrupted run of the kind took.
    let mut typical_ms = [400, 100, 100, 100];
    for run in 0..KILL_MIXED_RUNS {
        ws.add(&session(
            "default",
            &format!("mix-run-{run:03}"),
            common::now() - chrono::Duration::minutes(run as i64),
        ));
        let transcript = inputs.path().join(format!("t-{run}.txt"));
        std::fs::write(&transcript, transcript_text(run)).unwrap();
        let kind = run % 4;
        let command = |ws: &Workspace| match kind {
            0 => ("daemon", binary_now(ws, &["watch"])),
            1 => ("capture", capture_cmd(ws, run, &transcript)),
            2 => ("sync", binary(ws, AT, &["sync"])),
            _ => ("rebuild", binary(ws, AT, &["reindex"])),
        };
        let (what, cmd) = command(&ws);
        let delay = Duration::from_millis(delays.next_ms(typical_ms[kind]) + 1);
        landed += usize::from(if what == "daemon" {
            let log = std::fs::File::options()
                .create(true)
                .append(true)
                .open(&daemon_log);
            kill_logged_after(cmd, delay, Stdio::from(log.unwrap()))
        } else {
            kill_after(cmd, delay)
        });
        // Whatever the kill left, every reading command answers.
        for args in [&["status"][..], &["search", "mix"], &["check"]] {
            let out = binary(&ws, AT, args).output().unwrap();
            let code = out.status.code();
            assert!(
                code == Some(0) || (args == ["check"] && code == Some(1)),
                "run {run}, {what} killed after {delay:?}: {args:?} failed: {out:?}"
            );
        }
        if kind != 0 {
            let started = std::time::Instant::now();
            let out = command(&ws).1.output().unwrap();
            assert!(out.status.success(), "run {run}: {what} again: {out:?}");
            typical_ms[kind] = (started.elapsed().as_millis() as u64).max(5);
        }
    }
    let out = binary(&ws, AT, &["sync"]).output().unwrap();
    assert!(out.status.success(), "the last sync: {out:?}");
    let (_, clean_rows) = Workspace::copy_of(ws.root()).synced_state(common::now());
    assert_eq!(ws.content_rows(), clean_rows, "rows equal a clean build");
    let log = std::fs::read_to_string(&daemon_log).unwrap_or_default();
    assert!(
        !log.contains("constraint failed"),
        "the daemon logged: {log}"
    );
    eprintln!(
        "kill -9 across daemon, capture, sync and rebuild: {landed} of {KILL_MIXED_RUNS} kills landed mid-run"
    );
    assert!(
        landed >= KILL_MIXED_RUNS / 2,
        "only {landed} kills landed mid-run"
    );
}

/// memsync on the real clock (the daemon refuses `--now`).
fn binary_now(ws: &Workspace, args: &[&str]) -> Command {
    on_workspace(Command::new(env!("CARGO_BIN_EXE_memsync")), ws, None, args)
}
