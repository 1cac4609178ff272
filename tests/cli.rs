//! The `memsync` binary end to end: commands, output, and exit codes.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;

const NOW: &str = "2026-11-20T12:00:00Z";

fn memsync() -> Command {
    let mut cmd = Command::cargo_bin("memsync").unwrap();
    cmd.env_remove("MEMSYNC_CONFIG")
        .env_remove("MEMSYNC_WORKSPACE")
        .env_remove("SIGNET_WORKSPACE")
        .env_remove("SIGNET_PATH")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC");
    cmd
}

#[test]
fn demo_writes_and_syncs_the_example_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    memsync()
        .args(["--now", NOW, "demo"])
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("MEMORY.md for agent default"))
        .stdout(predicate::str::contains("## Session Ledger (Last 30 Days)"))
        .stdout(predicate::str::contains("checksum.mismatch"));
    assert!(dir.join("agents/reviewer/MEMORY.md").exists());
    let md = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert!(md.starts_with("# Memory\n\nCurated by Ada."));
    // The example plants errors: check exits 1 and lists each as path: severity: rule: reason.
    memsync()
        .args(["--now", NOW, "--workspace"])
        .arg(&dir)
        .arg("check")
        .assert()
        .code(1)
        .stdout(
            predicate::str::is_match(r"(?m)^memory/\S+--summary\.md: error: checksum\.mismatch: ")
                .unwrap(),
        )
        .stdout(predicate::str::contains("2 errors, 2 warnings"));
    // A second demo into the same directory replaces the first (issue 46);
    // a folder the demo did not make is refused (tests/cli_rough_edges.rs).
    memsync().args(["demo"]).arg(&dir).assert().success();
}

#[test]
fn check_json_and_status_json_parse_and_agree() {
    let (_tmp, dir) = common::demo_workspace();
    let out = memsync()
        .args(["--now", NOW, "--json", "--workspace"])
        .arg(&dir)
        .arg("check")
        .output()
        .unwrap();
    let check: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = memsync()
        .args(["--now", NOW, "--json", "--workspace"])
        .arg(&dir)
        .arg("status")
        .output()
        .unwrap();
    assert!(out.status.success());
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(check["errors"], status["errors"]);
    assert_eq!(status["tombstones"], 1);
    let agents: Vec<&str> = status["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent_id"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["default", "reviewer"]);
    assert!(
        status["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "checksum.mismatch")
    );
}

#[test]
fn a_clean_workspace_checks_with_exit_zero() {
    let tmp = tempfile::tempdir().unwrap();
    memsync()
        .args(["--now", NOW, "--workspace"])
        .arg(tmp.path())
        .arg("check")
        .assert()
        .success()
        .stdout("0 errors, 0 warnings\n");
}

#[test]
fn configuration_and_usage_errors_exit_two() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("memsync.yaml"), "memory_md:\n  budget: 1\n").unwrap();
    memsync()
        .arg("--workspace")
        .arg(tmp.path())
        .arg("sync")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown field `budget`"));
    memsync()
        .args(["--now", "yesterday", "sync"])
        .assert()
        .code(2);
    memsync().args(["no-such-command"]).assert().code(2);
}

#[test]
fn sync_and_reindex_report_what_they_did() {
    let (_tmp, dir) = common::demo_workspace();
    memsync()
        .args(["--now", NOW, "--workspace"])
        .arg(&dir)
        .arg("reindex")
        .assert()
        .success()
        .stdout(predicate::str::contains("indexed 30"));
    let out = memsync()
        .args(["--now", NOW, "--json", "--workspace"])
        .arg(&dir)
        .arg("sync")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["report"]["indexed"], 0);
    assert!(v["problems"].as_array().unwrap().len() >= 4);
}

#[test]
fn every_command_has_help_with_an_example() {
    let commands: &[&[&str]] = &[
        &["sync"],
        &["check"],
        &["watch"],
        &["reindex"],
        &["status"],
        &["search"],
        &["open"],
        &["forget"],
        &["capture"],
        &["capture", "session-end"],
        &["capture", "compaction"],
        &["capture", "jobs"],
        &["service"],
        &["service", "install"],
        &["service", "uninstall"],
        &["service", "status"],
        &["completions"],
        &["man"],
        &["demo"],
        &["generate"],
    ];
    for cmd in commands {
        memsync()
            .args(*cmd)
            .arg("--help")
            .assert()
            .success()
            .stdout(predicate::str::contains("Example"));
    }
}

#[test]
fn completions_and_man_pages_come_from_the_cli_definition() {
    // Each script calls `memsync` back for the values (tests/completion.rs
    // drives bash and zsh with them).
    for (shell, marker) in [
        ("bash", "complete -o nospace -o bashdefault"),
        ("zsh", "#compdef memsync"),
        (
            "fish",
            "complete --keep-order --exclusive --command memsync",
        ),
    ] {
        memsync()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains(marker))
            .stdout(predicate::str::contains("COMPLETE="));
    }
    memsync()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie \\n(.g .ds Aq"))
        .stdout(predicate::str::contains(".TH memsync 1"))
        // What a man page has beyond --help, and clap's bare EXTRA section gone.
        .stdout(predicate::str::contains(".SH \"EXIT STATUS\""))
        .stdout(predicate::str::contains(".SH \"ENVIRONMENT\""))
        .stdout(predicate::str::contains("MEMSYNC_WORKSPACE"))
        .stdout(predicate::str::contains(".SH \"FILES\""))
        .stdout(predicate::str::contains(".SH EXAMPLES\n.nf\nmemsync demo"))
        .stdout(predicate::str::contains("EXTRA").not());
    let dir = tempfile::tempdir().unwrap();
    memsync()
        .args(["man", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    for page in [
        "memsync.1",
        "memsync-search.1",
        "memsync-capture-session-end.1",
    ] {
        assert!(dir.path().join(page).exists(), "{page}");
    }
    let search = std::fs::read_to_string(dir.path().join("memsync-search.1")).unwrap();
    assert!(
        search.contains(".SH EXAMPLES\n.nf\nmemsync search retry backoff\n"),
        "{search}"
    );
}

#[test]
fn the_state_directory_and_databases_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, dir) = common::demo_workspace();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.join(".memsync")), 0o700);
    assert_eq!(mode(&dir.join(".memsync/index.db")), 0o600);
    // The hook's job queue too.
    let mut hook = std::process::Command::new(assert_cmd::cargo::cargo_bin("memsync"))
        .arg("--workspace")
        .arg(&dir)
        .args(["capture", "--hook", "claude-code"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut hook.stdin.take().unwrap(),
        b"{\"hook_event_name\":\"Stop\"}",
    )
    .unwrap();
    assert!(hook.wait().unwrap().success());
    assert_eq!(mode(&dir.join(".memsync/jobs.db")), 0o600);
}

#[test]
fn version_names_the_commit_and_its_date_when_built_from_a_clone() {
    let out = memsync().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("memsync 0."), "{text}");
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(commit) = commit {
        assert!(text.contains(&format!("({commit} ")), "{text}");
    }
}

#[test]
fn a_mistyped_harness_gets_the_values_and_a_suggestion() {
    memsync()
        .args(["connect", "claude-cod", "--dry-run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a similar value exists: 'claude-code'",
        ));
}

#[test]
fn help_fits_a_screen_and_names_every_command_in_a_group() {
    use clap::CommandFactory;
    let out = memsync().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.lines().count() <= 50, "{help}");
    for group in ["Everyday:", "Set up:", "Maintenance:"] {
        assert!(help.contains(group), "{help}");
    }
    for cmd in memsync::cli::args::Cli::command().get_subcommands() {
        if cmd.is_hide_set() || cmd.get_name() == "help" {
            continue;
        }
        let name = cmd.get_name();
        let listed = help.lines().any(|l| {
            l.starts_with(&format!("  {name} ")) || (l.starts_with("Other:") && l.contains(name))
        });
        assert!(listed, "`{name}` is missing from --help:\n{help}");
    }
}

#[test]
fn every_flag_and_argument_says_what_it_is() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let builtin = matches!(arg.get_id().as_str(), "help" | "version");
            if !arg.is_hide_set() && !builtin && arg.get_help().is_none() {
                missing.push(format!("{path} {}", arg.get_id()));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&memsync::cli::args::Cli::command(), "memsync", &mut missing);
    assert!(missing.is_empty(), "no description: {missing:#?}");
}
