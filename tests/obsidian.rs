//! What Obsidian does to a workspace, done to a real git workspace with the
//! daemon running: autosaves of half-typed lines, renames, sync conflict
//! copies, deletion to `.trash/`, its standard properties and date picker.
//! Each test asserts the report, the bytes kept and the git log.

mod common;

use std::path::Path;
use std::time::Duration;

use common::daemon::{Daemon, wait_for};
use common::gitrepo::{capture, git, init_repo, memsync, settle};

/// A git workspace with `git setup` done, one captured session committed,
/// and a daemon that commits after `quiet_ms` of quiet.
fn vault(quiet_ms: u64) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (root, inputs) = (tmp.path().join("vault"), tmp.path().join("in"));
    std::fs::create_dir_all(&inputs).unwrap();
    git(
        tmp.path(),
        &["init", "-q", "-b", "main", root.to_str().unwrap()],
    );
    init_repo(&root);
    std::fs::write(
        root.join("memsync.yaml"),
        format!(
            "watch:\n  debounce_ms: 50\ndaily_logs:\n  timezone: UTC\ngit:\n  commit_quiet_ms: {quiet_ms}\n"
        ),
    )
    .unwrap();
    capture(&root, &inputs, "first-session", 30);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "base"]);
    (tmp, root, inputs)
}

/// Every commit the daemon made: (id, message subject).
fn daemon_commits(root: &Path) -> Vec<String> {
    git(root, &["log", "--format=%H %s"])
        .lines()
        .filter(|l| l.ends_with("memsync: update projections"))
        .map(|l| l[..40].to_string())
        .collect()
}

/// Obsidian autosaves about every 2 s while a person types. Typing a
/// curated line above the block for 9 s, while a capture lands, gives no
/// commit mid-typing and no commit holding any of the typed text; the
/// capture's rows are committed once, after the typing stops.
#[test]
fn half_typed_lines_are_never_committed_and_typing_never_interleaves_with_commits() {
    let (_tmp, root, inputs) = vault(3000);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    let before = daemon_commits(&root).len();
    let line = "Always run the migrations before a deploy, never after.";
    let memory = root.join("MEMORY.md");
    let original = std::fs::read_to_string(&memory).unwrap();
    let mut commits_while_typing = 0;
    for (i, step) in (8..=line.len()).step_by(8).enumerate() {
        let rendered = std::fs::read_to_string(&memory).unwrap();
        let (_, block_and_after) = rendered.split_at(rendered.find("<!-- memsync:begin").unwrap());
        std::fs::write(&memory, format!("{}\n\n{block_and_after}", &line[..step])).unwrap();
        if i == 1 {
            capture(&root, &inputs, "while-typing", 5);
        }
        std::thread::sleep(Duration::from_millis(1300));
        commits_while_typing = daemon_commits(&root).len() - before;
        assert_eq!(commits_while_typing, 0, "a commit landed while typing");
    }
    wait_for(&daemon.log, "the commit after typing stopped", || {
        daemon_commits(&root).len() > before
    });
    std::thread::sleep(Duration::from_millis(3500));
    let made = daemon_commits(&root);
    assert_eq!(made.len() - before, 1, "one commit per settled change");
    for id in &made {
        let text = git(&root, &["show", &format!("{id}:MEMORY.md")]);
        assert!(!text.contains("Always run"), "typed text committed in {id}");
    }
    let head = git(&root, &["show", "HEAD:MEMORY.md"]);
    assert!(
        head.contains("while-typing"),
        "the capture's rows are committed"
    );
    assert!(!original.contains("Always run"));
    // The typed line is still there, the person's to commit.
    let now = std::fs::read_to_string(&memory).unwrap();
    assert!(now.starts_with(&line[..line.len() / 8 * 8]), "{now}");
    let body = git(&root, &["log", "-1", "--format=%b"]);
    assert!(
        body.contains("MEMORY.md: "),
        "the message says what changed: {body}"
    );
    assert_eq!(commits_while_typing, 0);
    assert!(daemon.stop().success());
    memsync(&root, &["check"]).success();
}
