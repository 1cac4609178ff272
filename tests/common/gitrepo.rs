//! Real git repositories for the tests of git-synced workspaces: clones,
//! commits, the daemon's settling, and a pull that may fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::daemon::Daemon;

pub fn git(dir: &Path, args: &[&str]) -> String {
    try_git(dir, args)
        .unwrap_or_else(|e| panic!("git {} failed in {}:\n{e}", args.join(" "), dir.display()))
}

pub fn memsync(root: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    cmd(root, args).assert()
}

pub fn cmd(root: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut c = super::memsync_bin();
    c.arg("--workspace").arg(root).args(args);
    c
}

/// A repository with an identity, UTC days, fast batches and `git setup` done.
/// Agents write these daily logs (the pull tests' scenario), so the daemon
/// commits whole files, as docs/OPERATIONS.md says such a machine should.
pub fn init_repo(dir: &Path) {
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    git(dir, &["config", "pull.rebase", "false"]);
    std::fs::write(
        dir.join("memsync.yaml"),
        "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\ngit:\n  commit_quiet_ms: 1000\n  commit_scope: file\n",
    )
    .unwrap();
    memsync(dir, &["git", "setup"]).success();
}

/// A Claude Code transcript of a session that ended `minutes_ago`.
pub fn transcript(dir: &Path, session: &str, minutes_ago: i64) -> PathBuf {
    let at =
        memsync::contract::format_ts(chrono::Utc::now() - chrono::Duration::minutes(minutes_ago));
    let path = dir.join(format!("{session}.jsonl"));
    std::fs::write(
        &path,
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"{session}\",\"cwd\":\"/home/ana/shop\",\"timestamp\":\"{at}\",\"message\":{{\"role\":\"user\",\"content\":\"Work on src/{session}.rs\"}}}}\n"
        ),
    )
    .unwrap();
    path
}

pub fn capture(root: &Path, inputs: &Path, session: &str, minutes_ago: i64) {
    let t = transcript(inputs, session, minutes_ago);
    cmd(root, &["-q", "capture", "session-end", "--transcript"])
        .arg(t)
        .assert()
        .success();
}

/// MEMORY.md files and daily logs, as memsync classifies them.
pub fn is_projection(path: &str) -> bool {
    memsync::scan::classify(path) == memsync::scan::FileClass::Projection
}

/// memsync's block in `text` (empty when it has none).
fn memsyncs_block(text: &str) -> &str {
    memsync::project::file::block_range(text).map_or("", |(b, e)| &text[b..e])
}

/// Whether the projection at `rel` holds a block HEAD does not: something
/// of memsync's still to commit (lines around the block are the agent's or
/// the person's, which the daemon leaves to them).
fn block_uncommitted(root: &Path, rel: &str) -> bool {
    let here = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
    let head = try_git(root, &["show", &format!("HEAD:{rel}")]).unwrap_or_default();
    memsyncs_block(&here).trim_end() != memsyncs_block(&head).trim_end()
}

/// Waits until the daemon has rendered and committed: no projection's block
/// has differed from HEAD's for 1.5 s (the daemon commits after a quiet
/// second, as these workspaces configure it).
pub fn settle(root: &Path, daemon: &Daemon) {
    let dirty = || {
        let out = git(root, &["status", "--porcelain", "--untracked-files=all"]);
        out.lines()
            .filter(|l| is_projection(l.get(3..).unwrap_or("")))
            .filter(|l| block_uncommitted(root, l.get(3..).unwrap_or("")))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut clean_since: Option<Instant> = None;
    loop {
        if dirty().is_empty() {
            let since = *clean_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= Duration::from_millis(1500) {
                return;
            }
        } else {
            clean_since = None;
        }
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(&daemon.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().filter(|l| !l.contains("DEBUG")).collect();
            let diff = git(root, &["diff"]);
            // What the daemon's commit looks at: HEAD's history, the index
            // entries (a staged blob it takes for the person's is left
            // alone) and the autostash entries a pull left.
            let state = [
                git(root, &["log", "--oneline", "-5"]),
                git(root, &["ls-files", "-s", "--", "MEMORY.md"]),
                git(root, &["stash", "list"]),
            ]
            .join("\n");
            let keep = std::env::temp_dir().join(format!("settle-{}.log", std::process::id()));
            let _ = std::fs::write(&keep, &log);
            panic!(
                "projections still dirty in {}: {:?}\n{diff}\n{state}\nwhole log: {}\n{}",
                root.display(),
                dirty(),
                keep.display(),
                tail[tail.len().saturating_sub(15)..].join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn commit_all(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    let staged = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["diff", "--cached", "--quiet"])
        .status()
        .unwrap();
    if !staged.success() {
        git(root, &["commit", "-q", "-m", message]);
    }
}

pub fn no_conflict_markers(root: &Path) {
    let hits = super::files_containing(root, "<<<<<<<");
    let hits: Vec<_> = hits
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == ".git"))
        .collect();
    assert!(hits.is_empty(), "conflict markers in {hits:?}");
}

pub fn projections(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    super::tree(root)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".git/") && is_projection(p))
        .collect()
}

/// A bare remote and two clones of it, `a` (which pushed the first commit,
/// with `memory_md` as MEMORY.md when not empty) and `b`, both set up.
pub fn two_clones(dir: &Path, memory_md: &str) -> (PathBuf, PathBuf, PathBuf) {
    let remote = dir.join("remote.git");
    let (a, b) = (dir.join("a"), dir.join("b"));
    let remote_str = remote.to_str().unwrap();
    git(dir, &["init", "-q", "--bare", "-b", "main", remote_str]);
    git(dir, &["clone", "-q", remote_str, a.to_str().unwrap()]);
    git(&a, &["checkout", "-q", "-b", "main"]);
    init_repo(&a);
    if !memory_md.is_empty() {
        std::fs::write(a.join("MEMORY.md"), memory_md).unwrap();
    }
    commit_all(&a, "workspace");
    git(&a, &["push", "-q", "-u", "origin", "main"]);
    git(dir, &["clone", "-q", remote_str, b.to_str().unwrap()]);
    init_repo(&b);
    (remote, a, b)
}

/// A git command that may fail: its stdout, or its output when it fails.
pub fn try_git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.success() {
        true => Ok(stdout),
        false => Err(format!(
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}
