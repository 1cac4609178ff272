//! Issue 67 replayed on a live vault: what a person adds in Obsidian stays
//! through the next capture, a file deleted alone is reported as what it is,
//! a `memory/` folder moved with Obsidian's link updates (either link style)
//! heals when moved back and is still found from inside the vault, and a
//! MEMORY.md another tool renders is left alone and named as that tool's.

use super::*;

/// A Claude Code transcript of `session` with an answer after its request:
/// the same session grown since its first capture.
fn grown_transcript(inputs: &Path, session: &str) -> std::path::PathBuf {
    let first = common::gitrepo::transcript(inputs, session, 5);
    let text = std::fs::read_to_string(&first).unwrap();
    let at = memsync::contract::format_ts(chrono::Utc::now() - chrono::Duration::minutes(4));
    let answer = format!(
        "{{\"type\":\"assistant\",\"uuid\":\"a\",\"sessionId\":\"{session}\",\"timestamp\":\"{at}\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"Added the retry to src/{session}.rs.\"}}]}}}}\n"
    );
    std::fs::write(&first, format!("{text}{answer}")).unwrap();
    first
}

/// Every path the daemon's commits touched.
fn daemon_committed(root: &Path) -> Vec<String> {
    daemon_commits(root)
        .iter()
        .flat_map(|id| {
            git(root, &["show", "--name-only", "--format=", id])
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Issue 67 items 1 and 6: `tags` and a property of the person's own
/// (`reviewed: true`) added to a manifest in the Properties panel stay, with
/// their values, through the session's next capture; the own property is
/// explained once, the tags raise nothing, and the daemon commits only its
/// projections.
#[test]
fn properties_a_person_adds_stay_through_the_next_capture_and_are_explained() {
    let (_tmp, root, inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    let manifest = artifact(&root, "manifest");
    let text = std::fs::read_to_string(root.join(&manifest)).unwrap();
    let added = edit_properties(&text, |m| {
        m.insert("tags".into(), vec!["quokka", "retry"].into());
        m.insert("reviewed".into(), true.into());
    });
    std::fs::write(root.join(&manifest), &added).unwrap();
    wait_for(&daemon.log, "the own property explained", || {
        !with_rule(&root, "key.unknown").is_empty()
    });
    let unknown = with_rule(&root, "key.unknown");
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert!(
        unknown[0].1.contains("`reviewed`")
            && unknown[0].1.contains("A property of your own can stay"),
        "{}",
        unknown[0].1
    );
    let grown = grown_transcript(&inputs, "first-session");
    common::gitrepo::cmd(&root, &["-q", "capture", "session-end", "--transcript"])
        .arg(&grown)
        .assert()
        .success();
    let after = std::fs::read_to_string(root.join(&manifest)).unwrap();
    assert_ne!(after, added, "the capture rewrote the manifest");
    let front = after.split("---\n").nth(1).unwrap();
    let map: serde_yaml::Mapping = serde_yaml::from_str(front).unwrap();
    assert_eq!(
        map.get("tags"),
        Some(&serde_yaml::Value::from(vec!["quokka", "retry"])),
        "{after}"
    );
    assert_eq!(map.get("reviewed"), Some(&serde_yaml::Value::from(true)));
    settle(&root, &daemon);
    let committed = daemon_committed(&root);
    assert!(
        committed.iter().all(|p| common::gitrepo::is_projection(p)),
        "the daemon committed a file it does not own: {committed:?}"
    );
    assert!(daemon.stop().success());
}

/// Issue 67 item 4: a summary deleted on its own is reported as what it is,
/// the transcript and manifest still hold the session (search finds it, it
/// stays in MEMORY.md), nothing is committed for the deletion, and the way
/// back the report gives clears it.
#[test]
fn a_summary_deleted_alone_is_reported_as_kept_by_its_other_files() {
    let (_tmp, root, _inputs) = vault(1000);
    let daemon = Daemon::start(&root);
    settle(&root, &daemon);
    let summary = artifact(&root, "summary");
    std::fs::remove_file(root.join(&summary)).unwrap();
    wait_for(&daemon.log, "the deletion reported", || {
        !with_rule(&root, "artifact.deleted").is_empty()
    });
    let found = with_rule(&root, "artifact.deleted");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, summary);
    let reason = &found[0].1;
    assert!(
        reason.contains("other file(s) still hold it") && !reason.contains("left search"),
        "{reason}"
    );
    let hits = common::gitrepo::cmd(&root, &["search", "first", "--json"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&hits.stdout).contains("first-session"),
        "the report says search keeps it"
    );
    settle(&root, &daemon);
    assert!(
        in_memory_md(&root, "first-session"),
        "the report says MEMORY.md keeps it"
    );
    assert!(
        !daemon_committed(&root).contains(&summary),
        "the daemon committed the deletion"
    );
    let fix = format!("git checkout -- '{summary}'");
    assert!(reason.contains(&fix), "{reason}");
    let ran = std::process::Command::new("sh")
        .args(["-c", &fix])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(ran.success(), "{fix}");
    wait_for(&daemon.log, "the report to clear", || {
        with_rule(&root, "artifact.deleted").is_empty()
    });
    assert!(daemon.stop().success());
}

/// Obsidian's rewrite of every link into `from/` after a folder move, in
/// one of its two link styles: the full path, or the shortest (the file's
/// name alone, its names being unique). Returns the files it changed.
fn update_links(root: &Path, from: &str, to: &str, shortest: bool) -> usize {
    let mut changed = 0;
    let mut files = vec![root.join("MEMORY.md")];
    for dir in [root.join(to)] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        files.extend(entries.flatten().map(|e| e.path()));
    }
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
    {
        let text = std::fs::read_to_string(file).unwrap();
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("[[") {
            out.push_str(&rest[..at + 2]);
            rest = &rest[at + 2..];
            let end = rest.find(['|', ']']).unwrap_or(0);
            let target = &rest[..end];
            let moved = match target.strip_prefix(&format!("{from}/")) {
                Some(name) if shortest => name.trim_end_matches(".md").to_string(),
                Some(name) => format!("{to}/{name}"),
                None => target.to_string(),
            };
            out.push_str(&moved);
            rest = &rest[end..];
        }
        out.push_str(rest);
        if out != text {
            std::fs::write(file, out).unwrap();
            changed += 1;
        }
    }
    changed
}

/// Issue 67 items 2 and 5: `memory/` moved into another folder with
/// Obsidian's link updates on, in either link style. While it is away the
/// workspace is still found from inside the vault and nothing is committed;
/// moved back (links updated again), every report clears, no block is kept
/// as an edit, and the ledger is memsync's again.
#[test]
fn a_memory_folder_moved_with_link_updates_and_back_heals_in_both_link_styles() {
    for shortest in [false, true] {
        let (tmp, root, _inputs) = vault(1000);
        let daemon = Daemon::start(&root);
        settle(&root, &daemon);
        let ledger = std::fs::read_to_string(root.join("MEMORY.md")).unwrap();
        let commits = git(&root, &["rev-list", "--count", "HEAD"]);
        std::fs::create_dir_all(root.join("archive")).unwrap();
        std::fs::rename(root.join("memory"), root.join("archive/memory")).unwrap();
        let changed = update_links(&root, "memory", "archive/memory", shortest);
        assert!(changed >= 2, "MEMORY.md and the manifest link into memory/");
        wait_for(&daemon.log, "the missing folder reported", || {
            !with_rule(&root, "memory.missing").is_empty()
        });
        // Found from inside the vault, with no flag and no default workspace.
        let status = common::memsync_bin()
            .arg("status")
            .current_dir(root.join("archive"))
            .env("HOME", tmp.path().join("nohome"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&status.stdout);
        assert!(status.status.success(), "{status:?}");
        assert!(said.contains("memory/ is missing"), "{said}");
        assert_eq!(
            git(&root, &["rev-list", "--count", "HEAD"]),
            commits,
            "committed while memory/ was away"
        );
        std::fs::rename(root.join("archive/memory"), root.join("memory")).unwrap();
        update_links(&root, "archive/memory", "memory", shortest);
        wait_for(&daemon.log, "every report to clear", || {
            memsync(&root, &["-q", "sync"]);
            let found = problems(&root);
            found.iter().all(|(_, rule, _)| {
                !matches!(
                    rule.as_str(),
                    "memory.missing"
                        | "naming.moved"
                        | "checksum.mismatch"
                        | "projection.edited-block"
                )
            })
        });
        settle(&root, &daemon);
        let kept = std::fs::read_dir(root.join(".memsync/edits")).map_or(0, |d| d.count());
        assert_eq!(
            kept, 0,
            "links Obsidian rewrote were kept as typing (shortest: {shortest})"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
            ledger,
            "shortest: {shortest}"
        );
        assert!(daemon.stop().success());
    }
}

/// Issue 67 item 4: a MEMORY.md another tool renders (Signet's ledger) is
/// reported by `check` before any sync, never written or committed by the
/// daemon, and `status` says whose file it is and promises no drop.
#[test]
fn a_memory_md_another_tool_renders_is_left_alone_and_named_as_its() {
    let (_tmp, root, _inputs) = vault(1000);
    let signet = "# Memory\n\n## Session Ledger (Last 30 Days)\n\n- 2026-11-19T10:00:00.000Z | session=s-0 | project=/home/dev/code/shop | Rendered by Signet.\n";
    std::fs::write(root.join("MEMORY.md"), signet).unwrap();
    git(&root, &["commit", "-q", "-am", "Signet renders MEMORY.md"]);
    let found = with_rule(&root, "memory-md.foreign-ledger");
    assert_eq!(found.len(), 1, "check before any sync: {found:?}");
    let daemon = Daemon::start(&root);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        std::fs::read_to_string(root.join("MEMORY.md")).unwrap(),
        signet
    );
    let out = common::gitrepo::cmd(&root, &["status"]).output().unwrap();
    let status = String::from_utf8_lossy(&out.stdout);
    assert!(status.contains("MEMORY.md is another tool's"), "{status}");
    assert!(!status.contains("the next sync"), "{status}");
    assert!(!status.contains("projection stale"), "{status}");
    assert!(daemon_commits(&root).is_empty(), "the daemon committed");
    assert!(daemon.stop().success());
}
