//! The daemon's projection commit, called directly on a real repository:
//! HEAD and the index move together, memsync's own staging is never taken
//! for the user's, and the user's staging is never committed.

mod common;

use std::path::Path;

use memsync::git::{Committed, OwnStaging, RecentRenders, commit_projections};

/// Git's answer without its last line end.
fn git(dir: &Path, args: &[&str]) -> String {
    common::git(dir, args).trim_end().to_string()
}

/// A repository whose first commit holds MEMORY.md and a user's file.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test"]);
    git(root, &["config", "user.email", "test@example.com"]);
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nfirst\n").unwrap();
    std::fs::write(root.join("notes.txt"), "mine\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    dir
}

fn commit(root: &Path, own: &mut OwnStaging) -> Committed {
    commit_projections(
        root,
        &["MEMORY.md".to_string()],
        "memsync: update projections",
        own,
        &RecentRenders::default(),
    )
    .unwrap()
}

#[test]
fn a_projection_commit_leaves_head_index_and_work_tree_in_step() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nsecond\n").unwrap();
    std::fs::write(root.join("notes.txt"), "mine, edited\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(git(root, &["show", "HEAD:MEMORY.md"]), "# Memory\n\nsecond");
    assert_eq!(
        git(root, &["log", "-1", "--format=%s"]),
        "memsync: update projections"
    );
    // The user's unstaged edit is neither committed nor touched.
    assert_eq!(git(root, &["status", "--porcelain"]), " M notes.txt");
    assert!(own.is_empty(), "{own:?}");
    assert_eq!(commit(root, &mut own), Committed::Nothing);
}

#[test]
fn memsyncs_own_staging_is_committed_even_after_a_re_render() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nstaged by memsync\n").unwrap();
    let blob = git(root, &["hash-object", "-w", "MEMORY.md"]);
    git(
        root,
        &[
            "update-index",
            "--cacheinfo",
            &format!("100644,{blob},MEMORY.md"),
        ],
    );
    let mut own = OwnStaging::from([("MEMORY.md".to_string(), blob)]);
    // Re-rendered before the commit landed: index, HEAD and file all differ.
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nre-rendered\n").unwrap();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(root, &["show", "HEAD:MEMORY.md"]),
        "# Memory\n\nre-rendered"
    );
    assert_eq!(git(root, &["status", "--porcelain"]), "");
}

#[test]
fn bytes_the_user_staged_are_never_committed_by_memsync() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nthe user's staging\n").unwrap();
    git(root, &["add", "MEMORY.md"]);
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nrendered after\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(commit(root, &mut own), Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
    assert_eq!(
        git(root, &["show", ":MEMORY.md"]),
        "# Memory\n\nthe user's staging"
    );
}

#[test]
fn a_symlinked_or_ignored_projection_is_not_committed() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "/memory/\n").unwrap();
    std::fs::create_dir(root.join("memory")).unwrap();
    std::fs::write(root.join("memory/2026-01-02.md"), "ignored\n").unwrap();
    std::fs::remove_file(root.join("MEMORY.md")).unwrap();
    std::os::unix::fs::symlink("notes.txt", root.join("MEMORY.md")).unwrap();
    let mut own = OwnStaging::new();
    let paths = ["MEMORY.md".to_string(), "memory/2026-01-02.md".to_string()];
    let done = commit_projections(root, &paths, "m", &mut own, &RecentRenders::default()).unwrap();
    assert_eq!(done, Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
}

#[test]
fn a_workspace_in_a_subfolder_commits_by_its_own_paths() {
    let dir = repo();
    let ws = dir.path().join("team/memory-ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("MEMORY.md"), "# Memory\n\nnested\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(&ws, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(dir.path(), &["show", "HEAD:team/memory-ws/MEMORY.md"]),
        "# Memory\n\nnested"
    );
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
}

#[test]
fn the_first_commit_of_an_unborn_branch_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("MEMORY.md"), "# Memory\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
    assert_eq!(git(root, &["show", "HEAD:MEMORY.md"]), "# Memory");
}

/// A pull with autostash over a new projection that memsync had staged and
/// re-rendered since: git re-adds the file with the bytes it stashed (a
/// render memsync made, never staged by it). Those are memsync's, so the
/// projection is committed instead of being left staged for ever.
#[test]
fn a_render_an_autostash_put_back_in_the_index_is_still_committed() {
    let dir = tempfile::tempdir().unwrap();
    let (remote, a, b) = (
        dir.path().join("remote.git"),
        dir.path().join("a"),
        dir.path().join("b"),
    );
    git(
        dir.path(),
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            remote.to_str().unwrap(),
        ],
    );
    for clone in [&a, &b] {
        git(
            dir.path(),
            &[
                "clone",
                "-q",
                remote.to_str().unwrap(),
                clone.to_str().unwrap(),
            ],
        );
        git(clone, &["config", "user.name", "Test"]);
        git(clone, &["config", "user.email", "test@example.com"]);
    }
    std::fs::write(a.join("notes.txt"), "base\n").unwrap();
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "base"]);
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "origin", "main"]);
    std::fs::write(b.join("notes.txt"), "from b\n").unwrap();
    git(&b, &["commit", "-q", "-am", "b"]);
    git(&b, &["push", "-q", "origin", "main"]);

    // memsync staged its first render, git got busy, and it rendered again.
    let log = "memory/2026-01-02.md";
    std::fs::create_dir(a.join("memory")).unwrap();
    std::fs::write(a.join(log), "- 10:00 first\n").unwrap();
    let first = git(&a, &["hash-object", "-w", log]);
    git(
        &a,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("100644,{first},{log}"),
        ],
    );
    let mut own = OwnStaging::from([(log.to_string(), first)]);
    let mut renders = RecentRenders::default();
    renders.note(log, b"- 10:00 first\n");
    let second = "- 10:00 first\n- 10:01 second\n";
    std::fs::write(a.join(log), second).unwrap();
    renders.note(log, second.as_bytes());
    git(
        &a,
        &[
            "pull",
            "-q",
            "--no-rebase",
            "--autostash",
            "--no-edit",
            "origin",
            "main",
        ],
    );
    assert_eq!(
        git(&a, &["show", &format!(":{log}")]),
        second.trim_end(),
        "git re-added the stashed bytes"
    );

    let third = "- 10:00 first\n- 10:01 second\n- 10:02 third\n";
    std::fs::write(a.join(log), third).unwrap();
    assert_eq!(
        commit_projections(&a, &[log.to_string()], "m", &mut own, &renders).unwrap(),
        Committed::Paths(vec![log.into()])
    );
    assert_eq!(git(&a, &["show", &format!("HEAD:{log}")]), third.trim_end());
    assert_eq!(git(&a, &["status", "--porcelain"]), "");
}
