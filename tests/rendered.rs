//! Every rendered output, pinned: MEMORY.md (with curated text, without, and
//! clipped by its budget), a daily log, and the `demo`, `sync`, `check`,
//! `status`, `search` and `open` reports as text and JSON, all on the bundled
//! example workspace at a fixed clock. A change to any of them shows up as a
//! snapshot diff to review (`cargo insta review`).

mod common;

use std::path::{Path, PathBuf};

use common::memsync_bin;

const NOW: &str = "2026-11-20T12:00:00Z";

/// The example workspace, written and synced by `memsync demo`, with the
/// demo's own report as text and as JSON.
fn demo() -> (tempfile::TempDir, PathBuf, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("demo");
    let text = redact(&run_at(None, &["demo", &root.to_string_lossy()]), &root);
    std::fs::remove_dir_all(&root).unwrap();
    let json = redact(
        &run_at(None, &["--json", "demo", &root.to_string_lossy()]),
        &root,
    );
    (tmp, root, text, json)
}

/// `memsync --now NOW [--workspace ROOT] ARGS`, its stdout with the parts that
/// differ from run to run (the temp path, timings, file sizes) redacted.
fn run_at(root: Option<&Path>, args: &[&str]) -> String {
    let mut cmd = memsync_bin();
    if let Some(root) = root {
        cmd.arg("--workspace").arg(root);
    }
    let out = cmd.args(["--now", NOW]).args(args).output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    match root {
        Some(root) => redact(&text, root),
        None => text.into_owned(),
    }
}

fn redact(text: &str, root: &Path) -> String {
    let text = text.replace(root.to_string_lossy().as_ref(), "[WS]");
    let rules = [
        (r"\x22duration_ms\x22: \d+", "\"duration_ms\": [ms]"),
        (r"took \d+ ms", "took [ms] ms"),
        (r"\x22index_bytes\x22: \d+", "\"index_bytes\": [bytes]"),
        (r"\(\d+ KiB\)", "([size] KiB)"),
    ];
    rules.iter().fold(text, |acc, (pattern, with)| {
        regex::Regex::new(pattern)
            .unwrap()
            .replace_all(&acc, *with)
            .into_owned()
    })
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn the_demo_report_reads_the_same_as_text_and_json() {
    let (_tmp, _root, text, json) = demo();
    insta::assert_snapshot!("demo_text", text);
    insta::assert_snapshot!("demo_json", json);
}

#[test]
fn memory_md_renders_with_curated_text_without_it_and_clipped_by_its_budget() {
    let (_tmp, root, _, _) = demo();
    insta::assert_snapshot!("memory_md_with_curated_text", read(&root, "MEMORY.md"));
    insta::assert_snapshot!(
        "memory_md_without_curated_text",
        read(&root, "agents/reviewer/MEMORY.md")
    );
    insta::assert_snapshot!("daily_log", read(&root, "memory/2026-11-20.md"));
    std::fs::write(
        root.join("memsync.yaml"),
        "memory_md:\n  budget_bytes: 1800\ndaily_logs:\n  timezone: UTC\n",
    )
    .unwrap();
    run_at(Some(&root), &["sync"]);
    let clipped = read(&root, "MEMORY.md");
    assert!(clipped.len() <= 1800, "{} bytes", clipped.len());
    insta::assert_snapshot!("memory_md_clipped_by_the_budget", clipped);
}

#[test]
fn the_sync_check_and_status_reports_read_the_same_as_text_and_json() {
    let (_tmp, root, _, _) = demo();
    insta::assert_snapshot!("sync_text", run_at(Some(&root), &["sync"]));
    insta::assert_snapshot!("check_text", run_at(Some(&root), &["check"]));
    insta::assert_snapshot!("check_json", run_at(Some(&root), &["--json", "check"]));
    insta::assert_snapshot!("status_text", run_at(Some(&root), &["status"]));
    insta::assert_snapshot!("status_json", run_at(Some(&root), &["--json", "status"]));
}

#[test]
fn search_and_open_read_the_same_as_text_and_json() {
    let (_tmp, root, _, _) = demo();
    insta::assert_snapshot!(
        "search_text",
        run_at(Some(&root), &["search", "daemon", "--limit", "3"])
    );
    insta::assert_snapshot!(
        "search_json",
        run_at(Some(&root), &["--json", "search", "daemon", "--limit", "3"])
    );
    insta::assert_snapshot!(
        "open_text",
        run_at(Some(&root), &["open", "gwar7autu3gbs32c"])
    );
}
