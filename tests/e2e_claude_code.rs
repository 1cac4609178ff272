//! End to end with the real Claude Code (the pinned npm version) against a
//! fake model server on 127.0.0.1: `connect` wires it; a real `claude -p`
//! session, whose model writes hello.py with the Write tool, ends and its
//! SessionEnd hook captures it; `doctor` passes while connected; `disconnect`
//! gives every file back (issue 27's done-when). The API key in
//! `~/.claude.json` reaches no file memsync writes.
//!
//! And interactively, typed into a real terminal (tmux): `/compact`, `/clear`,
//! `/exit` and `claude --resume` each leave what a person would expect: a
//! compaction artifact, two sessions, and a continuation (issue 29).
//!
//! And a session forked with `--resume … --fork-session`, captured as its
//! own work, not as a copy of the session it came from.
//!
//! And Claude Code's own auto memory, imported by `harvest` and restored on
//! a second machine by `connect` (issue 45).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::files_containing;
use common::harness::{FakeModel, artifacts, first_summary, program};
use common::home::Home;
use common::terminal::Terminal;
use serde_json::Value;

use common::claude::{
    KEY, SETTINGS, claude_env, claude_home, claude_in, claude_p, connected_home, project_folder,
    with_remote,
};

#[test]
fn a_real_claude_code_session_is_captured_and_disconnect_gives_every_file_back() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    let project = home.path("proj");
    let out = claude_in(&claude, &home, &model, &project)
        .args(["-p", "Add a hello function to hello.py"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("hello function"),
        "{said}"
    );

    // The SessionEnd hook hands the session to memsync; its job finishes on its own.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !home.read("ws/MEMORY.md").contains("hello function") {
        assert!(
            Instant::now() < deadline,
            "the session never reached MEMORY.md"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let summary = first_summary(&home.path("ws"));
    assert!(summary.contains("harness: \"claude-code\""), "{summary}");
    assert!(
        summary.contains("## Request\n\nAdd a hello function"),
        "{summary}"
    );
    // The model's Write tool call really wrote the file, and the ledger says so.
    assert_eq!(
        std::fs::read_to_string(project.join("hello.py")).unwrap(),
        "def hello():\n    return \"hello\"\n"
    );
    assert!(summary.contains("## Files\n\n- `hello.py`"), "{summary}");
    assert!(
        summary.contains("changed hello.py; outcome: Done"),
        "{summary}"
    );

    // The next session in the project starts with the project's digest:
    // SessionStart's additionalContext reaches the model.
    claude_p(
        &claude,
        &home,
        &model,
        &project,
        "What did we do last time?",
    );
    let asked = model.requests();
    let digest_line = asked
        .lines()
        .find(|l| l.contains("What did we do last time?"))
        .unwrap_or_default();
    assert!(
        digest_line.contains("records of earlier agent sessions")
            && digest_line.contains("Add a hello function"),
        "the digest never reached the model"
    );

    // In a run nobody watches (`-p`), the model calls memory_search: connect
    // allowed the read-only tools, and the hits reach the model's next request.
    let searched = claude_in(&claude, &home, &model, &project)
        .args([
            "-p",
            "Search your memory for when did we add the hello function?",
        ])
        .output()
        .unwrap();
    assert!(
        searched.status.success(),
        "{}",
        String::from_utf8_lossy(&searched.stderr)
    );
    let results = tool_results(&model.requests());
    assert!(
        results.iter().any(|r| !r.starts_with("error:")
            && r.contains("hits")
            && r.contains("hello function")),
        "memory_search's hits never reached the model: {results:?}"
    );

    // Two later sessions ask what changed in hello.py and change nothing
    // (the fake model only reports): echoes of the question below.
    const ECHOED: &str = "What did we change in hello.py last time?";
    for _ in 0..2 {
        claude_p(&claude, &home, &model, &project, ECHOED);
    }
    let echo_sentence = format!("proj: {ECHOED}; outcome");
    let deadline = Instant::now() + Duration::from_secs(60);
    while home.read("ws/MEMORY.md").matches(&echo_sentence).count() < 2 {
        assert!(Instant::now() < deadline, "the echoes were never captured");
        std::thread::sleep(Duration::from_millis(200));
    }

    // Each prompt gets the earlier sessions relevant to it (UserPromptSubmit),
    // beyond what the start-up digest gave: from another folder, with six
    // newer sessions of a third project, the digest no longer lists the
    // hello session, and a prompt about it brings it; an unrelated prompt
    // brings nothing; the echoed question brings the session that changed
    // hello.py, not the sessions that asked it.
    for i in 0..6 {
        let s = common::session("default", &format!("later-{i}"), chrono::Utc::now());
        for (rel, text) in s.files(&memsync::config::Config::default()) {
            let path = home.path("ws").join(rel);
            std::fs::write(path, text).unwrap();
        }
    }
    assert_eq!(home.run(&["sync"]).0, 0);
    let elsewhere = home.path("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for prompt in [
        "How did we add the hello function to hello.py before?",
        "Write a haiku about autumn leaves",
        ECHOED,
    ] {
        claude_p(&claude, &home, &model, &elsewhere, prompt);
    }
    let asked = model.requests();
    // Every request that carries the prompt as the person's text (Claude Code
    // also sends it for a title); a later start-up digest quotes it too.
    let requests_of = |prompt: &str| -> Vec<&str> {
        let typed = format!("\"text\":\"{prompt}\"");
        asked.lines().filter(|l| l.contains(&typed)).collect()
    };
    const OFFER: &str = "earlier sessions that may bear on this prompt";
    let about = requests_of("How did we add the hello function to hello.py before?");
    assert!(
        about
            .iter()
            .any(|l| l.contains(OFFER) && l.contains("Add a hello function")),
        "the relevant session never reached the model with the prompt"
    );
    let echoed: Vec<&str> = (requests_of(ECHOED).into_iter())
        .filter(|l| l.contains(OFFER))
        .collect();
    assert!(
        echoed.iter().any(|l| l.contains("Add a hello function")),
        "the session that changed hello.py never reached the model with the question"
    );
    let offers: Vec<&str> = (echoed.iter())
        .filter_map(|l| l.split_once(OFFER).map(|(_, o)| o.get(..600).unwrap_or(o)))
        .collect();
    assert!(
        offers.iter().all(|o| !o.contains(&echo_sentence)),
        "a session that only asked the question was offered: {offers:?}"
    );
    let unrelated = requests_of("Write a haiku about autumn leaves");
    assert!(!unrelated.is_empty());
    let given: Vec<&str> = (unrelated.iter())
        .filter_map(|l| l.split_once(OFFER).map(|(_, o)| o.get(..600).unwrap_or(o)))
        .collect();
    assert!(
        given.is_empty(),
        "an unrelated prompt was given sessions: {given:?}"
    );

    // `claude mcp list` fires SessionEnd for a transcript it never writes:
    // a skipped job, never a failure that turns doctor red.
    let listed = claude_in(&claude, &home, &model, &project)
        .args(["mcp", "list"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(listing.contains("memsync"), "{listing}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, status) = home.run(&["status"]);
        let jobs = &status["jobs"];
        let settled = jobs["pending"] == 0 && jobs["running"] == 0;
        if settled && jobs["skipped"].as_i64() >= Some(1) {
            assert_eq!(jobs["failed"], 0, "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "jobs never settled: {status}");
        std::thread::sleep(Duration::from_millis(200));
    }

    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor while connected: {doctor}");

    let claude_json = home.read(".claude.json");
    let (code, report) = home.run(&["disconnect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(".claude/settings.json"), SETTINGS);
    assert!(!home.path(".claude/CLAUDE.md").exists());
    // Claude Code rewrote .claude.json while it ran: what it wrote stays, memsync's entry goes.
    let mut expected: Value = serde_json::from_str(&claude_json).unwrap();
    let servers = expected["mcpServers"].as_object_mut().unwrap();
    servers.remove("memsync");
    if servers.is_empty() {
        expected.as_object_mut().unwrap().remove("mcpServers");
    }
    let after: Value = serde_json::from_str(&home.read(".claude.json")).unwrap();
    assert_eq!(after, expected);
    assert_eq!(after["primaryApiKey"], KEY);
    let mode = std::fs::metadata(home.path(".claude.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    for dir in ["ws", ".local/state"] {
        let leaked = files_containing(&home.path(dir), KEY);
        assert!(leaked.is_empty(), "the key reached {leaked:?}");
    }
}

/// The text of every tool result the model was sent (Anthropic `tool_result`
/// blocks), each as it arrived; an error result is marked `error:`.
fn tool_results(requests: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in requests.lines() {
        let Ok(req) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let blocks = req["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_result");
        for block in blocks {
            let text = match &block["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let error = block["is_error"] == true;
            out.push(if error {
                format!("error: {text}")
            } else {
                text
            });
        }
    }
    out.dedup();
    out
}

/// `claude -p --resume <id> --fork-session`: the fork's file opens with a
/// copy of the first session, and its capture is the fork's own work.
#[test]
fn a_forked_claude_code_session_is_captured_as_its_own_work() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    let project = home.path("proj");
    let wait = |n: usize| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while summaries(&home).len() < n {
            assert!(Instant::now() < deadline, "session {n} was never captured");
            std::thread::sleep(Duration::from_millis(200));
        }
        summaries(&home)
    };
    let first = claude_in(&claude, &home, &model, &project)
        .args(["-p", "Explain the retry logic in pay.py"])
        .output()
        .unwrap();
    assert!(first.status.success());
    let parent = session_id_of(&wait(1)[0]).to_string();
    let fork = claude_in(&claude, &home, &model, &project)
        .args(["-p", "--resume", &parent, "--fork-session"])
        .arg("Now add jitter to the retry")
        .output()
        .unwrap();
    assert!(
        fork.status.success(),
        "{}",
        String::from_utf8_lossy(&fork.stderr)
    );
    let all = wait(2);
    let forked = all
        .iter()
        .find(|s| session_id_of(s) != parent)
        .expect("the fork's summary");
    assert!(
        forked.contains("## Request\n\nNow add jitter to the retry"),
        "{forked}"
    );
    assert!(
        forked.contains(&format!("## Forked from\n\nsession {parent};")),
        "{forked}"
    );
    let transcripts = artifacts(&home.path("ws"), "transcript");
    let copies = transcripts
        .iter()
        .filter(|t| t.contains("Explain the retry logic"))
        .count();
    assert_eq!(
        copies, 1,
        "the first session's words are in its transcript only"
    );
}

/// Every summary in the workspace, oldest capture first.
fn summaries(home: &Home) -> Vec<String> {
    artifacts(&home.path("ws"), "summary")
}

fn session_id_of(summary: &str) -> &str {
    let line = summary
        .lines()
        .find(|l| l.starts_with("session_id: "))
        .expect("a session id");
    line.trim_start_matches("session_id: ").trim_matches('"')
}

/// Waits until the workspace holds `n` summaries.
fn wait_for_summaries(home: &Home, term: &Terminal, n: usize, why: &str) -> Vec<String> {
    term.wait_until(60, why, |_| summaries(home).len() >= n);
    summaries(home)
}

#[test]
fn an_interactive_claude_code_session_is_compacted_cleared_and_resumed_and_each_step_is_kept() {
    let (Some(claude), Some(tmux)) = (program("MEMSYNC_E2E_CLAUDE"), program("MEMSYNC_E2E_TMUX"))
    else {
        return;
    };
    let home = connected_home();
    let model = FakeModel::start();
    let project = home.path("proj");
    let env = claude_env(&home, &model);

    // A person types a request; the model writes hello.py and answers.
    let term = Terminal::start(&tmux, &project, &claude, &[], &env);
    // Start-up runs the SessionStart hook and the MCP server: let it finish.
    term.settle();
    term.type_line("Add a hello function to hello.py");
    term.wait_until(60, "the answer", |s| s.contains("Done: I added"));
    term.settle();
    assert!(project.join("hello.py").is_file());

    // /compact: the PostCompact hook hands the compaction to memsync, which
    // keeps it until the session it belongs to has ended.
    term.type_line("/compact");
    term.wait_until(60, "the compaction", |s| s.contains("Compacted"));
    term.settle();

    // /clear ends the session (SessionEnd, reason "clear") and opens another.
    term.type_line("/clear");
    let first = wait_for_summaries(&home, &term, 1, "the cleared session's summary");
    assert!(
        first[0].contains("## Request\n\nAdd a hello function"),
        "{}",
        first[0]
    );
    assert!(
        first[0].contains("## Files\n\n- `hello.py`"),
        "{}",
        first[0]
    );
    term.type_line("Rename the greeting in hello.py");
    term.wait_until(60, "the second answer", |s| s.contains("Done: I added"));
    term.settle();
    term.type_line("/exit");
    let two = wait_for_summaries(&home, &term, 2, "the second session's summary");
    drop(term);
    let second = two
        .iter()
        .find(|s| s.contains("## Request\n\nRename the greeting"))
        .expect("the session after /clear is its own session");
    let resumed_id = session_id_of(second).to_string();
    assert_ne!(resumed_id, session_id_of(&first[0]));

    // `claude --resume` continues the second session: a continuation, not a new session.
    let term = Terminal::start(&tmux, &project, &claude, &["--resume", &resumed_id], &env);
    term.settle();
    term.type_line("Also add a docstring");
    term.wait_until(60, "the resumed answer", |s| {
        s.matches("Done: I added").count() >= 2
    });
    term.settle();
    term.type_line("/exit");
    let three = wait_for_summaries(&home, &term, 3, "the continuation's summary");
    drop(term);
    let continuation = three
        .iter()
        .find(|s| s.contains("continues: "))
        .expect("a continuation");
    assert_eq!(session_id_of(continuation), resumed_id);
    assert!(
        continuation.contains("## Later requests\n\n- Also add a docstring"),
        "{continuation}"
    );

    // The compaction is its own artifact, and what only it says is searchable.
    let compactions = artifacts(&home.path("ws"), "compaction");
    assert_eq!(compactions.len(), 1);
    assert!(
        compactions[0].contains("quokkalantern"),
        "{}",
        compactions[0]
    );
    let (code, found) = home.run(&["search", "quokkalantern"]);
    assert_eq!(code, 0, "{found}");
    assert_eq!(found[0]["kind"], "compaction", "{found}");
    let memory = home.read("ws/MEMORY.md");
    assert!(memory.contains("## Recent Compactions"), "{memory}");
    assert!(
        memory.contains("Rename the greeting in hello.py"),
        "{memory}"
    );

    let (_, status) = home.run(&["status"]);
    assert_eq!(status["jobs"]["failed"], 0, "{status}");
    assert_eq!(status["jobs"]["waiting"], 0, "{status}");
    let (code, doctor) = home.run(&["doctor"]);
    assert_eq!(code, 0, "doctor after an interactive day: {doctor}");
}

/// Issue 45: what the real Claude Code saves in its auto memory on one
/// machine is imported by `harvest`, and `connect claude-code` on a second
/// machine (another home, the project cloned at another path) writes it
/// back byte for byte, so Claude Code there starts with it in its prompt.
/// A local edit there is never overwritten.
#[test]
fn claude_codes_auto_memory_moves_to_a_second_machine_with_the_workspace() {
    let Some(claude) = program("MEMSYNC_E2E_CLAUDE") else {
        return;
    };
    let laptop = connected_home();
    let model = FakeModel::start();
    let project = laptop.path("proj");
    with_remote(&project, "git@github.com:ana/shop.git");
    let out = claude_in(&claude, &laptop, &model, &project)
        .args(["-p", "Remember that this project uses pnpm, never npm"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let memory = project_folder(&laptop, &project).join("memory");
    let written: Vec<(String, Vec<u8>)> = ["MEMORY.md", "package_manager.md"]
        .iter()
        .map(|f| {
            (
                f.to_string(),
                std::fs::read(memory.join(f)).expect("Claude Code wrote it"),
            )
        })
        .collect();

    let (_, harvested) = laptop.run(&["harvest", "--harness", "claude-code"]);
    let imported = harvested["memory"]["imported"]
        .as_array()
        .expect("imported");
    assert_eq!(imported.len(), 2, "{harvested}");
    let (_, found) = laptop.run(&["search", "pnpm"]);
    assert!(
        found
            .to_string()
            .contains("notes/claude-code/proj/package_manager.md"),
        "{found}"
    );

    // The new machine: the workspace and the project cloned, Claude Code fresh.
    let desk = claude_home("src/proj");
    let clone = desk.path("src/proj");
    with_remote(&clone, "https://github.com/ana/shop.git");
    let notes = laptop.path("ws/notes/claude-code/proj");
    std::fs::create_dir_all(desk.path("ws/notes/claude-code/proj")).unwrap();
    for (name, _) in &written {
        std::fs::copy(
            notes.join(name),
            desk.path(&format!("ws/notes/claude-code/proj/{name}")),
        )
        .unwrap();
    }
    let connect = |home: &Home| -> Value {
        let out = home
            .cmd()
            .current_dir(&clone)
            .args(["--json", "connect", "claude-code"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let restored = connect(&desk);
    assert_eq!(
        restored["memory"]["written"].as_array().unwrap().len(),
        2,
        "{restored}"
    );
    let desk_memory = project_folder(&desk, &clone).join("memory");
    for (name, bytes) in &written {
        assert_eq!(
            &std::fs::read(desk_memory.join(name)).unwrap(),
            bytes,
            "{name}"
        );
    }

    // Claude Code on the desk starts with what it knew on the laptop.
    let model2 = FakeModel::start();
    let out = claude_in(&claude, &desk, &model2, &clone)
        .args(["-p", "Which package manager do we use?"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        model2.requests().contains("pnpm, never npm"),
        "the restored MEMORY.md is in the prompt"
    );

    // A local edit on the desk survives the next connect.
    std::fs::write(desk_memory.join("MEMORY.md"), "- edited here\n").unwrap();
    let again = connect(&desk);
    assert_eq!(
        std::fs::read_to_string(desk_memory.join("MEMORY.md")).unwrap(),
        "- edited here\n"
    );
    assert_eq!(
        again["memory"]["conflicts"].as_array().unwrap().len(),
        1,
        "{again}"
    );
}
