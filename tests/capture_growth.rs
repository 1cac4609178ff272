//! A session captured again and again while it grows (issue 65: Gemini CLI
//! sends PreCompress before every model call, so its chat was captured at
//! every step and from the third capture on each failed, "the session
//! already has a summary with different content"). The class: a harness
//! rewrites a message in place (Gemini CLI adds a reply's tool calls to the
//! message it already wrote), so two captures can hold the same number of
//! messages with a different last one. Proved over every JSONL session the
//! real programs wrote: once a prefix of the file is captured, every longer
//! prefix is captured too, and the last capture again changes nothing.

mod common;

use std::path::{Path, PathBuf};

use common::harness_sample;
use common::home::Home;

/// Every JSONL session file among the samples the real programs wrote.
fn samples() -> Vec<PathBuf> {
    let Some(root) = harness_sample("") else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && !p.to_string_lossy().contains("hook-payloads")
                && !p.ends_with("rows.jsonl")
        })
        .collect();
    out.sort();
    out
}

const MAX_LINES: usize = 60;

fn capture(home: &Home, file: &Path) -> (bool, String) {
    let out = home
        .cmd()
        .args(["capture", "session-end", "--session-id", "growing"])
        .arg("--transcript")
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_session_captured_after_every_line_it_grew_never_fails() {
    let files = samples();
    let mut proved = 0;
    for sample in &files {
        let text = std::fs::read_to_string(sample).unwrap();
        // The first lines hold every kind of step; a long rollout's tail
        // repeats them at the cost of a process a line.
        let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
        let home = Home::new();
        home.cmd().arg("init").assert().success();
        let growing = home.path("growing.jsonl");
        let mut captured_once = false;
        for n in 1..=lines.len() {
            std::fs::write(&growing, lines[..n].join("\n") + "\n").unwrap();
            let (ok, err) = capture(&home, &growing);
            if captured_once {
                assert!(ok, "{}: after {n} lines: {err}", sample.display());
            }
            captured_once |= ok;
        }
        if !captured_once {
            continue;
        }
        let before = common::tree(&home.path("ws/memory"));
        let (ok, err) = capture(&home, &growing);
        assert!(ok, "{}: {err}", sample.display());
        assert_eq!(
            common::tree(&home.path("ws/memory")),
            before,
            "{}: the same bytes again wrote something",
            sample.display()
        );
        proved += 1;
    }
    if !files.is_empty() {
        assert!(
            proved >= 8,
            "only {proved} of {} samples captured",
            files.len()
        );
    }
}
