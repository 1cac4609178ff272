//! The daemon's projection commit, called directly on a real repository:
//! HEAD and the index move together, memsync's own staging is never taken
//! for the user's, and the user's staging is never committed.

mod common;

use std::path::Path;

use memsync::config::CommitScope;
use memsync::git::{Committed, OwnStaging, RecentRenders, commit_projections};

/// Git's answer without its last line end.
fn git(dir: &Path, args: &[&str]) -> String {
    common::git(dir, args).trim_end().to_string()
}

/// `rows` inside memsync's managed block, as a render writes it.
fn block(rows: &str) -> String {
    format!("<!-- memsync:begin (generated) -->\n{rows}<!-- memsync:end -->\n")
}

/// MEMORY.md with a heading of the user's and memsync's block holding `rows`.
fn memory_md(rows: &str) -> String {
    format!("# Memory\n\n{}", block(rows))
}

/// A repository whose first commit holds MEMORY.md and a user's file.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["config", "user.name", "Test"]);
    git(root, &["config", "user.email", "test@example.com"]);
    std::fs::write(root.join("MEMORY.md"), memory_md("first\n")).unwrap();
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
        CommitScope::Block,
        own,
        &RecentRenders::default(),
    )
    .unwrap()
}

#[test]
fn a_projection_commit_leaves_head_index_and_work_tree_in_step() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), memory_md("second\n")).unwrap();
    std::fs::write(root.join("notes.txt"), "mine, edited\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(root, &["show", "HEAD:MEMORY.md"]),
        memory_md("second\n").trim_end()
    );
    assert_eq!(
        git(root, &["log", "-1", "--format=%s"]),
        "memsync: update projections"
    );
    assert_eq!(
        git(root, &["log", "-1", "--format=%b"]),
        "MEMORY.md: 1 lines added, 1 removed in memsync's block"
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
    std::fs::write(root.join("MEMORY.md"), memory_md("staged by memsync\n")).unwrap();
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
    std::fs::write(root.join("MEMORY.md"), memory_md("re-rendered\n")).unwrap();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(root, &["show", "HEAD:MEMORY.md"]),
        memory_md("re-rendered\n").trim_end()
    );
    assert_eq!(git(root, &["status", "--porcelain"]), "");
}

#[test]
fn bytes_the_user_staged_are_never_committed_by_memsync() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), memory_md("the user's staging\n")).unwrap();
    git(root, &["add", "MEMORY.md"]);
    std::fs::write(root.join("MEMORY.md"), memory_md("rendered after\n")).unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(commit(root, &mut own), Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
    assert_eq!(
        git(root, &["show", ":MEMORY.md"]),
        memory_md("the user's staging\n").trim_end()
    );
}

#[test]
fn a_symlinked_or_ignored_projection_is_not_committed() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "/memory/\n").unwrap();
    std::fs::create_dir(root.join("memory")).unwrap();
    std::fs::write(root.join("memory/2026-01-02.md"), block("ignored\n")).unwrap();
    std::fs::remove_file(root.join("MEMORY.md")).unwrap();
    std::os::unix::fs::symlink("notes.txt", root.join("MEMORY.md")).unwrap();
    let mut own = OwnStaging::new();
    let paths = ["MEMORY.md".to_string(), "memory/2026-01-02.md".to_string()];
    let done = commit_projections(
        root,
        &paths,
        "m",
        CommitScope::Block,
        &mut own,
        &RecentRenders::default(),
    )
    .unwrap();
    assert_eq!(done, Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
}

#[test]
fn a_workspace_in_a_subfolder_commits_by_its_own_paths() {
    let dir = repo();
    let ws = dir.path().join("team/memory-ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("MEMORY.md"), block("nested\n")).unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(&ws, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(dir.path(), &["show", "HEAD:team/memory-ws/MEMORY.md"]),
        block("nested\n").trim_end()
    );
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
}

#[test]
fn the_first_commit_of_an_unborn_branch_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("MEMORY.md"), block("first\n")).unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
    assert_eq!(
        git(root, &["show", "HEAD:MEMORY.md"]),
        block("first\n").trim_end()
    );
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
    std::fs::write(a.join(log), block("- 10:00 first\n")).unwrap();
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
    renders.note(log, block("- 10:00 first\n").as_bytes());
    let second = block("- 10:00 first\n- 10:01 second\n");
    std::fs::write(a.join(log), &second).unwrap();
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

    let third = block("- 10:00 first\n- 10:01 second\n- 10:02 third\n");
    std::fs::write(a.join(log), &third).unwrap();
    assert_eq!(
        commit_projections(
            &a,
            &[log.to_string()],
            "m",
            CommitScope::Block,
            &mut own,
            &renders
        )
        .unwrap(),
        Committed::Paths(vec![log.into()])
    );
    assert_eq!(git(&a, &["show", &format!("HEAD:{log}")]), third.trim_end());
    assert_eq!(git(&a, &["status", "--porcelain"]), "");
}

/// Curated lines typed around the block (half a line, mid-autosave) are the
/// person's: a projection commit takes memsync's block alone and leaves the
/// typed text in the work tree, unstaged and untouched.
#[test]
fn a_projection_commit_holds_memsyncs_block_and_none_of_the_text_typed_around_it() {
    let dir = repo();
    let root = dir.path();
    let typed = format!(
        "# Memory\n\nAlways run the migrations bef\n\n{}",
        block("second\n")
    );
    std::fs::write(root.join("MEMORY.md"), &typed).unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(
        commit(root, &mut own),
        Committed::Paths(vec!["MEMORY.md".into()])
    );
    assert_eq!(
        git(root, &["show", "HEAD:MEMORY.md"]),
        memory_md("second\n").trim_end(),
        "the commit holds HEAD's text around memsync's new block"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        typed
    );
    assert_eq!(git(root, &["status", "--porcelain"]), " M MEMORY.md");
    // Typing on without a new render commits nothing.
    let more = typed.replace("bef\n", "before a deploy.\n");
    std::fs::write(root.join("MEMORY.md"), more).unwrap();
    assert_eq!(commit(root, &mut own), Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "2");
}

/// A daily note the person started (their tasks) that memsync appended its
/// block to: the first commit of it holds the block alone.
#[test]
fn a_new_daily_note_is_committed_without_the_persons_own_lines() {
    let dir = repo();
    let root = dir.path();
    let log = "memory/2026-01-02.md";
    std::fs::create_dir(root.join("memory")).unwrap();
    let note = format!("- [ ] call the bank\n\n{}", block("- 10:00 fixed it\n"));
    std::fs::write(root.join(log), &note).unwrap();
    let mut own = OwnStaging::new();
    let done = commit_projections(
        root,
        &[log.to_string()],
        "m",
        CommitScope::Block,
        &mut own,
        &RecentRenders::default(),
    );
    assert_eq!(done.unwrap(), Committed::Paths(vec![log.into()]));
    assert_eq!(
        git(root, &["show", &format!("HEAD:{log}")]),
        block("- 10:00 fixed it\n").trim_end()
    );
    assert_eq!(std::fs::read_to_string(root.join(log)).unwrap(), note);
}

/// A projection file with no block of memsync's (the person took it out)
/// holds nothing of memsync's to commit.
#[test]
fn a_projection_without_memsyncs_block_is_not_committed() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("MEMORY.md"), "# Memory\n\nmy own words only\n").unwrap();
    let mut own = OwnStaging::new();
    assert_eq!(commit(root, &mut own), Committed::Nothing);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]), "1");
}

/// `git.commit_scope: file` keeps the older way: the whole file, lines
/// around the block included (an agent's own daily-log lines travel).
#[test]
fn with_commit_scope_file_the_lines_around_the_block_are_committed_too() {
    let dir = repo();
    let root = dir.path();
    let typed = format!("# Memory\n\n- agent line\n\n{}", block("second\n"));
    std::fs::write(root.join("MEMORY.md"), &typed).unwrap();
    let done = commit_projections(
        root,
        &["MEMORY.md".to_string()],
        "m",
        CommitScope::File,
        &mut OwnStaging::new(),
        &RecentRenders::default(),
    );
    assert_eq!(done.unwrap(), Committed::Paths(vec!["MEMORY.md".into()]));
    assert_eq!(git(root, &["show", "HEAD:MEMORY.md"]), typed.trim_end());
    assert_eq!(git(root, &["status", "--porcelain"]), "");
}
