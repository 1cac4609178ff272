//! Memory stays bounded whatever the workspace holds: a process's peak RSS
//! is under 64 MiB (the README's promise) with 100,000 invalid files.

mod common;

use std::path::Path;

use common::rss::{RSS_LIMIT_KIB, run_measured, scratch_dir};

const INVALID_FILES: usize = 100_000;

/// `n` files named like summaries that fail validation three ways, each
/// with a body of `body_bytes` that must never reach the index.
fn write_invalid_files(root: &Path, n: usize, body_bytes: usize) {
    let memory = root.join("memory");
    std::fs::create_dir_all(&memory).expect("memory dir");
    let body = "lorem ipsum dolor sit amet ".repeat(body_bytes / 27 + 1);
    for i in 0..n {
        let (name, text) = invalid_file(i, &body);
        std::fs::write(memory.join(name), text).expect("write");
    }
}

/// File `i`: a name with a token of its own, and one of three invalid heads.
fn invalid_file(i: usize, body: &str) -> (String, String) {
    let alphabet = b"abcdefghijklmnopqrstuvwxyz234567";
    let digits: String = (0..4)
        .map(|k| alphabet[(i >> (k * 5)) % 32] as char)
        .collect();
    let token = format!("{digits}qqqqqqqqqqqq");
    let name = format!("2026-11-2{}T01-15-08.265Z--{token}--summary.md", i % 4);
    let head = match i % 3 {
        0 => "---\nkind: [unclosed\n---\n".to_string(),
        1 => "---\nkind: summary\nagent_id: default\n".to_string(),
        _ => format!(
            "---\nkind: summary\nagent_id: default\nsession_id: s{i}\ncaptured_at: \"2026-11-24T01:15:08.265Z\"\ncontent_sha256: \"{}\"\nhash_scope: body-normalized-v1\n---\n",
            "0".repeat(64)
        ),
    };
    (name, format!("{head}## Summary\n\n{body}\n"))
}

#[test]
fn a_hundred_thousand_invalid_files_cost_a_row_each_and_bounded_memory() {
    let tmp = scratch_dir();
    let root = tmp.path();
    write_invalid_files(root, INVALID_FILES, 1024);

    for (what, args) in [
        ("first sync", &["sync"][..]),
        ("no-op sync", &["sync"]),
        ("status", &["status"]),
    ] {
        let run = run_measured(root, args, None);
        assert_eq!(run.code, 0, "{what} exits 0");
        assert!(
            run.peak_kib <= RSS_LIMIT_KIB,
            "{what}: peak RSS {} KiB over {RSS_LIMIT_KIB} KiB",
            run.peak_kib
        );
    }
    // `check --json` lists every problem, and still streams them.
    let listing = root.join("check.json");
    let run = run_measured(root, &["--json", "check"], Some(&listing));
    assert_eq!(run.code, 1, "check finds errors");
    assert!(
        run.peak_kib <= RSS_LIMIT_KIB,
        "check --json: {} KiB",
        run.peak_kib
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&listing).expect("listing")).expect("JSON");
    let listed = report["problems"].as_array().expect("problems").len();
    let counted =
        report["errors"].as_u64().expect("errors") + report["warnings"].as_u64().expect("warnings");
    assert_eq!(listed as u64, counted);
    assert!(
        listed >= INVALID_FILES,
        "every file has a problem: {listed}"
    );
}

#[test]
fn an_invalid_file_costs_the_index_the_same_whatever_its_body() {
    let index_bytes = |body_bytes: usize| {
        let tmp = tempfile::tempdir().expect("tempdir");
        write_invalid_files(tmp.path(), 300, body_bytes);
        assert_eq!(run_measured(tmp.path(), &["sync"], None).code, 0);
        std::fs::metadata(tmp.path().join(".memsync/index.db"))
            .expect("index")
            .len()
    };
    let (small, large) = (index_bytes(1024), index_bytes(256 * 1024));
    // 75 MB of bodies more may not cost the index more than a few pages.
    assert!(
        large < small + 64 * 1024,
        "index with 1 KiB bodies: {small} bytes; with 256 KiB bodies: {large} bytes"
    );
}
