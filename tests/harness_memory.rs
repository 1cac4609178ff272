//! The harnesses' own memory carried by the workspace (issue 45, item 4):
//! `harvest` imports Claude Code's auto memory, Codex's memories and
//! OpenClaw's curated MEMORY.md text as notes; `connect` on a second
//! machine (another home) writes a project's imported memory back into
//! Claude Code's folder byte for byte, and never over a local edit. Real
//! files, real git remotes, the real binary.

mod common;

use std::path::{Path, PathBuf};

use common::claude::{project_folder, with_remote};
use common::home::Home;
use serde_json::Value;

const INDEX: &str = "- [Build tool](build.md) — pnpm, never npm\n";
const BUILD: &str = "---\nname: Build tool\ndescription: which package manager\ntype: project\n---\n\nThis repo uses pnpm; never run npm install.\n";

/// A workspace; the projects sit in a temp dir, which is excluded by default.
fn init(home: &Home) {
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
}

/// A project folder with a git remote, as a person clones it.
fn project(home: &Home, rel: &str, remote: &str) -> PathBuf {
    let dir = home.path(rel);
    with_remote(&dir, remote);
    dir
}

/// Claude Code's folder for `project` as Claude Code leaves it: a session
/// that ran there and its auto memory.
fn claude_memory(home: &Home, project: &Path, files: &[(&str, &str)]) -> PathBuf {
    let dir = project_folder(home, project);
    std::fs::create_dir_all(dir.join("memory")).unwrap();
    let line = serde_json::json!({"type": "user", "cwd": project, "sessionId": "s1",
        "message": {"role": "user", "content": "hi"}});
    std::fs::write(dir.join("s1.jsonl"), format!("{line}\n")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join("memory").join(name), text).unwrap();
    }
    dir.join("memory")
}

fn harvest(home: &Home) -> Value {
    let (code, report) = home.run(&["harvest"]);
    assert!(code == 0 || code == 1, "{report}");
    report
}

fn notes_in(report: &Value, list: &str) -> Vec<String> {
    report["memory"][list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| e["note"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Copies the workspace's notes to another home's workspace (what a git
/// clone of the workspace brings).
fn carry_notes(from: &Home, to: &Home) {
    let src = from.path("ws/notes");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let rel = e.path().strip_prefix(&src).unwrap();
        let dest = to.path("ws/notes").join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn connect_in(home: &Home, cwd: &Path) -> Value {
    let out = home
        .cmd()
        .current_dir(cwd)
        .args(["--json", "connect", "claude-code"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn claude_codes_auto_memory_is_imported_once_then_found_by_search() {
    let home = Home::new();
    init(&home);
    let shop = project(&home, "code/shop", "git@github.com:ana/shop.git");
    claude_memory(&home, &shop, &[("MEMORY.md", INDEX), ("build.md", BUILD)]);

    let first = harvest(&home);
    let mut imported = notes_in(&first, "imported");
    imported.sort();
    assert_eq!(
        imported,
        [
            "notes/claude-code/shop/MEMORY.md",
            "notes/claude-code/shop/build.md"
        ]
    );
    let note = home.read("ws/notes/claude-code/shop/build.md");
    assert!(
        note.ends_with(BUILD),
        "the harness's bytes follow the frontmatter:\n{note}"
    );
    assert!(
        note.contains("project_remote: github.com/ana/shop"),
        "{note}"
    );
    assert!(
        note.contains("source: ~/.claude/projects/"),
        "no user name:\n{note}"
    );

    // Unchanged files are not imported again.
    let second = harvest(&home);
    assert!(notes_in(&second, "imported").is_empty(), "{second}");
    assert!(
        second.get("memory").is_none(),
        "nothing to report: {second}"
    );

    let (_, found) = home.run(&["search", "pnpm"]);
    let paths: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert!(
        paths.contains(&"notes/claude-code/shop/build.md"),
        "{found}"
    );
}

#[test]
fn a_second_machine_gets_the_projects_memory_back_byte_for_byte_and_keeps_local_edits() {
    let laptop = Home::new();
    init(&laptop);
    let shop = project(&laptop, "code/shop", "git@github.com:ana/shop.git");
    let memory = claude_memory(&laptop, &shop, &[("MEMORY.md", INDEX), ("build.md", BUILD)]);
    harvest(&laptop);

    // The new machine: the project cloned elsewhere, the workspace cloned, Claude Code fresh.
    let desk = Home::new();
    init(&desk);
    carry_notes(&laptop, &desk);
    let clone = project(&desk, "src/shop", "https://github.com/ana/shop.git");
    // The report's arrow points the way the bytes went: note -> harness file
    // (issue 65: it used harvest's `file -> note` for a copy the other way).
    let text = desk
        .cmd()
        .current_dir(&clone)
        .args(["connect", "claude-code", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let restore = text
        .lines()
        .find(|l| l.contains("build.md") && l.contains("->"))
        .unwrap_or_else(|| panic!("{text}"));
    let (from, to) = restore.split_once("->").unwrap();
    assert!(
        from.contains("notes/") && to.contains(".claude/projects/"),
        "{restore}"
    );
    let restored = connect_in(&desk, &clone);
    assert_eq!(
        restored["memory"]["written"].as_array().unwrap().len(),
        2,
        "{restored}"
    );
    let desk_memory = project_folder(&desk, &clone).join("memory");
    assert_eq!(
        std::fs::read(desk_memory.join("build.md")).unwrap(),
        BUILD.as_bytes()
    );

    assert_eq!(
        std::fs::read(desk_memory.join("MEMORY.md")).unwrap(),
        INDEX.as_bytes()
    );

    // Claude Code on the desk edits its copy; the laptop changes its own meanwhile.
    let local = "This repo uses pnpm 9.\n";
    std::fs::write(desk_memory.join("build.md"), local).unwrap();
    let index2 = format!("{INDEX}- [Tests](tests.md)\n");
    std::fs::write(
        memory.join("build.md"),
        format!("{BUILD}Also: pnpm test.\n"),
    )
    .unwrap();
    std::fs::write(memory.join("MEMORY.md"), &index2).unwrap();
    let updated = harvest(&laptop);
    assert_eq!(notes_in(&updated, "updated").len(), 2, "{updated}");
    carry_notes(&laptop, &desk);

    let again = connect_in(&desk, &clone);
    assert_eq!(
        std::fs::read_to_string(desk_memory.join("build.md")).unwrap(),
        local,
        "a local edit is never overwritten"
    );
    let kept: Vec<&str> = again["memory"]["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["note"].as_str().unwrap())
        .collect();
    assert_eq!(kept, ["notes/claude-code/shop/build.md"], "{again}");
    // The file memsync wrote and nobody edited follows the workspace.
    assert_eq!(
        std::fs::read_to_string(desk_memory.join("MEMORY.md")).unwrap(),
        index2
    );

    // The desk's own edit is imported by the desk's harvest: the note is
    // unedited in the workspace, so it follows the harness.
    let desk_harvest = harvest(&desk);
    assert_eq!(
        notes_in(&desk_harvest, "updated"),
        ["notes/claude-code/shop/build.md"]
    );
    assert!(
        desk.read("ws/notes/claude-code/shop/build.md")
            .ends_with(local)
    );
}

#[test]
fn a_note_edited_in_the_workspace_is_not_replaced_by_a_changed_harness_file() {
    let home = Home::new();
    init(&home);
    let shop = project(&home, "code/shop", "git@github.com:ana/shop.git");
    let memory = claude_memory(&home, &shop, &[("build.md", BUILD)]);
    harvest(&home);
    let note = home.path("ws/notes/claude-code/shop/build.md");
    let edited = std::fs::read_to_string(&note)
        .unwrap()
        .replace("pnpm;", "pnpm (checked in Obsidian);");
    std::fs::write(&note, &edited).unwrap();
    std::fs::write(memory.join("build.md"), "Use yarn.\n").unwrap();

    let report = harvest(&home);
    assert_eq!(
        notes_in(&report, "conflicts"),
        ["notes/claude-code/shop/build.md"],
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(&note).unwrap(), edited);
    assert_eq!(
        std::fs::read_to_string(memory.join("build.md")).unwrap(),
        "Use yarn.\n"
    );
}

#[test]
fn a_memory_file_the_harness_deletes_leaves_its_note_marked_and_out_of_context() {
    let home = Home::new();
    init(&home);
    let shop = project(&home, "code/shop", "git@github.com:ana/shop.git");
    let memory = claude_memory(&home, &shop, &[("build.md", BUILD)]);
    harvest(&home);
    let context = |home: &Home| {
        let out = home
            .cmd()
            .current_dir(&shop)
            .args(["context"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(context(&home).contains("Build tool"), "{}", context(&home));

    std::fs::remove_file(memory.join("build.md")).unwrap();
    let report = harvest(&home);
    assert_eq!(
        notes_in(&report, "deleted_upstream"),
        ["notes/claude-code/shop/build.md"]
    );
    let note = home.read("ws/notes/claude-code/shop/build.md");
    assert!(
        note.contains("source_deleted:") && note.ends_with(BUILD),
        "kept, marked:\n{note}"
    );
    assert!(!context(&home).contains("Build tool"), "{}", context(&home));
    let (_, shown) = home.run(&["open", "notes/claude-code/shop/build.md"]);
    assert!(shown.to_string().contains("source_deleted"), "{shown}");
}

#[test]
fn codex_memories_and_openclaws_curated_text_are_searchable_notes() {
    let home = Home::new();
    init(&home);
    std::fs::create_dir_all(home.path(".codex/memories/rollout_summaries")).unwrap();
    home.write(
        ".codex/memories/MEMORY.md",
        "# Codex memory\n\nThe staging database is read-only.\n",
    );
    home.write(
        ".codex/memories/rollout_summaries/r1.md",
        "a rollout summary\n",
    );
    home.write(
        ".openclaw/workspace/MEMORY.md",
        "# Curated\n\nAna prefers answers in French.\n\n<!-- memsync:begin -->\nledger rows\n<!-- memsync:end -->\n",
    );
    let report = harvest(&home);
    let mut imported = notes_in(&report, "imported");
    imported.sort();
    assert_eq!(
        imported,
        ["notes/codex/MEMORY.md", "notes/openclaw/MEMORY.md"],
        "{report}"
    );
    let (_, found) = home.run(&["search", "staging read-only"]);
    assert!(
        found.to_string().contains("notes/codex/MEMORY.md"),
        "{found}"
    );
    let (_, french) = home.run(&["search", "French answers"]);
    assert!(
        french.to_string().contains("notes/openclaw/MEMORY.md"),
        "{french}"
    );
}

#[test]
fn a_note_naming_a_file_outside_the_memory_folder_is_never_restored() {
    let home = Home::new();
    init(&home);
    std::fs::create_dir_all(home.path("ws/notes/codex")).unwrap();
    home.write(
        "ws/notes/codex/evil.md",
        "---\nauthor: codex\nharness: codex\nsource: x\nfile: ../../.bashrc.md\nsource_sha256: 00\n---\nrm -rf ~\n",
    );
    let out = home
        .cmd()
        .args(["--json", "connect", "codex"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!home.path(".bashrc.md").exists());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["memory"]["written"].as_array().unwrap().is_empty(),
        "{report}"
    );
}

#[test]
fn a_forgotten_imported_note_is_never_imported_again() {
    let home = Home::new();
    init(&home);
    let shop = project(&home, "code/shop", "git@github.com:ana/shop.git");
    let memory = claude_memory(&home, &shop, &[("build.md", BUILD)]);
    harvest(&home);
    let (code, forgot) = home.run(&[
        "forget",
        "notes/claude-code/shop/build.md",
        "--reason",
        "wrong",
        "--yes",
    ]);
    assert_eq!(code, 0, "{forgot}");
    assert!(
        forgot["harness_file"]
            .as_str()
            .unwrap()
            .ends_with("memory/build.md"),
        "{forgot}"
    );
    std::fs::write(memory.join("build.md"), format!("{BUILD}changed\n")).unwrap();
    let report = harvest(&home);
    assert_eq!(
        report["memory"]["skipped"][0]["reason"], "forgotten (memsync forget)",
        "{report}"
    );
    assert!(!home.path("ws/notes/claude-code/shop/build.md").exists());
    // Nor written back on another machine by connect.
    let restored = connect_in(&home, &shop);
    assert!(
        restored["memory"]["written"].as_array().unwrap().is_empty(),
        "{restored}"
    );
}
