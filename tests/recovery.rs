//! The index is derived: a fresh clone, a damaged index or a row lost to a
//! race is rebuilt from markdown, and no projection is rendered from an index
//! that does not hold the whole workspace (issue 26, defects 2, 4 and 5).

mod common;

use chrono::Duration;
use common::{Workspace, run_at, session, ts};

const NOW: &str = "2026-11-20T12:00:00Z";

fn ledger_rows(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("- 20")).count()
}

/// A workspace with 30 sessions on 2026-11-19, synced.
fn thirty_sessions() -> Workspace {
    let ws = Workspace::new();
    for i in 0..30 {
        ws.add(&session(
            "default",
            &format!("old-{i}"),
            ts("2026-11-19T08:00:00Z") + Duration::minutes(i),
        ));
    }
    ws.sync();
    ws
}

fn claude_transcript(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("t.jsonl");
    std::fs::write(
        &path,
        common::chats::claude_code_chat(
            "fresh-1",
            "/home/ana/shop",
            "2026-11-20T09:00:00.120Z",
            &[(
                "Add a retry to the payment client",
                "Added exponential backoff; tests pass.",
            )],
        ),
    )
    .expect("transcript");
    path
}

#[test]
fn a_capture_in_a_fresh_clone_renders_every_session_not_only_its_own() {
    let ws = thirty_sessions();
    assert_eq!(ledger_rows(&ws.read("MEMORY.md")), 30);
    let clone = Workspace::copy_of(ws.root());
    assert!(!clone.settings.index_path().exists());
    let inputs = tempfile::tempdir().expect("tempdir");
    let out = run_at(
        clone.root(),
        NOW,
        &[
            "capture",
            "session-end",
            "--transcript",
            claude_transcript(inputs.path()).to_str().expect("utf-8"),
        ],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(ledger_rows(&clone.read("MEMORY.md")), 31);
    assert_eq!(
        clone
            .read("memory/2026-11-19.md")
            .matches("session=old-")
            .count(),
        30
    );
}

#[test]
fn sync_restores_a_row_the_index_lost_while_the_file_stayed_unchanged() {
    let ws = thirty_sessions();
    let clean = ws.content_rows();
    // What a capture racing a first build left behind: the file and its stat
    // cache entry, but no artifact row.
    let lost: String = ws
        .db()
        .query_row(
            "SELECT source_path FROM artifacts WHERE source_kind = 'manifest' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .expect("a manifest");
    ws.db()
        .execute("DELETE FROM artifacts WHERE source_path = ?1", [&lost])
        .expect("delete row");
    assert!(ws.content_rows() != clean);
    let report = ws.sync();
    let now = ws.content_rows();
    let diff: Vec<(&String, &String)> = clean
        .iter()
        .zip(&now)
        .filter(|(a, b)| a != b)
        .take(2)
        .collect();
    assert!(
        now == clean,
        "sync did not restore {lost}: {report:?}\n{} vs {} rows, {diff:#?}",
        clean.len(),
        now.len()
    );
    assert_eq!(ws.check().errors, 0);
}

/// Overwrites the root pages of the main tables with garbage: the header and
/// the schema still read, so opening the index succeeds and only the queries
/// find the damage (what a kill -9 loop left behind).
fn damage_index(ws: &Workspace) {
    let (page_size, roots): (i64, Vec<i64>) = {
        let db = ws.db();
        let size = db
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        let mut stmt = db
            .prepare("SELECT rootpage FROM sqlite_schema WHERE name IN ('artifacts', 'sessions', 'files', 'problems')")
            .expect("prepare");
        let roots = stmt
            .query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        (size, roots)
    };
    let path = ws.settings.index_path();
    let mut bytes = std::fs::read(&path).expect("index");
    for root in roots {
        let start = ((root - 1) * page_size) as usize;
        for b in &mut bytes[start..start + page_size as usize] {
            *b = 0xA5;
        }
    }
    std::fs::write(&path, bytes).expect("damage");
}

#[test]
fn every_command_rebuilds_a_damaged_index_instead_of_failing() {
    let ws = thirty_sessions();
    let clean = ws.content_rows();
    for args in [&["sync"][..], &["check"], &["search", "old-3"], &["status"]] {
        // Checkpointed and closed by the sync: the damage is in the file itself.
        ws.sync();
        damage_index(&ws);
        let out = run_at(ws.root(), NOW, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            stderr.contains("index is damaged; rebuilding from markdown"),
            "{args:?} said nothing: {stderr}"
        );
        ws.sync();
        assert_eq!(ws.content_rows(), clean, "rows after {args:?}");
    }
}
