//! The SQLite index: stat cache, stale rows, deletion, re-index parity,
//! telemetry, tombstones, and agent scoping (spec validation tests 4, 9–12).

mod common;

use common::{Workspace, now, path_of, session, ts};
use memsync::cli::commands;
use memsync::contract;

fn count(ws: &Workspace, sql: &str) -> i64 {
    ws.db().query_row(sql, [], |r| r.get(0)).expect(sql)
}

#[test]
fn a_second_sync_reads_only_changed_files() {
    let ws = Workspace::new();
    for i in 0..5 {
        ws.add(&session(
            "default",
            &format!("cache-{i}"),
            ts("2026-11-19T10:00:00Z") + chrono::Duration::hours(i),
        ));
    }
    let first = ws.sync();
    assert_eq!((first.scanned, first.read, first.indexed), (15, 15, 15));
    let again = ws.sync();
    assert_eq!((again.read, again.unchanged, again.indexed), (0, 15, 0));
    assert!(
        again.projections_written.is_empty(),
        "{:?}",
        again.projections_written
    );

    let paths = ws.add(&session("default", "cache-new", ts("2026-11-19T20:00:00Z")));
    let third = ws.sync();
    assert_eq!((third.read, third.indexed), (3, 3));
    assert!(paths.iter().all(|p| third.read == 3 && !p.is_empty()));
}

#[test]
fn a_same_size_rewrite_with_a_preserved_mtime_is_still_seen() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "same-size", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    let summary = path_of(&paths, "summary");
    let text = ws.read(&summary);
    let mtime = std::fs::metadata(ws.path(&summary))
        .unwrap()
        .modified()
        .unwrap();
    let tampered = text.replacen("Work on", "Wrk on ", 1);
    assert_eq!(tampered.len(), text.len());
    std::fs::write(ws.path(&summary), &tampered).unwrap();
    std::fs::File::options()
        .write(true)
        .open(ws.path(&summary))
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let report = ws.sync();
    assert_eq!(report.read, 1);
    assert!(
        ws.problems_for(&summary)
            .iter()
            .any(|p| p.rule == "checksum.mismatch")
    );
}

/// Spec validation test 4: a post-commit body edit is flagged; the last good row stays.
#[test]
fn an_edited_immutable_artifact_is_flagged_and_its_last_good_row_kept() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "immutable", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    let summary = path_of(&paths, "summary");
    let before = ws.read("MEMORY.md");
    let text = ws.read(&summary);
    ws.write(&summary, &format!("{text}A hand edit after commit.\n"));
    let report = ws.sync();
    assert_eq!(report.stale, 1);
    assert!(
        ws.problems_for(&summary)
            .iter()
            .any(|p| p.rule == "checksum.mismatch")
    );
    let stale: i64 = ws
        .db()
        .query_row(
            "SELECT stale FROM artifacts WHERE source_path = ?1",
            [&summary],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stale, 1);
    // The ledger still shows the session from its last good row.
    assert_eq!(ws.read("MEMORY.md"), before);
}

/// Deleted by hand (not forgotten): the rows and problems go, and one notice
/// says how to make it final.
#[test]
fn a_deleted_file_loses_its_rows_and_problems() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "deleted", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    for p in &paths {
        ws.remove(p);
    }
    let report = ws.sync();
    assert_eq!(report.removed, 3);
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM artifacts"), 0);
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM session_fts"), 0);
    assert_eq!(
        count(
            &ws,
            "SELECT COUNT(*) FROM problems WHERE rule <> 'artifact.deleted'"
        ),
        0
    );
    let notice = ws.check().problems;
    assert_eq!(notice.len(), 1, "{notice:?}");
    assert_eq!(notice[0].rule, "artifact.deleted");
    assert!(
        notice[0].reason.contains("memsync forget"),
        "{}",
        notice[0].reason
    );
    assert!(!ws.read("MEMORY.md").contains("session=deleted"));
    assert!(
        notice[0].reason.contains("left search"),
        "{}",
        notice[0].reason
    );
}

/// One of a session's files deleted by hand: the notice says what is true,
/// that the other files still hold the session (issue 67, item 4).
#[test]
fn a_notice_for_one_deleted_file_says_the_sessions_other_files_still_hold_it() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "partly", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    let summary = path_of(&paths, "summary");
    ws.remove(&summary);
    ws.sync();
    let notice = ws.check().problems;
    let deleted: Vec<_> = notice
        .iter()
        .filter(|p| p.rule == "artifact.deleted")
        .collect();
    assert_eq!(deleted.len(), 1, "{notice:?}");
    assert!(
        deleted[0].reason.contains("2 other file(s) still hold it")
            && !deleted[0].reason.contains("left search"),
        "{}",
        deleted[0].reason
    );
    assert!(count(&ws, "SELECT COUNT(*) FROM artifacts") > 0);
}

fn mixed_workspace() -> Workspace {
    let ws = Workspace::new();
    for i in 0..4 {
        ws.add(&session(
            "default",
            &format!("mix-{i}"),
            ts("2026-11-18T10:00:00Z") + chrono::Duration::hours(i * 7),
        ));
    }
    let ops = ws.add(&session("ops", "mix-ops", ts("2026-11-19T09:00:00Z")));
    let bad = path_of(&ops, "summary");
    let text = ws.read(&bad);
    ws.write(&bad, &format!("{text}tampered\n"));
    let gone = ws.add(&session("default", "mix-gone", ts("2026-11-17T09:00:00Z")));
    let token = contract::session_token("default", "mix-gone");
    let (rel, text) = memsync::compose::tombstone("default", &token, now(), "privacy", &gone);
    ws.write(&rel, &text);
    ws
}

/// Spec validation test 9: delete the index, sync, same content rows.
#[test]
fn deleting_the_index_and_syncing_rebuilds_the_same_content_rows() {
    let ws = mixed_workspace();
    ws.sync();
    let before = ws.content_rows();
    assert!(before.len() > 10);
    ws.delete_index();
    ws.sync();
    assert_eq!(ws.content_rows(), before);
    commands::reindex(&ws.settings, now(), false, None).unwrap();
    assert_eq!(ws.content_rows(), before);
}

/// `open` closes without checkpointing, so its telemetry frames outlive it
/// in the WAL; a person who deletes only `index.db` must still get a clean
/// rebuild, not the old log replayed into the new file.
#[test]
fn deleting_only_the_index_file_rebuilds_without_replaying_its_old_log() {
    let ws = mixed_workspace();
    ws.sync();
    let before = ws.content_rows();
    let q = memsync::search::Query {
        text: "work".into(),
        limit: 10,
        ..Default::default()
    };
    let (hits, _) = commands::search(&ws.settings, &q, now()).unwrap();
    assert!(!hits.hits.is_empty());
    commands::open(&ws.settings, &hits.hits[0].token, None, now()).unwrap();
    let index = ws.settings.index_path();
    let wal = format!("{}-wal", index.display());
    assert!(
        std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0),
        "open left no log behind, so this test proves nothing"
    );
    std::fs::remove_file(&index).unwrap();
    ws.sync();
    assert_eq!(ws.content_rows(), before);
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM telemetry_access"), 0);
    let check: String = ws
        .db()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

/// Every `open` process leaves its telemetry frames in the log and the next
/// reader replays them all, so the log must stay short however many sessions
/// are opened.
#[test]
fn many_opens_keep_the_log_short() {
    let ws = mixed_workspace();
    ws.sync();
    let q = memsync::search::Query {
        text: "work".into(),
        limit: 10,
        ..Default::default()
    };
    let (hits, _) = commands::search(&ws.settings, &q, now()).unwrap();
    let wal = format!("{}-wal", ws.settings.index_path().display());
    let mut longest = 0;
    for _ in 0..150 {
        commands::open(&ws.settings, &hits.hits[0].token, None, now()).unwrap();
        longest = longest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    assert!(
        longest > 0,
        "open left no log behind, so this test proves nothing"
    );
    // 150 opens append at least 150 frames (600 KiB) to a log never cut short.
    assert!(longest < 400 * 1024, "the log grew to {longest} bytes");
}

/// Spec validation test 10: runtime telemetry survives re-index.
#[test]
fn telemetry_survives_reindex_until_explicitly_reset() {
    let ws = mixed_workspace();
    ws.sync();
    ws.db()
        .execute(
            "INSERT INTO telemetry_access(agent_id, token, access_count, last_access) VALUES ('default', 'tok', 7, '2026-11-20T00:00:00Z')",
            [],
        )
        .unwrap();
    commands::reindex(&ws.settings, now(), false, None).unwrap();
    assert_eq!(
        count(
            &ws,
            "SELECT access_count FROM telemetry_access WHERE token = 'tok'"
        ),
        7
    );
    // A schema-version change rebuilds derived tables but keeps telemetry too.
    ws.db().execute_batch("PRAGMA user_version = 999").unwrap();
    ws.sync();
    assert_eq!(
        count(
            &ws,
            "SELECT access_count FROM telemetry_access WHERE token = 'tok'"
        ),
        7
    );
    assert_eq!(
        count(&ws, "PRAGMA user_version"),
        memsync::store::SCHEMA_VERSION
    );
    commands::reindex(&ws.settings, now(), true, None).unwrap();
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM telemetry_access"), 0);
}

/// Spec validation test 11: a tombstone survives re-index; resurrected files stay out.
#[test]
fn a_tombstoned_session_stays_out_through_reindex_and_resurrection() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "forgotten", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    assert!(ws.read("MEMORY.md").contains("session=forgotten"));
    let token = contract::session_token("default", "forgotten");
    let (rel, text) =
        memsync::compose::tombstone("default", &token, now(), "privacy request", &paths);
    ws.write(&rel, &text);
    let report = ws.sync();
    assert_eq!(report.removed, 3);
    let in_index = format!("SELECT COUNT(*) FROM artifacts WHERE token = '{token}'");
    assert_eq!(count(&ws, &in_index), 0);
    assert!(!ws.read("MEMORY.md").contains("session=forgotten"));
    // The files are still there (a stale clone): reported, never indexed.
    let problems = ws.check().problems;
    assert_eq!(
        problems
            .iter()
            .filter(|p| p.rule == "tombstone.resurrected")
            .count(),
        3
    );
    commands::reindex(&ws.settings, now(), false, None).unwrap();
    assert_eq!(count(&ws, &in_index), 0);
    assert!(!ws.read("MEMORY.md").contains("session=forgotten"));
    // Deleting the files clears the reports; restoring one from a backup is caught again.
    let summary = path_of(&paths, "summary");
    let saved = ws.read(&summary);
    for p in &paths {
        ws.remove(p);
    }
    assert_eq!(ws.check().errors, 0);
    ws.write(&summary, &saved);
    ws.sync();
    assert_eq!(count(&ws, &in_index), 0);
    assert!(
        ws.problems_for(&summary)
            .iter()
            .any(|p| p.rule == "tombstone.resurrected")
    );
}

#[test]
fn removing_a_tombstone_lets_the_session_back_in() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "unforget", ts("2026-11-19T10:00:00Z")));
    let token = contract::session_token("default", "unforget");
    let (rel, text) = memsync::compose::tombstone("default", &token, now(), "mistake", &paths);
    ws.write(&rel, &text);
    ws.sync();
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM artifacts"), 0);
    ws.remove(&rel);
    ws.sync();
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM artifacts"), 3);
    assert!(ws.read("MEMORY.md").contains("session=unforget"));
}

/// Spec validation test 12: two agents with one session_key never bleed.
#[test]
fn two_agents_with_the_same_session_key_stay_apart() {
    let ws = Workspace::new();
    let mut a = session("default", "id-a", ts("2026-11-19T10:00:00Z"));
    a.session_key = Some("shared-key".into());
    let mut b = session("ops", "id-b", ts("2026-11-19T11:00:00Z"));
    b.session_key = Some("shared-key".into());
    let pa = ws.add(&a);
    let pb = ws.add(&b);
    let ta = contract::session_token("default", "shared-key");
    let tb = contract::session_token("ops", "shared-key");
    assert_ne!(ta, tb);
    assert!(pa[0].contains(&ta) && pb[0].contains(&tb));
    ws.sync();
    assert_eq!(
        count(
            &ws,
            &format!(
                "SELECT COUNT(*) FROM artifacts WHERE agent_id = 'default' AND token = '{tb}'"
            )
        ),
        0
    );
    assert_eq!(
        count(
            &ws,
            &format!("SELECT COUNT(*) FROM artifacts WHERE agent_id = 'ops' AND token = '{ta}'")
        ),
        0
    );
    let default_md = ws.read("MEMORY.md");
    let ops_md = ws.read("agents/ops/MEMORY.md");
    assert!(default_md.contains(&ta) && !default_md.contains(&tb));
    assert!(ops_md.contains(&tb) && !ops_md.contains(&ta));
}

#[test]
fn index_and_state_dir_are_private_and_ignored_by_git() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new();
    ws.sync();
    let state = ws.path(".memsync");
    assert_eq!(
        std::fs::metadata(&state).unwrap().permissions().mode() & 0o777,
        0o700
    );
    assert_eq!(
        std::fs::metadata(ws.settings.index_path())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::read_to_string(state.join(".gitignore")).unwrap(),
        "*\n"
    );
}

#[test]
fn a_corrupt_index_is_moved_aside_and_rebuilt_from_markdown() {
    let ws = Workspace::new();
    ws.add(&session("default", "corrupt", ts("2026-11-19T10:00:00Z")));
    ws.sync();
    let index = ws.settings.index_path();
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    std::fs::write(&index, vec![0x42u8; 8192]).unwrap();
    ws.sync();
    assert_eq!(count(&ws, "SELECT COUNT(*) FROM artifacts"), 3);
}

#[test]
fn syncing_given_paths_reads_only_those_and_matches_a_full_sync() {
    use memsync::pipeline::{SyncOptions, sync_paths};
    let ws = Workspace::new();
    for i in 0..4 {
        ws.add(&session(
            "default",
            &format!("paths-{i}"),
            ts("2026-11-18T10:00:00Z") + chrono::Duration::hours(i),
        ));
    }
    ws.sync();
    let mut index = memsync::store::Index::open(&ws.settings.index_path()).unwrap();
    let opts = SyncOptions::RENDER;
    let new = ws.add(&session("default", "paths-new", ts("2026-11-19T09:00:00Z")));
    let gone = ws.add(&session(
        "default",
        "paths-gone",
        ts("2026-11-19T08:00:00Z"),
    ));
    let mut given: Vec<String> = new.clone();
    given.extend(["notes/unrelated.md".to_string(), "MEMORY.md".to_string()]);
    let report = sync_paths(&mut index, &ws.settings, now(), opts, &given).unwrap();
    assert_eq!((report.read, report.indexed), (3, 3));
    assert!(ws.read("MEMORY.md").contains("session=paths-new"));
    assert!(
        !ws.read("MEMORY.md").contains("session=paths-gone"),
        "a path not given is not looked at"
    );

    // Deletions are paths that no longer exist; unchanged files are not re-read.
    for p in &new {
        ws.remove(p);
    }
    let mut given = new.clone();
    given.push(path_of(&gone, "summary"));
    let report = sync_paths(&mut index, &ws.settings, now(), opts, &given).unwrap();
    assert_eq!(report.removed, 3);
    assert!(!ws.read("MEMORY.md").contains("session=paths-new"));

    // Afterwards a full sync finds only what was never given, and both roads end in the same rows.
    let paths_then_full = {
        ws.sync();
        ws.content_rows()
    };
    ws.delete_index();
    ws.sync();
    assert_eq!(ws.content_rows(), paths_then_full);
}

#[test]
fn a_tombstone_given_by_path_purges_its_session() {
    use memsync::pipeline::{SyncOptions, sync_paths};
    let ws = Workspace::new();
    let paths = ws.add(&session(
        "default",
        "paths-forget",
        ts("2026-11-19T10:00:00Z"),
    ));
    ws.sync();
    let token = contract::session_token("default", "paths-forget");
    let (rel, text) = memsync::compose::tombstone("default", &token, now(), "privacy", &paths);
    ws.write(&rel, &text);
    let mut index = memsync::store::Index::open(&ws.settings.index_path()).unwrap();
    let report = sync_paths(&mut index, &ws.settings, now(), SyncOptions::RENDER, &[rel]).unwrap();
    assert_eq!(report.removed, 3);
    assert!(!ws.read("MEMORY.md").contains("session=paths-forget"));
    // The session's files, still on disk, were judged again and reported.
    assert_eq!(
        ws.check()
            .problems
            .iter()
            .filter(|p| p.rule == "tombstone.resurrected")
            .count(),
        3
    );
}
