//! Shell completion, as a person meets it: the script `memsync completions
//! SHELL` prints, sourced in a real bash and a real zsh in a terminal (tmux),
//! completes harness names after `connect` and the index's session tokens
//! after `open` (issue 32). The values come from memsync itself at each TAB
//! (clap_complete's dynamic engine), so they are the index as it is now.

mod common;

use std::path::{Path, PathBuf};

use common::memsync_bin;
use common::terminal::{Terminal, on_path};

/// What memsync offers for the word at `index` of `words` (what the scripts ask).
fn offered(words: &[&str], index: usize) -> Vec<String> {
    let out = memsync_bin()
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", index.to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Values first; the flags that may follow are not what these tests ask about.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with('-'))
        .map(str::to_string)
        .collect()
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_memsync"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn open_and_forget_offer_the_index_session_tokens_and_each_one_opens() {
    let (_tmp, ws) = common::demo_workspace();
    let ws = ws.to_str().unwrap();
    let tokens = offered(&["memsync", "--workspace", ws, "open", ""], 4);
    assert!(tokens.len() >= 5, "{tokens:?}");
    for token in &tokens {
        memsync_bin()
            .args(["--workspace", ws, "open", token])
            .assert()
            .success();
    }
    let forget = offered(&["memsync", "--workspace", ws, "forget", ""], 4);
    assert_eq!(forget, tokens);
    // --workspace=DIR works as well, and agents come from the same index.
    let joined = format!("--workspace={ws}");
    let agents = offered(&["memsync", &joined, "search", "x", "--agent", ""], 5);
    assert_eq!(agents, ["default", "reviewer"]);
}

#[test]
fn a_workspace_without_an_index_completes_nothing_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().to_str().unwrap();
    assert!(offered(&["memsync", "--workspace", ws, "open", ""], 4).is_empty());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn harness_names_and_kinds_are_offered_where_they_are_taken() {
    let connect = offered(&["memsync", "connect", ""], 2);
    assert_eq!(
        connect,
        [
            "claude-code",
            "codex",
            "openclaw",
            "gemini-cli",
            "qwen-code",
            "opencode",
            "copilot-cli",
            "cline",
            "pi"
        ]
    );
    let kinds = offered(&["memsync", "search", "x", "--kind", ""], 4);
    assert_eq!(kinds, ["summary", "transcript", "compaction", "manifest"]);
}

/// A shell in a terminal with the built memsync first on PATH.
fn shell(program: &Path, args: &[&str], home: &Path) -> Option<Terminal> {
    let tmux = on_path("tmux")?;
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir().display());
    let env = [
        ("PATH", path),
        ("HOME", home.display().to_string()),
        ("PS1", "$ ".to_string()),
        ("PROMPT", "$ ".to_string()),
    ];
    Some(Terminal::start(&tmux, home, program, args, &env))
}

/// Types `line`, presses TAB (twice if once lists nothing, as bash needs),
/// waits until every `want` shows, then clears the line.
fn tab_shows(term: &Terminal, line: &str, want: &[&str]) {
    tab_shows_that(term, line, &format!("{want:?}"), |s| {
        want.iter().all(|w| s.contains(w))
    });
}

fn tab_shows_that(term: &Terminal, line: &str, what: &str, all_shown: impl Fn(&str) -> bool) {
    term.type_text(line);
    term.press(&["Tab"]);
    std::thread::sleep(std::time::Duration::from_millis(500));
    if !all_shown(&term.screen()) {
        term.press(&["Tab"]);
    }
    term.wait_until(20, &format!("{what} after {line:?} TAB"), all_shown);
    term.press(&["C-c"]);
    term.wait_until(10, "a fresh prompt", |s| {
        s.lines().rfind(|l| !l.trim().is_empty()) == Some("$")
    });
}

/// A shell with memsync's completion loaded by `setup`, on the demo
/// workspace; harness names after `connect` are checked on the way in.
/// Returns the terminal, the `open TAB` line, and the tokens memsync offers.
fn completing_shell(
    program: &str,
    args: &[&str],
    setup: &str,
) -> Option<(tempfile::TempDir, Terminal, String, Vec<String>)> {
    let program = on_path(program)?;
    let (tmp, ws) = common::demo_workspace();
    let term = shell(&program, args, tmp.path())?;
    term.type_line(setup);
    let harnesses = ["claude-code", "codex", "openclaw"];
    tab_shows(&term, "memsync connect ", &harnesses);
    let ws = ws.to_str().unwrap().to_string();
    let tokens = offered(&["memsync", "--workspace", &ws, "open", ""], 4);
    let line = format!("memsync --workspace {ws} open ");
    Some((tmp, term, line, tokens))
}

#[test]
fn bash_completes_harness_names_and_session_tokens() {
    let setup = "source <(memsync completions bash)";
    let Some((_tmp, term, line, tokens)) =
        completing_shell("bash", &["--norc", "--noprofile"], setup)
    else {
        return;
    };
    tab_shows(&term, &line, &[&tokens[0], &tokens[1]]);
}

#[test]
fn zsh_completes_harness_names_and_session_tokens_with_their_sentences() {
    let setup = "autoload -U compinit && compinit -u && source <(memsync completions zsh)";
    let Some((_tmp, term, line, tokens)) = completing_shell("zsh", &["-f"], setup) else {
        return;
    };
    // zsh shows each token with its ledger sentence beside it.
    tab_shows_that(&term, &line, "the newest token and its sentence", |s| {
        s.lines()
            .any(|l| l.starts_with(tokens[0].as_str()) && l.contains(" -- "))
    });
}
