//! The daemon's projection commit, called directly on a real repository:
//! HEAD and the index move together, memsync's own staging is never taken
//! for the user's, and the user's staging is never committed.

mod common;

use std::path::Path;

use memsync::git::{Committed, OwnStaging, commit_projections};

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
    let done = commit_projections(root, &paths, "m", &mut own).unwrap();
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
