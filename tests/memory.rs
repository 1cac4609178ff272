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

/// A Claude Code session of about `mb` MB: each turn a request, an answer
/// with a tool call, and a 9 KB tool result (most of a real session's bytes).
fn write_big_session(path: &Path, mb: usize) -> usize {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("session"));
    let filler = "the daemon index merge ledger watch parser schema token budget retry ";
    let (mut written, mut turn) = (0, 0);
    while written < mb << 20 {
        let ts = format!("2020-01-01T{:02}:{:02}:00.000Z", turn / 60 % 24, turn % 60);
        let lines = [
            serde_json::json!({"type": "user", "sessionId": "big-session", "cwd": "/home/dev/code/big", "timestamp": ts,
                "message": {"role": "user", "content": format!("request {turn}: fix the parser in module {turn}. {}", filler.repeat(4))}}),
            serde_json::json!({"type": "assistant", "sessionId": "big-session", "timestamp": ts,
                "message": {"id": format!("m{turn}"), "role": "assistant", "content": [
                    {"type": "text", "text": format!("answer {turn}: {}", filler.repeat(5))},
                    {"type": "tool_use", "id": format!("t{turn}"), "name": "Read", "input": {"file_path": format!("/home/dev/code/big/src/m{}.rs", turn % 300)}}]}}),
            serde_json::json!({"type": "user", "sessionId": "big-session", "timestamp": ts,
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{turn}"), "content": filler.repeat(130)}]}}),
        ];
        for line in lines {
            let text = format!("{line}\n");
            written += text.len();
            out.write_all(text.as_bytes()).expect("write");
        }
        turn += 1;
    }
    out.flush().expect("flush");
    turn
}

fn artifact(root: &Path, kind: &str) -> String {
    let memory = root.join("memory");
    let path = std::fs::read_dir(&memory)
        .expect("memory")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(&format!("--{kind}.md")))
        .unwrap_or_else(|| panic!("no {kind} in {}", memory.display()));
    std::fs::read_to_string(path).expect("artifact")
}

#[test]
fn a_200_mb_session_is_captured_and_harvested_in_bounded_memory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let source = tmp
        .path()
        .join("claude/projects/-home-dev-code-big/big-session.jsonl");
    std::fs::create_dir_all(source.parent().expect("dir")).expect("dirs");
    let turns = write_big_session(&source, 200);

    let ws = tmp.path().join("ws");
    assert_eq!(run_measured(&ws, &["init"], None).code, 0);
    let report_path = tmp.path().join("capture.json");
    let source_arg = source.to_string_lossy().into_owned();
    let run = run_measured(
        &ws,
        &[
            "--json",
            "capture",
            "session-end",
            "--transcript",
            &source_arg,
        ],
        Some(&report_path),
    );
    assert_eq!(run.code, 0, "capture exits 0");
    assert!(
        run.peak_kib <= RSS_LIMIT_KIB,
        "capture: peak RSS {} KiB",
        run.peak_kib
    );

    // The transcript keeps the first request and the newest turns, and says
    // what it left out; the report says it too.
    let transcript = artifact(&ws, "transcript");
    assert!(transcript.len() < 4_500_000, "{} bytes", transcript.len());
    assert!(transcript.contains("request 0: fix the parser in module 0."));
    assert!(transcript.contains(&format!("answer {}:", turns - 1)));
    assert!(transcript.contains("left out by memsync"));
    let report = std::fs::read_to_string(&report_path).expect("report");
    assert!(report.contains("left out"), "{report}");
    assert_eq!(
        run_measured(&ws, &["check"], None).code,
        0,
        "check is clean"
    );

    // Harvest reads the same file in bounded memory too (a daemon harvests every interval).
    let harvested = tmp.path().join("ws2");
    assert_eq!(run_measured(&harvested, &["init"], None).code, 0);
    let config = tmp.path().join("config.yaml");
    let claude = tmp.path().join("claude");
    std::fs::write(
        &config,
        format!("harvest:\n  claude_code_dir: {}\n", claude.display()),
    )
    .expect("config");
    let later = (chrono::Utc::now() + chrono::Duration::hours(3)).to_rfc3339();
    let config_arg = config.to_string_lossy().into_owned();
    let harvest_report = tmp.path().join("harvest.json");
    let run = run_measured(
        &harvested,
        &[
            "--config",
            &config_arg,
            "--now",
            &later,
            "--json",
            "harvest",
        ],
        Some(&harvest_report),
    );
    assert_eq!(run.code, 0, "harvest exits 0");
    assert!(
        run.peak_kib <= RSS_LIMIT_KIB,
        "harvest: peak RSS {} KiB",
        run.peak_kib
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&harvest_report).expect("report")).expect("JSON");
    assert_eq!(
        report["captured"].as_array().map(Vec::len),
        Some(1),
        "{report:#}"
    );
}

/// `before`, 100 MB of `x`, then `after`, written in pieces: this process
/// stays small, because a child's peak RSS as `wait4` reports it includes
/// the parent's at the time of the spawn.
fn write_with_paste(path: &Path, before: &str, after: &str) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("file"));
    out.write_all(before.as_bytes()).expect("write");
    let chunk = [b'x'; 64 * 1024];
    for _ in 0..1600 {
        out.write_all(&chunk).expect("write");
    }
    out.write_all(after.as_bytes()).expect("write");
    out.flush().expect("flush");
}

#[test]
fn a_100_mb_line_is_cut_with_a_marker_and_never_becomes_the_sentence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let plain = tmp.path().join("paste.txt");
    write_with_paste(
        &plain,
        "please look at this log\n",
        "\nthanks, that fixed it\n",
    );
    let jsonl = tmp.path().join("paste.jsonl");
    write_with_paste(
        &jsonl,
        "{\"role\":\"user\",\"content\":\"please fix the flaky watcher test\"}\n{\"role\":\"user\",\"content\":\"here is the log: ",
        "\"}\n{\"role\":\"assistant\",\"content\":\"Fixed the watcher test: it now waits for the debounce.\"}\n",
    );
    for (source, id) in [(&plain, "paste-plain"), (&jsonl, "paste-jsonl")] {
        let ws = tmp.path().join(id);
        assert_eq!(run_measured(&ws, &["init"], None).code, 0);
        let source_arg = source.to_string_lossy().into_owned();
        let report_path = tmp.path().join(format!("{id}.txt"));
        let run = run_measured(
            &ws,
            &[
                "capture",
                "session-end",
                "--transcript",
                &source_arg,
                "--session-id",
                id,
            ],
            Some(&report_path),
        );
        assert_eq!(run.code, 0, "{id}: capture exits 0");
        assert!(
            run.peak_kib <= RSS_LIMIT_KIB,
            "{id}: peak RSS {} KiB",
            run.peak_kib
        );
        let report = std::fs::read_to_string(&report_path).expect("report");
        assert!(
            report.contains("over the 4096 KiB line limit"),
            "{id}: {report}"
        );
        let (transcript, summary) = (artifact(&ws, "transcript"), artifact(&ws, "summary"));
        assert!(
            transcript.len() < 4_500_000,
            "{id}: transcript {} bytes",
            transcript.len()
        );
        assert!(
            summary.len() < 16_000,
            "{id}: summary {} bytes",
            summary.len()
        );
        let sentence = summary
            .lines()
            .find(|l| l.starts_with("memory_sentence:"))
            .expect("sentence");
        assert!(
            !sentence.contains("xxxxxxxx"),
            "{id}: the paste became the sentence: {sentence}"
        );
        assert_eq!(
            run_measured(&ws, &["check"], None).code,
            0,
            "{id}: check is clean"
        );
    }
    assert!(
        artifact(&tmp.path().join("paste-plain"), "transcript").contains("bytes cut by memsync")
    );
}
