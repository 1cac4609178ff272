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

/// Every problem `check` reports: (path, rule, reason).
fn problems(root: &Path) -> Vec<(String, String, String)> {
    let out = common::gitrepo::cmd(root, &["check", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            (s("path"), s("rule"), s("reason"))
        })
        .collect()
}

fn with_rule(root: &Path, rule: &str) -> Vec<(String, String)> {
    problems(root)
        .into_iter()
        .filter(|(_, r, _)| r == rule)
        .map(|(p, _, reason)| (p, reason))
        .collect()
}

/// The workspace-relative path of the session's `kind` file.
fn artifact(root: &Path, kind: &str) -> String {
    let mut found: Vec<String> = std::fs::read_dir(root.join("memory"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(&format!("--{kind}.md")))
        .collect();
    found.sort();
    format!(
        "memory/{}",
        found.first().expect("an artifact of that kind")
    )
}

/// The frontmatter of `text` edited in the Properties panel: parsed and
/// written back by a real YAML library, with `edit` applied.
fn edit_properties(text: &str, edit: impl Fn(&mut serde_yaml::Mapping)) -> String {
    let rest = text.strip_prefix("---\n").unwrap();
    let (yaml, body) = rest.split_once("\n---\n").unwrap();
    let mut map: serde_yaml::Mapping = serde_yaml::from_str(yaml).unwrap();
    edit(&mut map);
    format!("---\n{}---\n{body}", serde_yaml::to_string(&map).unwrap())
}

fn in_memory_md(root: &Path, needle: &str) -> bool {
    std::fs::read_to_string(root.join("MEMORY.md")).is_ok_and(|t| t.contains(needle))
}

/// Tags, aliases and cssclasses added in the Properties panel are silent;
/// a time set with the date picker (no zone) is explained with the way
/// back, and the session keeps its rows meanwhile.
#[test]
fn obsidians_standard_properties_are_silent_and_its_date_picker_is_explained() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let summary = artifact(&root, "summary");
    let text = std::fs::read_to_string(root.join(&summary)).unwrap();
    let tagged = edit_properties(&text, |m| {
        m.insert("tags".into(), vec!["memsync", "retry"].into());
        m.insert("aliases".into(), vec!["Work on the first session"].into());
        m.insert("cssclasses".into(), vec!["wide"].into());
    });
    std::fs::write(root.join(&summary), &tagged).unwrap();
    wait_for(&daemon.log, "the edit to be read", || {
        memsync(&root, &["-q", "sync"]);
        problems(&root).is_empty()
    });
    let picked = edit_properties(&tagged, |m| {
        m.insert("captured_at".into(), "2026-11-24T10:40".into());
    });
    std::fs::write(root.join(&summary), picked).unwrap();
    wait_for(&daemon.log, "the date picker's value reported", || {
        !with_rule(&root, "key.timestamp").is_empty()
    });
    let (path, reason) = &with_rule(&root, "key.timestamp")[0];
    assert_eq!(path, &summary);
    assert!(
        reason.contains("date picker") && reason.contains("Property type → Text"),
        "{reason}"
    );
    assert!(
        in_memory_md(&root, "first-session"),
        "the last good rows stay"
    );
    assert!(daemon.stop().success());
}

/// The aliases and tags a person adds in the Properties panel, to the
/// manifest or to the summary, in a list or as one value, find the session
/// in search once the daemon has read the edit; taking them out again
/// leaves nothing to find.
#[test]
fn aliases_and_tags_a_person_adds_find_the_session_in_search() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let finds = |word: &str| {
        let out = common::gitrepo::cmd(&root, &["search", word, "--json"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains("first-session")
    };
    assert!(!finds("zanzibar") && !finds("quokka") && !finds("okapi"));
    let manifest = artifact(&root, "manifest");
    let summary = artifact(&root, "summary");
    let text = std::fs::read_to_string(root.join(&manifest)).unwrap();
    let named = edit_properties(&text, |m| {
        m.insert("aliases".into(), vec!["Zanzibar retrospective"].into());
        m.insert("tags".into(), "#quokka".into());
    });
    std::fs::write(root.join(&manifest), &named).unwrap();
    let text = std::fs::read_to_string(root.join(&summary)).unwrap();
    let tagged = edit_properties(&text, |m| {
        m.insert("tags".into(), vec!["okapi", "retry"].into());
    });
    std::fs::write(root.join(&summary), &tagged).unwrap();
    wait_for(&daemon.log, "the properties to be searchable", || {
        finds("zanzibar") && finds("quokka") && finds("okapi")
    });
    assert!(problems(&root).is_empty(), "{:?}", problems(&root));
    std::fs::write(root.join(&manifest), text_without(&named, "aliases")).unwrap();
    wait_for(&daemon.log, "the alias taken out of search", || {
        !finds("zanzibar") && finds("quokka")
    });
    assert!(daemon.stop().success());
}

/// What a person types into a daily log around memsync's block, above or
/// below it, is found by `search` and offered by `context` once the daemon
/// has read it; the block is never part of it, and taking the lines out
/// again leaves nothing to find.
#[test]
fn lines_a_person_types_into_a_daily_log_are_searchable_and_in_context() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let daily: Vec<String> = std::fs::read_dir(root.join("memory"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 13 && n.ends_with(".md"))
        .collect();
    let log = root.join("memory").join(&daily[0]);
    let rendered = std::fs::read_to_string(&log).unwrap();
    let finds = |word: &str| {
        let out = common::gitrepo::cmd(&root, &["search", word, "--json"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains(&daily[0])
    };
    assert!(!finds("okapi") && !finds("sessions"));
    for (word, typed) in [
        (
            "okapi",
            format!("Called the vendor about the okapi invoice.\n\n{rendered}"),
        ),
        (
            "quokka",
            format!("{rendered}\n## Evening\n\nThe quokka invoice is paid.\n"),
        ),
    ] {
        std::fs::write(&log, &typed).unwrap();
        wait_for(&daemon.log, "the typed lines to be searchable", || {
            finds(word)
        });
        // The block's own words are the sessions', not the note's.
        assert!(!finds("sessions"));
        let context = common::gitrepo::cmd(&root, &["context"]).output().unwrap();
        assert!(
            String::from_utf8_lossy(&context.stdout).contains(&format!("{word} invoice")),
            "{}",
            String::from_utf8_lossy(&context.stdout)
        );
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            typed,
            "the person's lines stay byte for byte"
        );
    }
    assert!(!finds("okapi"), "the lines taken out are no longer found");
    std::fs::write(&log, &rendered).unwrap();
    wait_for(&daemon.log, "the lines taken out of search", || {
        !finds("quokka")
    });
    assert!(problems(&root).is_empty(), "{:?}", problems(&root));
    assert!(daemon.stop().success());
}

/// `text` with one property taken out.
fn text_without(text: &str, key: &str) -> String {
    edit_properties(text, |m| {
        m.remove(key);
    })
}

/// Renaming a summary to a readable title: the renamed file is named in the
/// report as the session's summary, with the way back; it is not indexed
/// as a note beside its session. Moving it back heals everything.
#[test]
fn a_renamed_summary_is_reported_with_the_way_back_and_moving_it_back_heals() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let summary = artifact(&root, "summary");
    let renamed = "memory/Work on the first session.md";
    std::fs::rename(root.join(&summary), root.join(renamed)).unwrap();
    wait_for(&daemon.log, "the rename reported", || {
        !with_rule(&root, "naming.moved").is_empty()
    });
    let (path, reason) = &with_rule(&root, "naming.moved")[0];
    assert_eq!(path, renamed);
    let fix = format!("mv '{renamed}' '{summary}'");
    assert!(reason.contains(&format!("`{fix}`")), "{reason}");
    assert!(
        reason.contains("the summary of session first-session"),
        "{reason}"
    );
    let notes = common::gitrepo::cmd(&root, &["search", "first", "--json"])
        .output()
        .unwrap();
    let hits = String::from_utf8_lossy(&notes.stdout).to_string();
    assert!(
        !hits.contains("Work on the first session.md"),
        "indexed as a note: {hits}"
    );
    // The fix as the report words it, run where the person is: the rename
    // is not committed (Obsidian's case), where `git mv` would fail.
    let ran = std::process::Command::new("sh")
        .args(["-c", &fix])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(ran.success(), "{fix}");
    wait_for(&daemon.log, "the report to clear", || {
        with_rule(&root, "naming.moved").is_empty()
    });
    wait_for(&daemon.log, "the session back in MEMORY.md", || {
        in_memory_md(&root, "first-session")
    });
    assert!(daemon.stop().success());
}

/// Obsidian's "automatically update internal links": renaming a summary
/// also rewrites the link in its manifest's body. Both are reported (the
/// copy with the way back, the manifest's checksum), the session keeps its
/// rows, and renaming back in Obsidian (links updated again) heals both.
#[test]
fn a_rename_with_obsidians_link_update_is_reported_and_renaming_back_heals() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let (summary, manifest) = (artifact(&root, "summary"), artifact(&root, "manifest"));
    let renamed = "memory/First session.md";
    let manifest_text = std::fs::read_to_string(root.join(&manifest)).unwrap();
    assert!(manifest_text.contains(&format!("[[{summary}|summary]]")));
    // Obsidian updates every link to the file: the manifest's, and the
    // ledger's in MEMORY.md (inside memsync's block).
    let obsidian_rename = |from: &str, to: &str| {
        std::fs::rename(root.join(from), root.join(to)).unwrap();
        for file in [manifest.as_str(), "MEMORY.md"] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            std::fs::write(root.join(file), text.replace(from, to)).unwrap();
        }
    };
    obsidian_rename(&summary, renamed);
    wait_for(&daemon.log, "both reported", || {
        !with_rule(&root, "naming.moved").is_empty()
            && with_rule(&root, "checksum.mismatch")
                .iter()
                .any(|(p, _)| *p == manifest)
    });
    memsync(&root, &["-q", "sync"]);
    assert!(
        in_memory_md(&root, &summary),
        "the session lost its summary"
    );
    obsidian_rename(renamed, &summary);
    wait_for(&daemon.log, "both reports to clear", || {
        with_rule(&root, "naming.moved").is_empty()
            && with_rule(&root, "checksum.mismatch").is_empty()
    });
    assert_eq!(
        std::fs::read_to_string(root.join(&manifest)).unwrap(),
        manifest_text
    );
    // Obsidian's default link style, the shortest path: renamed away and
    // back, the manifest's link is `[[<name>|summary]]`, not memsync's full
    // path. The same link, so nothing is left to report.
    let stem = |p: &str| {
        p.trim_start_matches("memory/")
            .trim_end_matches(".md")
            .to_string()
    };
    let shortest = |from: &str, to: &str| {
        std::fs::rename(root.join(from), root.join(to)).unwrap();
        let text = std::fs::read_to_string(root.join(&manifest)).unwrap();
        let text = text.replace(&format!("[[{from}|"), &format!("[[{}|", stem(to)));
        let text = text.replace(&format!("[[{}|", stem(from)), &format!("[[{}|", stem(to)));
        std::fs::write(root.join(&manifest), text).unwrap();
    };
    shortest(&summary, renamed);
    wait_for(&daemon.log, "the rename reported", || {
        !with_rule(&root, "naming.moved").is_empty()
    });
    shortest(renamed, &summary);
    let now = std::fs::read_to_string(root.join(&manifest)).unwrap();
    assert!(
        now.contains(&format!("[[{}|summary]]", stem(&summary))),
        "{now}"
    );
    wait_for(&daemon.log, "both reports to clear", || {
        with_rule(&root, "naming.moved").is_empty()
            && with_rule(&root, "checksum.mismatch").is_empty()
    });
    // Links Obsidian rewrote are nobody's typing: nothing kept, nothing said.
    memsync(&root, &["-q", "sync"]);
    assert!(with_rule(&root, "projection.edited-block").is_empty());
    let kept = std::fs::read_dir(root.join(".memsync/edits")).map_or(0, |d| d.count());
    assert_eq!(kept, 0, "blocks kept as typed");
    assert!(daemon.stop().success());
}

/// A summary whose body was edited keeps its last good rows (the session
/// stays in MEMORY.md); renamed to a title and back, it still has them.
/// While renamed, the session keeps its place; when the renamed copy is
/// deleted, the session leaves.
#[test]
fn a_stale_summary_renamed_away_and_back_keeps_its_last_good_rows() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let summary = artifact(&root, "summary");
    let text = std::fs::read_to_string(root.join(&summary)).unwrap();
    std::fs::write(
        root.join(&summary),
        format!("{text}A line typed in Obsidian.\n"),
    )
    .unwrap();
    wait_for(&daemon.log, "the edit reported", || {
        !with_rule(&root, "checksum.mismatch").is_empty()
    });
    assert!(in_memory_md(&root, &summary));

    let renamed = "memory/First session.md";
    std::fs::rename(root.join(&summary), root.join(renamed)).unwrap();
    wait_for(&daemon.log, "the rename reported", || {
        !with_rule(&root, "naming.moved").is_empty()
    });
    memsync(&root, &["-q", "sync"]);
    assert!(
        in_memory_md(&root, &summary),
        "the summary left while renamed"
    );
    std::fs::rename(root.join(renamed), root.join(&summary)).unwrap();
    wait_for(&daemon.log, "the rename report to clear", || {
        with_rule(&root, "naming.moved").is_empty()
    });
    memsync(&root, &["-q", "sync"]);
    assert!(
        in_memory_md(&root, &summary),
        "the last good rows were lost"
    );
    assert!(!with_rule(&root, "checksum.mismatch").is_empty());

    std::fs::rename(root.join(&summary), root.join(renamed)).unwrap();
    wait_for(&daemon.log, "the rename reported", || {
        !with_rule(&root, "naming.moved").is_empty()
    });
    std::fs::remove_file(root.join(renamed)).unwrap();
    wait_for(&daemon.log, "the summary to leave MEMORY.md", || {
        !in_memory_md(&root, &summary)
    });
    assert!(daemon.stop().success());
}

/// Conflict copies of a summary (Dropbox's name, changed text) and of
/// MEMORY.md (iCloud's name) are reported naming their originals.
#[test]
fn sync_conflict_copies_are_reported_naming_their_originals() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let summary = artifact(&root, "summary");
    let copy = summary.replace(".md", " (Ana's conflicted copy 2026-11-24).md");
    let text = std::fs::read_to_string(root.join(&summary)).unwrap();
    std::fs::write(root.join(&copy), format!("{text}Changed on the laptop.\n")).unwrap();
    std::fs::copy(root.join("MEMORY.md"), root.join("MEMORY 2.md")).unwrap();
    wait_for(&daemon.log, "both copies reported", || {
        with_rule(&root, "sync.conflict-copy").len() == 2
    });
    let found = with_rule(&root, "sync.conflict-copy");
    let of_summary = found
        .iter()
        .find(|(p, _)| p == &copy)
        .expect("the summary's copy");
    assert!(
        of_summary.1.contains(&format!("of `{summary}`")),
        "{}",
        of_summary.1
    );
    assert!(of_summary.1.contains("diff"), "{}", of_summary.1);
    let of_memory = found
        .iter()
        .find(|(p, _)| p == "MEMORY 2.md")
        .expect("MEMORY.md's copy");
    assert!(
        of_memory.1.contains("same bytes as `MEMORY.md`"),
        "{}",
        of_memory.1
    );
    std::fs::remove_file(root.join(&copy)).unwrap();
    std::fs::remove_file(root.join("MEMORY 2.md")).unwrap();
    wait_for(&daemon.log, "the reports to clear", || {
        memsync(&root, &["-q", "sync"]);
        with_rule(&root, "sync.conflict-copy").is_empty()
    });
    assert!(daemon.stop().success());
}

/// Deleting a session in Obsidian moves it to `.trash/`: the deletion is
/// reported with the way to make it final, `.trash/` stays out of git, and
/// `forget` then works on the session whose files are gone.
#[test]
fn a_session_deleted_to_the_trash_is_reported_and_can_be_forgotten_for_good() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    std::fs::create_dir_all(root.join(".trash")).unwrap();
    for kind in ["summary", "transcript", "manifest"] {
        let path = artifact(&root, kind);
        let name = path.trim_start_matches("memory/");
        std::fs::rename(root.join(&path), root.join(".trash").join(name)).unwrap();
    }
    wait_for(&daemon.log, "the deletion reported", || {
        !with_rule(&root, "artifact.deleted").is_empty()
    });
    let found = with_rule(&root, "artifact.deleted");
    assert_eq!(found.len(), 1, "one notice a session: {found:?}");
    assert!(found[0].1.contains(".trash/"), "{}", found[0].1);
    let status = git(&root, &["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        !status.contains(".trash"),
        "the trash is not for git: {status}"
    );
    let token = found[0].0.split("--").nth(1).unwrap().to_string();
    settle(&root, &daemon);
    assert!(daemon.stop().success());
    memsync(
        &root,
        &[
            "forget",
            &token,
            "--agent",
            "default",
            "--reason",
            "deleted in Obsidian",
            "-y",
        ],
    )
    .success();
    assert!(with_rule(&root, "artifact.deleted").is_empty());
    // The trash held the session's text: forgetting it empties that too.
    let left: Vec<String> = std::fs::read_dir(root.join(".trash"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(&token))
        .collect();
    assert!(
        left.is_empty(),
        "forgotten text left in the trash: {left:?}"
    );
}

/// Moving `memory/` into another folder keeps every row (nothing is
/// committed empty), reports the folder and each moved file, and moving it
/// back leaves the ledger as it was.
#[test]
fn a_moved_memory_folder_keeps_the_ledger_and_nothing_empty_is_committed() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    let ledger = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
    let commits = git(&root, &["rev-list", "--count", "HEAD"]);
    std::fs::create_dir_all(root.join("archive")).unwrap();
    std::fs::rename(root.join("memory"), root.join("archive/memory")).unwrap();
    wait_for(&daemon.log, "the missing folder reported", || {
        !with_rule(&root, "memory.missing").is_empty()
    });
    wait_for(&daemon.log, "the moved files reported", || {
        !with_rule(&root, "naming.moved").is_empty()
    });
    std::thread::sleep(Duration::from_millis(2000));
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        ledger
    );
    assert_eq!(
        git(&root, &["rev-list", "--count", "HEAD"]),
        commits,
        "nothing committed"
    );
    // What status and check say is true: no sync will render anything
    // while the folder is away, and check says it once, in its report.
    let out = |args: &[&str]| common::gitrepo::cmd(&root, args).output().unwrap();
    let status = String::from_utf8_lossy(&out(&["status"]).stdout).to_string();
    assert!(status.contains("memory/ is missing"), "{status}");
    assert!(!status.contains("the next sync renders it"), "{status}");
    let check = out(&["check"]);
    let said = String::from_utf8_lossy(&check.stderr).to_string();
    assert!(!said.contains("WARN"), "{said}");
    std::fs::rename(root.join("archive/memory"), root.join("memory")).unwrap();
    wait_for(&daemon.log, "the reports to clear", || {
        memsync(&root, &["-q", "sync"]);
        with_rule(&root, "memory.missing").is_empty() && with_rule(&root, "naming.moved").is_empty()
    });
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        ledger
    );
    assert!(daemon.stop().success());
}

/// A line typed inside memsync's block is replaced by the next render, but
/// kept under `.memsync/edits/` and reported first.
#[test]
fn an_edit_inside_the_block_is_kept_and_reported_before_it_is_replaced() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    let text = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
    let end = text.find("<!-- memsync:end -->").unwrap();
    let edited = format!(
        "{}- my own note inside the block\n{}",
        &text[..end],
        &text[end..]
    );
    std::fs::write(root.join("MEMORY.md"), edited).unwrap();
    wait_for(&daemon.log, "the render that replaces it", || {
        !in_memory_md(&root, "my own note inside the block")
    });
    let found = with_rule(&root, "projection.edited-block");
    assert_eq!(
        found.len(),
        1,
        "{found:?}\n{}",
        std::fs::read_to_string(&daemon.log).unwrap_or_default()
    );
    assert_eq!(found[0].0, "MEMORY.md");
    let kept: Vec<_> = std::fs::read_dir(root.join(".memsync/edits"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(kept.len(), 1);
    let saved = std::fs::read_to_string(kept[0].path()).unwrap();
    assert!(saved.contains("- my own note inside the block"), "{saved}");
    assert!(
        found[0]
            .1
            .contains(&kept[0].file_name().to_string_lossy().to_string())
    );
    assert!(daemon.stop().success());
}

/// What the daemon did is on record: `memsync log` lists the batch that
/// rendered a new session and the commit of memsync's block.
#[test]
fn memsync_log_shows_what_the_daemon_rendered_and_committed() {
    let (_tmp, root, inputs) = vault(500);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    capture(&root, &inputs, "logged-session", 5);
    let entries = || {
        let out = common::gitrepo::cmd(&root, &["log", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap()
    };
    wait_for(&daemon.log, "a commit on record", || {
        entries().iter().any(|e| e["what"] == "commit")
    });
    let commit = entries()
        .into_iter()
        .find(|e| e["what"] == "commit")
        .unwrap();
    assert!(
        commit["paths"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "MEMORY.md"),
        "{commit}"
    );
    let text = common::gitrepo::cmd(&root, &["log"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("commit   committed memsync's block"),
        "{text}"
    );
    assert!(daemon.stop().success());
}

/// Issue 68: under writes that never pause, the quiet rule was never met and
/// the daemon made no commit in 5 minutes. At the latest
/// `git.commit_max_delay_seconds` after the first waiting change it commits,
/// still only memsync's block: never the line being typed around it.
#[test]
fn writes_that_never_pause_are_committed_after_the_max_delay_without_the_typed_text() {
    let (_tmp, root, inputs) = vault(3000);
    let config = std::fs::read_to_string(root.join("memsync.yaml")).unwrap();
    std::fs::write(
        root.join("memsync.yaml"),
        config.replace("git:\n", "git:\n  commit_max_delay_seconds: 4\n"),
    )
    .unwrap();
    git(&root, &["commit", "-q", "-am", "max delay"]);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    let before = daemon_commits(&root).len();
    let memory = root.join("MEMORY.md");
    capture(&root, &inputs, "while-typing", 5);
    // Typing above the block every 700 ms for 9 s: never 3 s of quiet.
    let line = "Deploys go out on Tuesdays after the standup, never on a Friday evening.";
    for step in (4..=line.len()).step_by(6).take(13) {
        let rendered = std::fs::read_to_string(&memory).unwrap();
        let (_, block_and_after) = rendered.split_at(rendered.find("<!-- memsync:begin").unwrap());
        std::fs::write(&memory, format!("{}\n\n{block_and_after}", &line[..step])).unwrap();
        std::thread::sleep(Duration::from_millis(700));
    }
    let made = daemon_commits(&root);
    assert!(
        made.len() > before,
        "no commit within 9 s of writes that never paused"
    );
    for id in &made {
        let text = git(&root, &["show", &format!("{id}:MEMORY.md")]);
        assert!(
            !text.contains("Deploys go out"),
            "typed text committed in {id}"
        );
    }
    assert!(git(&root, &["show", "HEAD:MEMORY.md"]).contains("while-typing"));
    assert!(daemon.stop().success());
}

#[path = "obsidian/round2.rs"]
mod round2;
