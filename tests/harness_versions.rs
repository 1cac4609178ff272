//! Capture of the files each harness version writes, pinned by snapshots of
//! the summary and the MEMORY.md row an agent reads. The current programs'
//! files come from `../shared/harness-samples/` (written by the real Claude
//! Code 2.1.331 and Codex 0.169.0); older and rarer shapes (a legacy Codex
//! rollout, a Claude Code sub-agent file, an SDK session with no
//! conversation, a failed OpenClaw cron run, a titled session, a plain-text
//! dialogue, a plan-mode session that ends in an errand) are written for this
//! project in `tests/fixtures/harness/versions/`.

mod common;

use std::path::{Path, PathBuf};

use common::{harness_sample as sample, run_at};

const NOW: &str = "2026-11-24T12:00:00Z";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/harness/versions")
        .join(name)
}

struct Workspace {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
}

impl Workspace {
    fn new() -> Workspace {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        Workspace { _tmp: tmp, ws }
    }

    fn capture(&self, transcript: &Path) -> std::process::Output {
        self.capture_at(NOW, transcript, &[])
    }

    /// Captures at `now`: a day after the session, so MEMORY.md's window holds it.
    fn capture_at(&self, now: &str, transcript: &Path, extra: &[&str]) -> std::process::Output {
        let path = transcript.to_string_lossy();
        let mut args = vec!["capture", "session-end", "--transcript", &path];
        args.extend(extra);
        run_at(&self.ws, now, &args)
    }

    fn captured(transcript: &Path) -> Workspace {
        Workspace::captured_at(NOW, transcript, &[])
    }

    fn captured_at(now: &str, transcript: &Path, extra: &[&str]) -> Workspace {
        let w = Workspace::new();
        let out = w.capture_at(now, transcript, extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        w
    }

    /// The bodies of the canonical files of a kind, oldest first.
    fn bodies(&self, kind: &str) -> Vec<String> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.ws.join("memory"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        names.retain(|p| p.to_string_lossy().ends_with(&format!("--{kind}.md")));
        names.sort();
        names
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .map(|text| text.splitn(3, "---\n").nth(2).unwrap_or_default().into())
            .collect()
    }

    fn summary(&self) -> String {
        self.bodies("summary").pop().unwrap_or_default()
    }

    fn ledger_rows(&self) -> String {
        let memory = std::fs::read_to_string(self.ws.join("MEMORY.md")).unwrap();
        let rows: Vec<&str> = memory.lines().filter(|l| l.starts_with("- ")).collect();
        rows.join("\n")
    }

    /// Every file memsync wrote under the workspace, as text.
    fn everything(&self) -> String {
        walkdir::WalkDir::new(&self.ws)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
            .collect()
    }
}

fn outcome_of(summary: &str) -> &str {
    summary
        .split("## Outcome\n\n")
        .nth(1)
        .unwrap_or_default()
        .trim()
}

fn pin(name: &str, w: &Workspace) {
    insta::assert_snapshot!(format!("{name}_summary"), w.summary());
    insta::assert_snapshot!(format!("{name}_memory_md_row"), w.ledger_rows());
}

#[test]
fn claude_code_2_1_331_gives_the_request_and_the_reported_outcome() {
    let Some(file) = sample(
        "claude-code-2.1.331/transcripts/home/-home-dev-code-proj0/dce1eb90-36d4-45da-a4c0-76b8d5ab0281.jsonl",
    ) else {
        return;
    };
    let w = Workspace::captured(&file);
    assert!(outcome_of(&w.summary()).starts_with("I added hello.py"));
    pin("claude_code_2_1_331", &w);
}

#[test]
fn codex_0_169_items_are_read_in_order_with_their_tool_calls() {
    let Some(file) = sample(
        "codex-0.169.0/rollout-2026-11-24T10-29-25-01a20d1a-6e16-7322-abd6-5c2478063be6.jsonl",
    ) else {
        return;
    };
    let w = Workspace::captured(&file);
    let transcript = w.bodies("transcript").concat();
    let (request, rest) = transcript.split_once("## Assistant").unwrap();
    assert!(request.contains("add a hello world script"), "{transcript}");
    assert!(
        !request.contains("AGENTS.md"),
        "injected context: {request}"
    );
    // The tool calls sit in the turn that made them, in the order made.
    assert_eq!(rest.matches("## Assistant").count(), 0, "one turn: {rest}");
    let search = rest.find("- mcp__memsync__memory_search").unwrap();
    let run = rest.find("- exec_command `python3 hello.py`").unwrap();
    assert!(search < run, "{rest}");
    assert!(rest.contains("I added hello.py"), "{rest}");
    pin("codex_0_169", &w);
}

#[test]
fn a_resumed_codex_session_captures_its_next_part_without_repeating_the_first() {
    let Some(file) = sample(
        "codex-0.169.0/rollout-2026-11-24T10-31-14-01a20d1c-166a-7f03-b1ea-ee8ba7562cc6.jsonl",
    ) else {
        return;
    };
    let full = std::fs::read_to_string(&file).unwrap();
    let first_turn_end = full.find("\"task_complete\"").unwrap();
    let first_part = &full[..full[first_turn_end..].find('\n').unwrap() + first_turn_end + 1];
    let w = Workspace::new();
    let live = w._tmp.path().join(file.file_name().unwrap());
    std::fs::write(&live, first_part).unwrap();
    assert!(w.capture(&live).status.success());
    std::fs::write(&live, &full).unwrap();
    let out = w.capture_at("2026-11-25T09:30:00Z", &live, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The manifest is the session's entry point: its sentence, and each
    // capture's files as links, oldest first.
    let manifest = w.bodies("manifest");
    assert_eq!(manifest.len(), 1);
    insta::assert_snapshot!("codex_0_169_resumed_manifest_body", manifest[0]);
    let transcripts = w.bodies("transcript");
    assert_eq!(transcripts.len(), 2, "{transcripts:?}");
    let second = &transcripts[1];
    assert!(second.contains("now make it print goodbye too"), "{second}");
    assert!(second.contains("I updated hello.py"), "{second}");
    assert!(
        !second.contains("I added hello.py"),
        "repeats part one: {second}"
    );
    assert_eq!(
        second.matches("apply_patch").count(),
        1,
        "part one's patch repeated: {second}"
    );
    let summaries = w.bodies("summary");
    assert!(outcome_of(&summaries[1]).starts_with("I updated hello.py"));
}

#[test]
fn a_legacy_codex_rollout_is_read_with_its_id_project_and_request() {
    let w = Workspace::captured_at(
        "2025-06-13T00:00:00Z",
        &fixture("codex-legacy-2025.jsonl"),
        &[],
    );
    let summary = w.summary();
    assert!(
        summary.starts_with("## Request\n\nThe checkout total ignores the discount code"),
        "{summary}"
    );
    assert!(!summary.contains("environment_context"), "{summary}");
    assert!(outcome_of(&summary).starts_with("Fixed: cart.total()"));
    let manifest = w.bodies("manifest").concat();
    let names: Vec<String> = std::fs::read_dir(w.ws.join("memory"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!manifest.is_empty() && !names.is_empty());
    let all = w.everything();
    assert!(
        all.contains("5b2f3a4e-9c1d-4e8f-a7b6-2d3c4e5f6a7b"),
        "the id from line 1"
    );
    assert!(
        all.contains("/home/ana/shop"),
        "the project from the context"
    );
    pin("codex_legacy_2025", &w);
}

#[test]
fn a_claude_code_sub_agent_file_is_refused_naming_its_parent() {
    let w = Workspace::new();
    let out = w.capture(&fixture("claude-subagent.jsonl"));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("claude-subagent.jsonl"), "{err}");
    assert!(err.contains("sub-agent's session"), "{err}");
    assert!(
        err.contains("8d1f0c2a-3b4e-4f5a-9c6d-7e8f9a0b1c2d"),
        "{err}"
    );
    assert!(!err.contains("no reader understands"), "{err}");
    assert!(!w.ws.join("memory").exists(), "nothing written");
}

#[test]
fn a_session_of_only_injected_turns_is_refused_with_what_it_holds() {
    let w = Workspace::new();
    let out = w.capture(&fixture("claude-sdk-only.jsonl"));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("claude-code session with no conversation"),
        "{err}"
    );
    assert!(
        err.contains("2 turn(s) were all injected by the harness"),
        "{err}"
    );
    assert!(!err.contains("no reader understands"), "{err}");
}

#[test]
fn a_cron_run_that_ends_in_an_error_has_the_error_as_its_outcome() {
    let w = Workspace::captured_at(
        "2026-09-15T00:00:00Z",
        &fixture("openclaw-cron-failed.jsonl"),
        &[],
    );
    let summary = w.summary();
    assert_eq!(
        outcome_of(&summary),
        "failed: ModuleNotFoundError: No module named 'requests'",
        "{summary}"
    );
    assert!(
        summary.starts_with("## Request\n\nRun scripts/daily_report.py"),
        "{summary}"
    );
    pin("openclaw_cron_failed", &w);
}

#[test]
fn a_harness_title_is_evidence_of_the_topic_and_never_the_persons_words() {
    let w = Workspace::captured_at("2026-08-05T00:00:00Z", &fixture("claude-titled.jsonl"), &[]);
    let summary = w.summary();
    assert!(summary.starts_with("## Request\n\nhi"), "{summary}");
    assert!(
        summary.contains("## Title\n\nFix login redirect loop (written by the harness's model"),
        "{summary}"
    );
    let rows = w.ledger_rows();
    assert!(
        rows.contains("\"Fix login redirect loop\" (title)"),
        "{rows}"
    );
    pin("claude_code_titled", &w);
}

#[test]
fn a_plain_text_dialogue_is_split_into_turns() {
    let w = Workspace::captured_at(NOW, &fixture("dialogue.txt"), &["--session-id", "backup-1"]);
    let transcript = w.bodies("transcript").concat();
    assert_eq!(transcript.matches("## User").count(), 2, "{transcript}");
    assert_eq!(
        transcript.matches("## Assistant").count(),
        2,
        "{transcript}"
    );
    let summary = w.summary();
    assert!(
        outcome_of(&summary).starts_with("The AWS credentials in ~/.aws/credentials expired"),
        "{summary}"
    );
}

#[test]
fn a_plan_mode_session_ending_in_an_errand_keeps_the_works_report_and_tells_the_errand() {
    let w = Workspace::captured(&fixture("claude-code-2.1-plan-mode-errand.jsonl"));
    let summary = w.summary();
    let outcome = outcome_of(&summary);
    // The report under its "**Summary**" title, not the title or the push.
    assert!(
        outcome.starts_with("- `/orders` now pages with `limit`"),
        "{outcome}"
    );
    assert!(
        outcome.ends_with("Then, asked \"ok, now push it\": Pushed to origin/main."),
        "{outcome}"
    );
    // The plan is what the agent told the person: in the transcript, searchable.
    let transcript = w.bodies("transcript").concat();
    assert!(transcript.contains("Proposed plan: cursor pagination for /orders"));
    pin("claude_code_plan_mode_errand", &w);
}

/// The day after the forks were written.
const FORKS_NOW: &str = "2026-11-28T12:00:00Z";

/// A fork written by the real program: its file opens with a copy of the
/// session it was forked from (in `tests/fixtures/harness/forks/`, paths
/// moved to /home/dev and long texts shortened).
fn fork(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/harness/forks")
        .join(name)
}

/// What a fork's capture must say: the fork's own request and answer, the
/// session it came from, and nothing of the copied conversation.
fn assert_is_the_forks_own(w: &Workspace, request: &str, reply: &str, parent: &str) {
    let summary = w.summary();
    assert!(
        summary.starts_with(&format!("## Request\n\n{request}")),
        "{summary}"
    );
    assert!(outcome_of(&summary).contains(reply), "{summary}");
    assert!(
        summary.contains(&format!("## Forked from\n\nsession {parent};")),
        "{summary}"
    );
    let memory = w.ledger_rows();
    // The sentence names the ask without the "Now" that tied it to the turn before.
    let ask = request.strip_prefix("Now ").unwrap_or(request);
    assert!(memory.contains(ask), "{memory}");
    let transcript = w.bodies("transcript").concat();
    for copied in ["Explain the retry logic", "Add a hello function"] {
        assert!(!memory.contains(copied), "{memory}");
        assert!(!transcript.contains(copied), "{transcript}");
    }
}

#[test]
fn a_codex_fork_is_the_forks_own_work_not_the_copy_of_its_parent() {
    // Codex 0.146 `codex fork <id> <prompt>`: the parent's lines, stamped
    // with the fork's instant, come before the fork's prompt.
    let w = Workspace::captured_at(FORKS_NOW, &fork("codex-0.146-fork.jsonl"), &[]);
    assert_is_the_forks_own(
        &w,
        "Try a different approach: add a goodbye function instead",
        "(reply 14)",
        "01a21e90-c3b3-7bd3-9b36-693e7671b470",
    );
    pin("codex_0_146_fork", &w);
}

#[test]
fn a_claude_code_fork_session_is_the_forks_own_work_not_the_copy_of_its_parent() {
    // `claude -p --resume <id> --fork-session`: the copied answer names the
    // parent as the session it was asked in.
    let w = Workspace::captured_at(
        FORKS_NOW,
        &fork("claude-code-2.1.331-fork-session.jsonl"),
        &[],
    );
    assert_is_the_forks_own(
        &w,
        "Now add jitter to the retry",
        "(reply 16)",
        "c717a168-a744-4d1e-a3e8-3eced0fe8e68",
    );
    pin("claude_code_2_1_331_fork_session", &w);
    // `/branch` marks every copied line with `forkedFrom` instead.
    let w = Workspace::captured_at(FORKS_NOW, &fork("claude-code-2.1.331-branch.jsonl"), &[]);
    assert_is_the_forks_own(
        &w,
        "Now add jitter to the retry",
        "(reply 16)",
        "c717a168-a744-4d1e-a3e8-3eced0fe8e68",
    );
}

#[test]
fn a_pi_fork_is_captured_as_the_persons_session_not_refused_as_a_sub_agents() {
    // `pi --fork <file>`: the header names the parent file, and the copied
    // entries keep the times they had there.
    let w = Workspace::captured_at(FORKS_NOW, &fork("pi-0.73.1-fork.jsonl"), &[]);
    let summary = w.summary();
    assert!(
        summary.starts_with("## Request\n\nTry a different approach: use a circuit breaker"),
        "{summary}"
    );
    assert!(outcome_of(&summary).contains("(reply 19)"), "{summary}");
    assert!(
        summary.contains("## Forked from\n\nsession 01a21e97-9309-7392-b1b1-00dd3ec085a6;"),
        "{summary}"
    );
    let transcript = w.bodies("transcript").concat();
    assert!(!transcript.contains("Now add jitter"), "{transcript}");
    pin("pi_0_73_1_fork", &w);
}

#[test]
fn a_fork_with_nothing_of_its_own_is_refused_naming_the_session_it_copies() {
    let w = Workspace::new();
    let copy_only = w._tmp.path().join("fork.jsonl");
    let text = std::fs::read_to_string(fork("pi-0.73.1-fork.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header and the copy: the fork before the person typed anything.
    std::fs::write(&copy_only, lines[..7].join("\n") + "\n").unwrap();
    let out = w.capture(&copy_only);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "a fork of session 01a21e97-9309-7392-b1b1-00dd3ec085a6 with nothing of its own"
        ),
        "{err}"
    );
    assert!(!w.ws.join("memory").exists(), "nothing written");
}
