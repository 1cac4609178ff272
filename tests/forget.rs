//! `memsync forget`: privacy removal. Spec test 11 (a tombstone survives
//! re-index and resurrection), no recoverable text under the index directory,
//! idempotence, and crash recovery.

mod common;

use chrono::Duration;
use common::{Workspace, files_containing, git, memsync_bin, now, session};

const UNIQUE: &str = "zebracorn42";

/// A workspace with two sessions; `private-1` carries a unique word in every body and its sentence.
fn workspace() -> (Workspace, Vec<String>) {
    let ws = Workspace::new();
    let mut s = session("default", "private-1", now() - Duration::hours(2));
    for c in [&mut s.summary, &mut s.transcript].into_iter().flatten() {
        c.body = format!("The {UNIQUE} credentials were pasted here.\n");
        c.sentence = Some(format!(
            "Rotated the {UNIQUE} credentials for memsync in src/scan.rs after they leaked into a prompt."
        ));
    }
    let paths = ws.add(&s);
    ws.add(&session("default", "keep-1", now() - Duration::hours(1)));
    ws.sync();
    assert!(ws.read("MEMORY.md").contains(UNIQUE));
    assert!(!files_containing(&ws.root().join(".memsync"), UNIQUE).is_empty());
    (ws, paths)
}

fn forget(ws: &Workspace, target: &str) -> assert_cmd::assert::Assert {
    ws.cli(&["forget", target, "--reason", "pasted credentials"])
}

#[test]
fn forget_writes_a_tombstone_deletes_the_files_and_leaves_no_text_in_the_index() {
    let (ws, paths) = workspace();
    forget(&ws, "private-1")
        .success()
        .stdout(predicates::str::contains("forgotten"));
    for p in &paths {
        assert!(!ws.exists(p), "{p} still exists");
    }
    let token = paths[0].split("--").nth(1).unwrap();
    let tombstone = ws.read(&format!("memory/tombstones/default--{token}.md"));
    assert!(tombstone.contains("reason: \"pasted credentials\""));
    for p in &paths {
        assert!(tombstone.contains(&format!("  - \"{p}\"")), "{tombstone}");
    }
    assert!(!ws.read("MEMORY.md").contains(UNIQUE));
    assert!(ws.read("MEMORY.md").contains("session=keep-1"));
    let leftovers = files_containing(ws.root(), UNIQUE);
    assert!(
        leftovers.is_empty(),
        "the forgotten text survives in {leftovers:?}"
    );
    ws.cli(&["check"]).success();
}

#[test]
fn forgetting_twice_is_a_no_op_and_an_unknown_session_is_exit_2() {
    let (ws, _) = workspace();
    forget(&ws, "private-1").success();
    let before = common::tree(ws.root());
    forget(&ws, "private-1")
        .success()
        .stdout(predicates::str::contains("already forgotten"));
    assert_eq!(common::tree(ws.root()), before);
    forget(&ws, "nobody")
        .code(2)
        .stderr(predicates::str::contains("no session \"nobody\""));
    ws.cli(&["forget", "keep-1", "--reason", " "])
        .code(2)
        .stderr(predicates::str::contains("--reason must say why"));
}

#[test]
fn spec_11_resurrected_files_stay_out_through_sync_and_reindex() {
    let (ws, paths) = workspace();
    let saved: Vec<(String, String)> = paths.iter().map(|p| (p.clone(), ws.read(p))).collect();
    let token = paths[0].split("--").nth(1).unwrap().to_string();
    forget(&ws, &token).success();
    // A stale clone or a backup brings the files back.
    for (p, text) in &saved {
        ws.write(p, text);
    }
    ws.cli(&["sync"]).success();
    assert!(!ws.read("MEMORY.md").contains(UNIQUE));
    ws.cli(&["reindex"]).success();
    assert!(!ws.read("MEMORY.md").contains(UNIQUE));
    ws.cli(&["check"])
        .code(1)
        .stdout(predicates::str::contains("tombstone.resurrected"));
    assert!(files_containing(&ws.root().join(".memsync"), UNIQUE).is_empty());
    // Forgetting again removes the resurrected files.
    forget(&ws, &token)
        .success()
        .stdout(predicates::str::contains("already forgotten"));
    assert!(paths.iter().all(|p| !ws.exists(p)));
    ws.cli(&["check"]).success();
}

#[test]
fn a_crash_after_the_tombstone_still_keeps_the_session_out() {
    let (ws, paths) = workspace();
    memsync_bin()
        .arg("--workspace")
        .arg(ws.root())
        .env("MEMSYNC_FAILPOINT", "after-tombstone")
        .args(["forget", "private-1", "--reason", "pasted credentials"])
        .assert()
        .code(86);
    assert!(
        paths.iter().all(|p| ws.exists(p)),
        "the files are still there"
    );
    ws.cli(&["sync"]).success();
    assert!(
        !ws.read("MEMORY.md").contains(UNIQUE),
        "but the tombstone already rules"
    );
    forget(&ws, "private-1").success();
    assert!(paths.iter().all(|p| !ws.exists(p)));
    assert!(files_containing(ws.root(), UNIQUE).is_empty());
}

#[test]
fn forget_resolves_a_session_key_and_scopes_by_agent() {
    let ws = Workspace::new();
    let mut s = session("coder", "id-1", now() - Duration::hours(1));
    s.session_key = Some("agent:coder:main".into());
    let paths = ws.add(&s);
    ws.add(&session("default", "id-1", now() - Duration::hours(1)));
    ws.sync();
    ws.cli(&["forget", "agent:coder:main", "--reason", "r"])
        .success();
    assert!(paths.iter().all(|p| !ws.exists(p)));
    // `id-1` now names only default's session.
    ws.cli(&["forget", "id-1", "--agent", "coder", "--reason", "r"])
        .code(2);
    ws.cli(&["forget", "id-1", "--reason", "r"]).success();
    ws.cli(&["check"]).success();
}

#[test]
fn forget_in_a_git_work_tree_says_history_still_holds_the_text_and_how_to_remove_it() {
    let (ws, _paths) = workspace();
    let root = ws.root();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test"]);
    git(root, &["config", "user.email", "test@example.com"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "sessions"]);
    let out = forget(&ws, "private-1").success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(
        stdout
            .matches("warning: git history still holds this session's text (1 commits)")
            .count(),
        1,
        "{stdout}"
    );
    assert!(
        stdout.contains("git filter-repo --invert-paths --path memory/"),
        "{stdout}"
    );
    // The warning is true: the text is in history, and memsync did not rewrite it.
    assert!(git(root, &["log", "-p", "--all"]).contains(UNIQUE));
    // Without git, or with nothing committed, there is no warning.
    let (plain, _) = workspace();
    let out = forget(&plain, "private-1").success();
    assert!(!String::from_utf8_lossy(&out.get_output().stdout).contains("git history"));
}

#[test]
fn a_dry_run_names_what_forget_would_remove_and_changes_nothing() {
    let (ws, paths) = workspace();
    let before = common::tree(ws.root());
    let out = ws
        .cli(&["forget", "private-1", "--reason", "test", "--dry-run"])
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    for p in &paths {
        assert!(text.contains(&format!("remove {p}")), "{text}");
    }
    assert!(text.contains("write  memory/tombstones/"), "{text}");
    assert_eq!(common::tree(ws.root()), before, "a dry run changed files");
}

/// A tombstone that arrives for a session this clone still has (a pull of
/// another clone's forget) is reported by the next sync and check, as
/// reindex reports it, for each of the session's files: whether git kept
/// their times or not.
#[test]
fn a_tombstone_arriving_for_indexed_files_is_reported_by_sync_and_check() {
    for keep_times in [true, false] {
        let (ws, paths) = workspace();
        let other = Workspace::copy_of(ws.root());
        let token = paths[0].split("--").nth(1).unwrap().to_string();
        forget(&other, &token).success();
        if !keep_times {
            for p in &paths {
                let text = ws.read(p);
                ws.write(p, &text);
            }
        }
        let tomb = format!("memory/tombstones/default--{token}.md");
        ws.write(&tomb, &other.read(&tomb));
        let out = ws.cli(&["sync"]).get_output().stdout.clone();
        let said = String::from_utf8_lossy(&out);
        for p in &paths {
            assert!(
                said.contains(&format!("{p}: error: tombstone.resurrected")),
                "keep_times {keep_times}: {p} unreported by sync:\n{said}"
            );
        }
        assert!(!ws.read("MEMORY.md").contains(UNIQUE));
        ws.cli(&["check"])
            .code(1)
            .stdout(predicates::str::contains("tombstone.resurrected"));
    }
}

/// Obsidian's "move to system trash" puts a session's file outside the
/// workspace: forget names each copy in the freedesktop trash with the
/// command that removes it, and leaves it (memsync deletes nothing outside
/// the workspace).
#[test]
fn a_copy_in_the_system_trash_is_named_with_the_command_and_left_alone() {
    let (ws, paths) = workspace();
    let home = tempfile::tempdir().unwrap();
    let trash = home.path().join(".local/share/Trash/files");
    std::fs::create_dir_all(&trash).unwrap();
    let name = paths[0].rsplit('/').next().unwrap();
    let copy = trash.join(name);
    std::fs::write(&copy, ws.read(&paths[0])).unwrap();
    let out = memsync_bin()
        .arg("--workspace")
        .arg(ws.root())
        .args([
            "--now",
            "2026-11-20T12:00:00Z",
            "forget",
            "private-1",
            "--reason",
            "pasted",
        ])
        .env("HOME", home.path())
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("system trash still holds a copy")
            && said.contains(&format!("rm {}", copy.display())),
        "{said}"
    );
    assert!(
        copy.exists(),
        "memsync deleted a file outside the workspace"
    );
}
