//! Memory within a minute of a session's end (issue 65): a Codex rollout
//! that ends with the end of a turn and that no process holds open (`codex
//! exec` exited) is harvested at once, not after `harvest.idle_minutes`;
//! one still held open, or cut mid-turn, waits; `--no-wait` takes a
//! quiet-looking session at once. Over the rollouts the real Codex wrote.

mod common;

use std::path::PathBuf;

use common::harness_sample;
use common::home::Home;

/// The real Codex rollouts, each placed where Codex keeps them, written now.
fn placed(home: &Home) -> Vec<PathBuf> {
    let Some(dir) = harness_sample("codex-0.169.0") else {
        return Vec::new();
    };
    let into = home.path(".codex/sessions/2026/11/24");
    std::fs::create_dir_all(&into).unwrap();
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let to = into.join(e.file_name());
        std::fs::copy(e.path(), &to).unwrap();
        out.push(to);
    }
    out.sort();
    out
}

fn harvest(home: &Home, extra: &[&str]) -> serde_json::Value {
    let (code, report) = home.run(&[&["harvest", "--harness", "codex"], extra].concat());
    assert_eq!(code, 0, "{report}");
    report
}

fn count(report: &serde_json::Value, key: &str) -> usize {
    match &report[key] {
        serde_json::Value::Array(a) => a.len(),
        v => v.as_u64().unwrap_or(0) as usize,
    }
}

fn home() -> Home {
    let home = Home::new();
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    home
}

#[test]
fn a_rollout_whose_turn_ended_and_that_nobody_holds_is_harvested_at_once() {
    let home = home();
    let rollouts = placed(&home);
    if rollouts.is_empty() {
        return;
    }
    // One is still written by a live Codex: held open for appending.
    let held = std::fs::OpenOptions::new()
        .append(true)
        .open(&rollouts[0])
        .unwrap();
    // Another was cut mid-turn: its last line is not the turn's end.
    let text = std::fs::read_to_string(&rollouts[1]).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    std::fs::write(&rollouts[1], cut[..cut.len() - 1].join("\n") + "\n").unwrap();

    let report = harvest(&home, &[]);
    let ended = rollouts.len() - 2;
    assert_eq!(count(&report, "captured"), ended, "{report}");
    assert_eq!(count(&report, "live"), 2, "{report}");
    // Captured now, they are in MEMORY.md now.
    let memory = home.read("ws/MEMORY.md");
    assert_eq!(memory.matches("session=").count(), ended, "{memory}");

    drop(held);
    let report = harvest(&home, &[]);
    assert_eq!(
        count(&report, "captured"),
        1,
        "once closed, the held one: {report}"
    );
    let report = harvest(&home, &["--no-wait"]);
    assert_eq!(
        count(&report, "captured"),
        1,
        "the cut one, asked for: {report}"
    );
}
