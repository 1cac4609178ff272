//! The index holds the same rows however it was built: in one cold sync, or
//! file by file in any order as a watcher or capture would feed it. Every
//! change to how the store writes (bulk loads, chunked commits, deferred
//! indexes) must keep these equal.

mod common;

use common::{Workspace, now};
use memsync::config::Settings;
use memsync::generate::{self, Shape};
use memsync::pipeline::{self, SyncOptions};
use memsync::store::Index;

/// Every canonical file under the workspace, relative, in path order.
fn canonical_paths(settings: &Settings) -> Vec<String> {
    let rules = pipeline::scan_rules(settings).expect("scan rules");
    let scan = memsync::scan::scan(&settings.root, &rules).expect("scan");
    let mut paths: Vec<String> = scan.files.into_iter().map(|f| f.path).collect();
    paths.sort();
    paths
}

/// Backdates every canonical file by an hour: a file modified within the last
/// two seconds is cached as unsettled (mtime -1), which would make the
/// `files` rows depend on how fast the test ran rather than on the build.
fn age_files(settings: &Settings) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for rel in canonical_paths(settings) {
        std::fs::File::options()
            .append(true)
            .open(settings.root.join(rel))
            .and_then(|f| f.set_modified(past))
            .expect("backdate");
    }
}

/// The rows of one cold sync of the whole workspace.
fn cold_dump(ws: &Workspace) -> String {
    ws.delete_index();
    let mut index = Index::open(&ws.settings.index_path()).expect("index");
    pipeline::sync_with(&mut index, &ws.settings, now(), SyncOptions::INDEX_ONLY).expect("sync");
    index.dump().expect("dump")
}

/// The rows after indexing the files a few at a time, newest first (so
/// sessions arrive in pieces and out of order), then one full sync for what
/// only a whole scan sees.
fn file_by_file_dump(ws: &Workspace, chunk: usize) -> String {
    ws.delete_index();
    let mut index = Index::open(&ws.settings.index_path()).expect("index");
    // Taken as complete, so `sync_paths` indexes only the paths it is given
    // instead of building the whole workspace first.
    index.set_meta(pipeline::COMPLETE, "yes").expect("mark");
    let mut paths = canonical_paths(&ws.settings);
    paths.reverse();
    for part in paths.chunks(chunk) {
        pipeline::sync_paths(
            &mut index,
            &ws.settings,
            now(),
            SyncOptions::INDEX_ONLY,
            part,
        )
        .expect("sync paths");
    }
    pipeline::sync_with(&mut index, &ws.settings, now(), SyncOptions::INDEX_ONLY).expect("sync");
    index.dump().expect("dump")
}

fn assert_same_rows(cold: &str, other: &str, how: &str) {
    if cold != other {
        let diff: Vec<String> = cold
            .lines()
            .zip(other.lines())
            .filter(|(a, b)| a != b)
            .take(5)
            .map(|(a, b)| format!("cold:  {a}\n{how}: {b}"))
            .collect();
        panic!(
            "the index built {how} differs from the cold build ({} vs {} lines):\n{}",
            cold.lines().count(),
            other.lines().count(),
            diff.join("\n")
        );
    }
}

/// A generated workspace of about 1,250 files, an hour old: more than a batch
/// reads between session refreshes (1,024), so a cold build refreshes some
/// sessions more than once, and more than a first build needs to be written
/// without a journal (1,000).
fn generated_workspace() -> Workspace {
    let ws = Workspace::new();
    let shape = Shape {
        days: 3,
        per_day: 130,
        older: 20,
        second_agent_every: 4,
        transcript_bytes: 300,
    };
    let g = generate::generate(ws.root(), now(), shape, &ws.settings.config).expect("generate");
    assert!(g.files > 1100, "{} files", g.files);
    age_files(&ws.settings);
    ws
}

#[test]
fn a_generated_workspace_indexes_to_the_same_rows_cold_or_file_by_file() {
    let ws = generated_workspace();
    let cold = cold_dump(&ws);
    assert!(cold.contains("## session_fts rows\n"));
    assert_same_rows(&cold, &file_by_file_dump(&ws, 37), "37 files at a time");
    // A second cold build is the same again: nothing depends on leftovers.
    assert_same_rows(&cold, &cold_dump(&ws), "cold again");
}

#[test]
fn the_example_workspace_with_invalid_files_and_a_tombstone_indexes_the_same_either_way() {
    let ws = Workspace::new();
    memsync::example::write(ws.root(), now(), &ws.settings.config).expect("example");
    age_files(&ws.settings);
    let cold = cold_dump(&ws);
    // The example plants problems and a tombstone: they are part of what must match.
    let pinned = fingerprint(&cold);
    assert!(!pinned.contains("problems: 0 rows"), "{pinned}");
    assert!(!pinned.contains("tombstones: 0 rows"), "{pinned}");
    assert_same_rows(&cold, &file_by_file_dump(&ws, 1), "file by file");
    assert_same_rows(&cold, &file_by_file_dump(&ws, 3), "three at a time");
}

/// Each table's row count and digest, `files` left out (its stats differ
/// from checkout to checkout): a change to any stored row shows up here.
fn fingerprint(dump: &str) -> String {
    // Row text has its newlines escaped, so a heading is any line starting `## `.
    let mut sections: Vec<(&str, String)> = Vec::new();
    for line in dump.lines() {
        match (line.strip_prefix("## "), sections.last_mut()) {
            (Some(table), _) => sections.push((table, String::new())),
            (None, Some((_, rows))) => {
                rows.push_str(line);
                rows.push('\n');
            }
            (None, None) => {}
        }
    }
    sections
        .iter()
        .filter(|(table, _)| *table != "files")
        .map(|(table, rows)| {
            let digest = memsync::contract::sha256_hex(rows.as_bytes());
            format!("{table}: {} rows, {}", rows.lines().count(), &digest[..16])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_rows_of_the_example_and_a_generated_workspace_are_pinned() {
    let example = Workspace::new();
    memsync::example::write(example.root(), now(), &example.settings.config).expect("example");
    let generated = Workspace::new();
    let shape = Shape {
        days: 2,
        per_day: 5,
        older: 3,
        second_agent_every: 3,
        transcript_bytes: 600,
    };
    generate::generate(generated.root(), now(), shape, &generated.settings.config)
        .expect("generate");
    // A different digest means the store writes different rows than before:
    // intended (review the rows with `Index::dump`) or a regression.
    insta::assert_snapshot!(format!(
        "example\n{}\n\ngenerated\n{}",
        fingerprint(&cold_dump(&example)),
        fingerprint(&cold_dump(&generated))
    ));
}

const AT: &str = "2026-11-20T12:00:00Z";

/// `memsync -v sync` at a fixed clock, spawned.
fn sync_command(ws: &Workspace) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memsync"));
    cmd.env_remove("MEMSYNC_CONFIG")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC")
        .arg("--workspace")
        .arg(ws.root())
        .args(["--now", AT, "-v", "sync"]);
    cmd
}

/// Runs `memsync -v sync` to the end; its log.
fn sync_binary(ws: &Workspace) -> String {
    let out = sync_command(ws).output().expect("memsync runs");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "sync failed: {log}");
    log
}

fn dump_of(ws: &Workspace) -> String {
    Index::open(&ws.settings.index_path())
        .and_then(|index| index.dump())
        .expect("dump")
}

/// What a later reader finds: the journal mode, and whether the mark of an
/// unfinished unjournaled build is there (read without memsync, which would
/// discard such an index on open).
fn journal_and_mark(ws: &Workspace) -> (String, bool) {
    let db = ws.db();
    let mode = db
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("journal mode");
    let marked = db
        .query_row(
            "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'first_build_unjournaled')",
            [],
            |r| r.get(0),
        )
        .unwrap_or(false);
    (mode, marked)
}

/// Whether a killed build left its mark in the index, or a file too damaged
/// to read (pages written half-way through the transaction).
fn left_mid_build(ws: &Workspace) -> bool {
    ws.db()
        .query_row(
            "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'first_build_unjournaled')",
            [],
            |r| r.get(0),
        )
        .unwrap_or(true)
}

#[test]
fn a_large_first_build_goes_without_a_journal_unless_the_index_is_open_elsewhere() {
    let ws = generated_workspace();
    ws.delete_index();
    let log = sync_binary(&ws);
    assert!(log.contains("written without a journal"), "{log}");
    assert_eq!(journal_and_mark(&ws), ("wal".to_string(), false));
    let alone = dump_of(&ws);
    // Another connection holding the empty index: the build goes through the
    // WAL, and the reader sees the rows as soon as it reads again.
    ws.delete_index();
    drop(Index::open(&ws.settings.index_path()).expect("empty index"));
    let reader = ws.db();
    let count = |db: &rusqlite::Connection| -> i64 {
        db.query_row("SELECT COUNT(*) FROM files", [], |r| r.get(0))
            .expect("count")
    };
    assert_eq!(count(&reader), 0);
    let log = sync_binary(&ws);
    assert!(log.contains("building it through the WAL"), "{log}");
    assert!(count(&reader) > 1100);
    drop(reader);
    assert_same_rows(&alone, &dump_of(&ws), "beside a reader");
}

#[test]
fn a_first_build_killed_half_way_is_discarded_and_built_again() {
    let ws = generated_workspace();
    ws.delete_index();
    let started = std::time::Instant::now();
    sync_binary(&ws);
    let full = started.elapsed();
    let clean = dump_of(&ws);
    let mut marked = 0;
    for tenth in 2..8 {
        ws.delete_index();
        let mut child = sync_command(&ws)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(full * tenth / 10);
        let _ = child.kill();
        let _ = child.wait();
        if ws.settings.index_path().exists() {
            marked += usize::from(left_mid_build(&ws));
        }
        let log = sync_binary(&ws);
        assert_same_rows(
            &clean,
            &dump_of(&ws),
            &format!("after a kill at {tenth}/10: {log}"),
        );
        assert_eq!(journal_and_mark(&ws), ("wal".to_string(), false));
        // No page of the dead build is left behind in the file either.
        let check: String = ws
            .db()
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("integrity check");
        assert_eq!(check, "ok", "after a kill at {tenth}/10");
        let state: Vec<String> = std::fs::read_dir(ws.settings.state_dir())
            .expect("state dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !state.iter().any(|f| f.contains("corrupt")),
            "a dead build's file was kept: {state:?}"
        );
    }
    // The kills must have found builds under way, or this proves nothing.
    assert!(marked >= 2, "only {marked} of 6 kills landed mid-build");
}

#[test]
fn a_failed_unjournaled_build_leaves_an_empty_index_in_wal_mode() {
    let ws = Workspace::new();
    let mut index = Index::open(&ws.settings.index_path()).expect("index");
    assert!(index.begin_unjournaled_build().expect("begin"));
    // Rows written, then the build fails: without a journal they cannot be
    // rolled back, so the whole file is made again.
    index
        .batch(|b| {
            b.put_file(
                "memory/x.md",
                "artifact",
                memsync::scan::FileStat::default(),
                None,
                None,
            )
        })
        .expect("batch");
    assert!(!index.is_empty().expect("is_empty"));
    index.end_unjournaled_build(false).expect("end");
    assert!(index.is_empty().expect("is_empty"));
    drop(index);
    assert_eq!(journal_and_mark(&ws), ("wal".to_string(), false));
}
