//! Git-synced workspaces with real git: the merge driver, `git setup`, the
//! daemon's projection commits, and two clones that converge.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::daemon::{Daemon, wait_for};
use common::gitrepo::*;

const BLOCK: &str = "<!-- memsync:begin x -->\nrows\n<!-- memsync:end -->\n";

#[test]
fn the_merge_driver_keeps_both_sides_and_never_writes_conflict_markers() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let base = file("base", &format!("# Memory\n\nshared\n\n{BLOCK}"));
    let ours = file(
        "ours",
        &format!(
            "# Memory\n\nshared\nours added\n\n{}",
            BLOCK.replace("rows", "our rows")
        ),
    );
    let theirs = file(
        "theirs",
        &format!(
            "# Memory\n\nshared\ntheirs added\n\n{}",
            BLOCK.replace("rows", "their rows")
        ),
    );
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    cmd(&ws, &["git", "merge-driver"])
        .args([&base, &ours, &theirs])
        .arg("MEMORY.md")
        .assert()
        .success();
    let merged = std::fs::read_to_string(&ours).unwrap();
    assert_eq!(
        merged,
        format!(
            "# Memory\n\nshared\nours added\ntheirs added\n\n{}",
            BLOCK.replace("rows", "our rows")
        )
    );
    // The union is reported.
    memsync(&ws, &["status"])
        .success()
        .stdout(predicates::str::contains(
            "MEMORY.md: both sides' lines kept",
        ));
    // Changes in different places merge cleanly; add/add (empty base) keeps both.
    let ours = file("ours2", &format!("top ours\n{BLOCK}tail\n"));
    let theirs = file("theirs2", &format!("top\n{BLOCK}tail theirs\n"));
    let base = file("base2", &format!("top\n{BLOCK}tail\n"));
    cmd(&ws, &["git", "merge-driver"])
        .args([&base, &ours, &theirs])
        .arg("memory/2026-11-20.md")
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(&ours).unwrap(),
        format!("top ours\n{BLOCK}tail theirs\n")
    );
    let empty = file("empty", "");
    let ours = file("ours3", &format!("{BLOCK}\nnote A\n"));
    let theirs = file("theirs3", &format!("{BLOCK}\nnote B\n"));
    cmd(&ws, &["git", "merge-driver"])
        .args([&empty, &ours, &theirs])
        .arg("memory/2026-11-21.md")
        .assert()
        .success();
    let merged = std::fs::read_to_string(&ours).unwrap();
    assert!(
        merged.contains("note A") && merged.contains("note B") && !merged.contains("<<<<<<<"),
        "{merged}"
    );
}

#[test]
fn git_setup_is_idempotent_and_dry_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join(".gitignore"), "node_modules/\n").unwrap();
    memsync(dir.path(), &["git", "setup", "--dry-run"])
        .success()
        .stdout(predicates::str::contains("would change"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
        "node_modules/\n"
    );
    assert!(!dir.path().join(".gitattributes").exists());
    memsync(dir.path(), &["git", "setup"])
        .success()
        .stdout(predicates::str::contains("merge.memsync.driver"));
    let ignore = std::fs::read_to_string(dir.path().join(".gitignore")).unwrap();
    assert!(
        ignore.starts_with("node_modules/\n\n# memsync:begin") && ignore.contains("/.memsync/\n"),
        "{ignore}"
    );
    let attributes = std::fs::read_to_string(dir.path().join(".gitattributes")).unwrap();
    assert!(attributes.contains("/MEMORY.md merge=memsync"));
    assert!(
        git(dir.path(), &["config", "--get", "merge.memsync.driver"])
            .contains("git merge-driver %O %A %B %P")
    );
    memsync(dir.path(), &["git", "setup"])
        .success()
        .stdout(predicates::str::contains("nothing to change"));
    memsync(dir.path(), &["git", "setup", "--dry-run"])
        .success()
        .stdout(predicates::str::contains("nothing to change"));
    let outside = tempfile::tempdir().unwrap();
    memsync(outside.path(), &["git", "setup"])
        .code(2)
        .stderr(predicates::str::contains("not inside a git work tree"));
}

#[test]
fn two_clones_that_both_ran_git_setup_before_their_first_pull_can_pull() {
    for pull_mode in ["--no-rebase", "--rebase"] {
        let tmp = tempfile::tempdir().unwrap();
        let remote = tmp.path().join("remote.git");
        let remote_str = remote.to_str().unwrap();
        git(
            tmp.path(),
            &["init", "-q", "--bare", "-b", "main", remote_str],
        );
        // The workspace already has history; neither machine has run memsync on it.
        let seed = tmp.path().join("seed");
        git(
            tmp.path(),
            &["clone", "-q", remote_str, seed.to_str().unwrap()],
        );
        git(&seed, &["checkout", "-q", "-b", "main"]);
        git(&seed, &["config", "user.name", "Seed"]);
        git(&seed, &["config", "user.email", "seed@example.com"]);
        std::fs::write(seed.join("notes.md"), "# notes\n").unwrap();
        commit_all(&seed, "notes");
        git(&seed, &["push", "-q", "-u", "origin", "main"]);
        let clones: Vec<PathBuf> = ["a", "b"]
            .iter()
            .map(|name| {
                let dir = tmp.path().join(name);
                git(
                    tmp.path(),
                    &["clone", "-q", remote_str, dir.to_str().unwrap()],
                );
                git(&dir, &["config", "user.name", name]);
                git(&dir, &["config", "user.email", "m@example.com"]);
                // The README's git section: every machine runs `git setup` once.
                memsync(&dir, &["git", "setup"])
                    .success()
                    .stdout(predicates::str::contains("committed"));
                dir
            })
            .collect();
        let (a, b) = (&clones[0], &clones[1]);
        git(a, &["push", "-q", "origin", "main"]);
        git(b, &["pull", "-q", "--no-edit", pull_mode, "origin", "main"]);
        git(b, &["push", "-q", "origin", "main"]);
        git(a, &["pull", "-q", "--no-edit", pull_mode, "origin", "main"]);
        for dir in [a, b] {
            let attributes = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
            assert_eq!(
                attributes.matches("# memsync:begin").count(),
                1,
                "{pull_mode}: {attributes}"
            );
            assert!(
                git(dir, &["status", "--porcelain"]).trim().is_empty(),
                "{pull_mode}: clean tree"
            );
        }
    }
}

#[test]
fn two_clones_with_daemons_pull_and_push_ten_rounds_and_converge() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs = tmp.path().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let (remote, a, b) = two_clones(tmp.path(), "# Memory\n\nCurated by hand.\n");
    let (da, db) = (Daemon::start(&a), Daemon::start(&b));

    // Sessions on both sides, curated lines in MEMORY.md and in one daily log on both.
    capture(&a, &inputs, "a-1", 30);
    capture(&b, &inputs, "b-1", 20);
    capture(&a, &inputs, "doomed", 25);
    settle(&a, &da);
    settle(&b, &db);
    let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let log = format!("memory/{day}.md");
    for (root, d, who) in [(&a, &da, "A"), (&b, &db, "B")] {
        let mut md = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
        md.push_str(&format!("\nCurated line from {who}.\n"));
        std::fs::write(root.join("MEMORY.md"), md).unwrap();
        let mut daily = std::fs::read_to_string(root.join(&log)).unwrap_or_default();
        daily.push_str(&format!("\nNote appended by agent {who}.\n"));
        std::fs::write(root.join(&log), daily).unwrap();
        commit_all(root, &format!("sessions and notes from {who}"));
        settle(root, d);
    }
    memsync(&a, &["-q", "forget", "doomed", "--reason", "test"]).success();
    settle(&a, &da);
    commit_all(&a, "forget doomed");

    for round in 0..10 {
        for (root, d, name) in [(&a, &da, "a"), (&b, &db, "b")] {
            capture(root, &inputs, &format!("{name}-r{round}"), 10);
            settle(root, d);
            commit_all(root, &format!("round {round} on {name}"));
            git(root, &["pull", "-q", "--no-edit", "origin", "main"]);
            settle(root, d);
            commit_all(root, &format!("after pull, round {round} on {name}"));
            git(root, &["push", "-q", "origin", "main"]);
        }
    }
    // A last exchange so both have everything.
    git(&a, &["pull", "-q", "--no-edit", "origin", "main"]);
    settle(&a, &da);
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    settle(&b, &db);
    git(&b, &["push", "-q", "origin", "main"]);
    git(&a, &["pull", "-q", "--no-edit", "origin", "main"]);
    settle(&a, &da);
    // `settle` sees projections clean as soon as a pull's merge lands; under
    // load a daemon may index what the pull brought after that. Converging
    // is what is asserted: give each up to 20 s to render the last round.
    for root in [&a, &b] {
        let rendered = || {
            let md = std::fs::read_to_string(root.join("MEMORY.md")).unwrap_or_default();
            md.contains("session=a-r9 ") && md.contains("session=b-r9 ")
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !rendered() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    settle(&a, &da);
    settle(&b, &db);
    assert!(da.stop().success());
    assert!(db.stop().success());

    for root in [&a, &b] {
        no_conflict_markers(root);
        let md = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
        assert!(
            md.contains("Curated by hand.")
                && md.contains("Curated line from A.")
                && md.contains("Curated line from B."),
            "{md}"
        );
        let daily = std::fs::read_to_string(root.join(&log)).unwrap();
        assert!(
            daily.contains("Note appended by agent A.")
                && daily.contains("Note appended by agent B."),
            "{daily}"
        );
        assert!(
            !md.contains("session=doomed"),
            "the forgotten session is gone"
        );
        assert!(
            common::files_containing(&root.join("memory"), "doomed")
                .iter()
                .all(|p| p.to_string_lossy().contains("tombstones"))
        );
        assert!(
            md.contains("session=a-r9 ") && md.contains("session=b-r9 "),
            "{}: {md}",
            root.display()
        );
    }
    assert_eq!(
        projections(&a),
        projections(&b),
        "both clones render the same bytes"
    );
    // Both equal a one-shot sync of the final tree.
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
    memsync(&fresh, &["-q", "sync"]).success();
    assert_eq!(projections(&fresh), projections(&a));
    let log = git(&a, &["log", "--format=%s"]);
    assert!(
        log.lines().any(|l| l == "memsync: update projections"),
        "{log}"
    );
    // The curated lines both sides appended at the same place went through the merge driver.
    let statuses: String = [&a, &b]
        .iter()
        .map(|r| {
            String::from_utf8(
                memsync(r, &["status"])
                    .success()
                    .get_output()
                    .stdout
                    .clone(),
            )
            .unwrap()
        })
        .collect();
    assert!(
        statuses.contains("both sides' lines kept (union)"),
        "{statuses}"
    );
}

#[test]
fn mid_rebase_the_daemon_waits_and_commits_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("ws");
    let inputs = tmp.path().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    git(
        tmp.path(),
        &["init", "-q", "-b", "main", repo.to_str().unwrap()],
    );
    init_repo(&repo);
    std::fs::write(repo.join("notes.txt"), "base\n").unwrap();
    commit_all(&repo, "base");
    git(&repo, &["checkout", "-q", "-b", "side"]);
    std::fs::write(repo.join("notes.txt"), "side\n").unwrap();
    commit_all(&repo, "side");
    git(&repo, &["checkout", "-q", "main"]);
    std::fs::write(repo.join("notes.txt"), "main\n").unwrap();
    commit_all(&repo, "main");
    let daemon = Daemon::start(&repo);
    settle(&repo, &daemon);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let commits_before = git(&repo, &["rev-list", "--all", "--count"]);
    // A rebase that stops on a conflict in a file that is not memsync's.
    let out = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["rebase", "side"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "the rebase must stop");
    assert!(repo.join(".git/rebase-merge").exists() || repo.join(".git/rebase-apply").exists());
    capture(&repo, &inputs, "during-rebase", 5);
    std::thread::sleep(Duration::from_millis(1500));
    // capture renders on its own; the daemon must not commit while the rebase is open.
    assert_eq!(
        git(&repo, &["rev-list", "--all", "--count"]),
        commits_before,
        "no commit mid-rebase"
    );
    let commits = commits_before;
    git(&repo, &["rebase", "--abort"]);
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    wait_for(&daemon.log, "the deferred commit", || {
        git(&repo, &["rev-list", "--all", "--count"]) != commits
    });
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s"]).trim(),
        "memsync: update projections"
    );
    assert!(
        std::fs::read_to_string(repo.join("MEMORY.md"))
            .unwrap()
            .contains("session=during-rebase")
    );
    assert!(daemon.stop().success());
}

#[test]
fn a_pull_of_500_sessions_reaches_the_projections() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, b) = two_clones(tmp.path(), "");
    let daemon = Daemon::start(&b);
    memsync(
        &a,
        &[
            "-q",
            "generate",
            a.to_str().unwrap(),
            "--days",
            "10",
            "--per-day",
            "50",
            "--older",
            "0",
        ],
    )
    .success();
    commit_all(&a, "500 sessions");
    git(&a, &["push", "-q", "origin", "main"]);
    // b's daemon renders and commits its own MEMORY.md at start; pulling while
    // that file is still untracked would abort the pull (a race under load).
    settle(&b, &daemon);
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    let pulled = Instant::now();
    let summaries: Vec<String> = git(&a, &["ls-files", "memory"])
        .lines()
        .filter(|l| l.ends_with("--summary.md"))
        .map(String::from)
        .collect();
    assert_eq!(summaries.len(), 500);
    let newest = summaries
        .iter()
        .max()
        .unwrap()
        .split("--")
        .nth(1)
        .unwrap()
        .to_string();
    let sessions = || {
        rusqlite::Connection::open(b.join(".memsync/index.db"))
            .and_then(|db| {
                db.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get::<_, i64>(0))
            })
            .unwrap_or(0)
    };
    wait_for(
        &daemon.log,
        "500 sessions indexed and the newest in b's MEMORY.md",
        || {
            sessions() == 500
                && std::fs::read_to_string(b.join("MEMORY.md")).is_ok_and(|m| m.contains(&newest))
        },
    );
    // How fast is a figure for `cargo bench --bench watch`, not a test under load.
    eprintln!(
        "pull of 500 sessions reflected in MEMORY.md after {:?}",
        pulled.elapsed()
    );
    assert!(daemon.stop().success());
}

/// Writes a new session into `root` every few milliseconds until `stop`: the
/// daemon indexes, renders and commits all the while.
fn busy_writer(
    root: PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let config = memsync::config::Config::default();
        let mut n = 0;
        while !stop.load(std::sync::atomic::Ordering::SeqCst) {
            let at = chrono::Utc::now() - chrono::Duration::minutes(5);
            let s = common::session("default", &format!("busy-{n}"), at);
            memsync::compose::write_files(&root, &s.files(&config)).unwrap();
            n += 1;
            std::thread::sleep(Duration::from_millis(40));
        }
        n
    })
}

/// Issue 26, defect 3: a person's `git pull` never fails because of memsync.
/// B pushes a session and a curated MEMORY.md line each round; A pulls it
/// while its daemon indexes, renders and commits a stream of new sessions.
/// The daemon commits with plumbing (index first, HEAD last by compare and
/// swap), so even a commit landing under a pull's fetch leaves the pull a
/// clean fast-forward; 600 pulls with three copies at once on two cores: 0
/// failures.
#[test]
fn a_hundred_pulls_beside_a_busy_daemon_all_succeed() {
    const PULLS: usize = 100;
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, b) = two_clones(tmp.path(), "# Memory\n\nCurated by hand.\n");
    let daemon = Daemon::start(&a);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = busy_writer(a.clone(), stop.clone());
    let config = memsync::config::Config::default();
    let mut failures = Vec::new();
    for round in 0..PULLS {
        let at = chrono::Utc::now() - chrono::Duration::minutes(10);
        let s = common::session("default", &format!("from-b-{round}"), at);
        memsync::compose::write_files(&b, &s.files(&config)).unwrap();
        let mut md = std::fs::read_to_string(b.join("MEMORY.md")).unwrap();
        md.push_str(&format!("Curated line {round} from B.\n"));
        std::fs::write(b.join("MEMORY.md"), md).unwrap();
        commit_all(&b, &format!("round {round} on b"));
        git(&b, &["push", "-q", "origin", "main"]);
        if let Err(e) = try_git(&a, &["pull", "-q", "--no-edit", "origin", "main"]) {
            failures.push(format!("pull {round}: {e}"));
            // Leave A as a person would after a failed pull: back to its own commit.
            let _ = try_git(&a, &["merge", "--abort"]);
        }
        // B takes A's commits too, so both sides keep changing MEMORY.md.
        if round % 10 == 9 {
            if let Err(e) = try_git(&a, &["push", "-q", "origin", "main"]) {
                failures.push(format!("push after {round}: {e}"));
            }
            git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
        }
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let written = writer.join().unwrap();
    settle(&a, &daemon);
    assert!(daemon.stop().success());
    assert!(
        written >= PULLS,
        "the daemon was not busy: {written} sessions"
    );
    assert!(
        failures.is_empty(),
        "{} of {PULLS} pulls failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    no_conflict_markers(&a);
    let md = std::fs::read_to_string(a.join("MEMORY.md")).unwrap();
    assert!(
        md.contains(&format!("Curated line {} from B.", PULLS - 1)),
        "{md}"
    );
}

/// Issue 43, item 2: three clones forget overlapping sessions (each of three
/// sessions on two clones) and pull and push in turn: the tombstones of one
/// session merge through the merge driver (no add/add conflict), every pull
/// succeeds, and the clones end with the same bytes and no invalid tombstone.
#[test]
fn three_clones_forgetting_overlapping_sessions_converge() {
    let tmp = tempfile::tempdir().unwrap();
    let (remote, a, b) = two_clones(tmp.path(), "");
    let c = tmp.path().join("c");
    git(
        tmp.path(),
        &["clone", "-q", remote.to_str().unwrap(), c.to_str().unwrap()],
    );
    init_repo(&c);
    let inputs = tmp.path().join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    for (i, s) in ["s-1", "s-2", "s-3", "s-4"].iter().enumerate() {
        capture(&a, &inputs, s, 60 + i as i64);
    }
    commit_all(&a, "sessions");
    git(&a, &["push", "-q"]);
    for clone in [&b, &c] {
        git(clone, &["pull", "-q", "--no-edit"]);
        memsync(clone, &["-q", "sync"]).success();
    }
    let token_of = |root: &Path, session: &str| -> String {
        let out = cmd(root, &["--json", "open", session]).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["token"]
            .as_str()
            .unwrap_or_else(|| panic!("{v}"))
            .to_string()
    };
    let forgets = [
        (&a, ["s-1", "s-2"]),
        (&b, ["s-2", "s-3"]),
        (&c, ["s-1", "s-3"]),
    ];
    for (clone, sessions) in forgets {
        for s in sessions {
            let token = token_of(clone, s);
            memsync(
                clone,
                &[
                    "-q",
                    "forget",
                    &token,
                    "--reason",
                    &format!("why {}", clone.display()),
                ],
            )
            .success();
        }
        commit_all(clone, "forget");
    }
    let mut failed = Vec::new();
    for _round in 0..3 {
        for clone in [&a, &b, &c] {
            if let Err(e) = try_git(clone, &["pull", "-q", "--no-edit"]) {
                failed.push(e);
                continue;
            }
            memsync(clone, &["-q", "sync"]).success();
            commit_all(clone, "sync");
            if let Err(e) = try_git(clone, &["push", "-q"]) {
                failed.push(e);
            }
        }
    }
    assert!(failed.is_empty(), "failed pulls or pushes: {failed:?}");
    let tracked = |root: &Path| -> std::collections::BTreeMap<String, Vec<u8>> {
        common::tree(root)
            .into_iter()
            .filter(|(p, _)| p.starts_with("memory/"))
            .collect()
    };
    assert_eq!(tracked(&a), tracked(&b), "a and b differ");
    assert_eq!(tracked(&a), tracked(&c), "a and c differ");
    let files = tracked(&a);
    let tombstones: Vec<&String> = files
        .keys()
        .filter(|p| p.starts_with("memory/tombstones/"))
        .collect();
    assert_eq!(tombstones.len(), 3, "{tombstones:?}");
    for clone in [&a, &b, &c] {
        no_conflict_markers(clone);
        let out = cmd(clone, &["check"]).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(!said.contains("tombstone.invalid"), "{said}");
        assert!(!said.contains("tombstone.resurrected"), "{said}");
    }
    let merged = String::from_utf8(files[tombstones[0]].clone()).unwrap();
    assert!(merged.contains("; why"), "both reasons kept: {merged}");
}

/// Issue 43, item 1: a one-shot capture while a git command works in the
/// repository (a pull's fetch holds no lock) writes its canonical files but
/// leaves the tracked projections alone; the next sync renders them.
#[test]
fn a_capture_while_git_works_writes_its_session_but_defers_the_projections() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, _b) = two_clones(tmp.path(), "");
    let inputs = tmp.path().join("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    capture(&a, &inputs, "before-git", 30);
    commit_all(&a, "first");
    let memory_before = std::fs::read_to_string(a.join("MEMORY.md")).unwrap();
    // A long-lived git process in the work tree, as a pull is while it fetches
    // (one that writes: readers such as `git status` do not hold memsync up).
    let mut running = Command::new("git")
        .args(["hash-object", "-w", "--stdin"])
        .current_dir(&a)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    capture(&a, &inputs, "during-git", 20);
    let summaries = std::fs::read_dir(a.join("memory"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("--summary.md"))
        .count();
    assert_eq!(summaries, 2, "the capture's own files are written");
    let memory_during = std::fs::read_to_string(a.join("MEMORY.md")).unwrap();
    assert!(
        memory_during == memory_before,
        "MEMORY.md was rendered while git worked"
    );
    let _ = running.kill();
    let _ = running.wait();
    memsync(&a, &["-q", "sync"]).success();
    let memory = std::fs::read_to_string(a.join("MEMORY.md")).unwrap();
    assert!(memory.contains("during-git"), "{memory}");
}

/// Issue 68: a pull brings another clone's render of the block, as a
/// fast-forward or merged by memsync's driver. That is nobody's typing:
/// `.memsync/edits/` stays empty and no `projection.edited-block` is
/// reported on either clone, round after round.
#[test]
fn pulls_of_another_clones_renders_are_never_kept_as_a_persons_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let (_remote, a, b) = two_clones(tmp.path(), "# Memory\n\nCurated by hand.\n");
    let inputs = tmp.path().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let publish = |clone: &Path, session: &str| {
        capture(clone, &inputs, session, 5);
        commit_all(clone, session);
        // A merge (b behind a) goes through memsync's driver.
        git(clone, &["pull", "-q", "--no-edit", "origin", "main"]);
        memsync(clone, &["-q", "sync"]).success();
        commit_all(clone, "sync");
        git(clone, &["push", "-q", "origin", "main"]);
    };
    publish(&a, "seed");
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    for round in 0..3 {
        publish(&b, &format!("from-b-{round}"));
        // a's newest render is not committed yet when the person pulls: the
        // stash comes back through memsync's driver with the pulled block.
        capture(&a, &inputs, &format!("from-a-{round}"), 5);
        git(
            &a,
            &["pull", "-q", "--no-edit", "--autostash", "origin", "main"],
        );
        memsync(&a, &["-q", "sync"]).success();
        publish(&a, &format!("more-from-a-{round}"));
        // A fast-forward brings the other clone's render as it is.
        git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
        memsync(&b, &["-q", "sync"]).success();
    }
    for clone in [&a, &b] {
        let kept: Vec<_> = std::fs::read_dir(clone.join(".memsync/edits"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        assert!(kept.is_empty(), "kept as edits: {kept:?}");
        let out = common::gitrepo::cmd(clone, &["--json", "check"])
            .output()
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("projection.edited-block"),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert!(
        std::fs::read_to_string(a.join("MEMORY.md"))
            .unwrap()
            .contains("from-b-2"),
        "the pulls reached a's ledger"
    );
}
