//! Rough edges of the CLI a newcomer hits in the first hour (issue 46), each
//! pinned: the README's demo line run twice, `harvest --json` naming
//! OpenClaw as `--harness` does, `forget --dry-run` without a reason, and
//! harvest saying which window left files out.

mod common;

use common::home::Home;
use common::memsync_bin;

/// `memsync init NAME` run in the temp home.
fn init(home: &Home, name: &str) -> std::process::Output {
    home.cmd_nowhere()
        .current_dir(home.dir.path())
        .args(["init", name])
        .output()
        .unwrap()
}

#[test]
fn the_demo_line_works_twice_in_a_row() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memsync-demo");
    for _ in 0..2 {
        memsync_bin().arg("demo").arg(&dir).assert().success();
    }
    assert!(dir.join("MEMORY.md").is_file());
    // A folder it did not make is still refused.
    let other = tmp.path().join("mine");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("keep.txt"), "mine").unwrap();
    memsync_bin().arg("demo").arg(&other).assert().code(2);
    assert_eq!(
        std::fs::read_to_string(other.join("keep.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn harvest_names_openclaw_as_its_flag_does_and_says_which_window_left_files_out() {
    let home = Home::new();
    home.cmd().arg("init").assert().success();
    let session = home.path(".claude/projects/-home-a-shop/old.jsonl");
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    std::fs::write(&session, "{\"type\":\"user\",\"cwd\":\"/home/a/shop\"}\n").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(400 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(&session)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let (_, report) = home.run(&["harvest"]);
    let harnesses: Vec<&str> = report["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["harness"].as_str().unwrap())
        .collect();
    assert!(harnesses.contains(&"openclaw"), "{harnesses:?}");
    let text = home.cmd().arg("harvest").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains("too old: 1 files last written before ") && text.contains("--since"),
        "{text}"
    );
}

#[test]
fn forget_dry_run_needs_no_reason_and_forget_does() {
    let ws = common::Workspace::new();
    ws.write("notes/a.md", "text\n");
    ws.sync();
    ws.cli(&["forget", "notes/a.md", "--dry-run"]).success();
    let refused = ws.cli(&["forget", "notes/a.md"]).code(2);
    let err = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(err.contains("--reason"), "{err}");
    assert!(ws.root().join("notes/a.md").exists());
}

#[test]
fn init_then_connect_in_the_same_folder_names_the_workspace_just_made() {
    let home = Home::new();
    let made = init(&home, "W");
    let said = String::from_utf8_lossy(&made.stdout).into_owned();
    let w = home.path("W");
    assert!(
        said.contains(&format!("workspace ready: {}", w.display())),
        "absolute: {said}"
    );
    let out = home
        .cmd_nowhere()
        .current_dir(home.dir.path())
        .args(["connect", "claude-code"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.contains(&format!("`memsync --workspace {} …`", w.display())),
        "{err}"
    );
}

/// Like git, a command run in a workspace (or a folder below it) uses that
/// workspace; `--workspace` and `$MEMSYNC_WORKSPACE` still win.
#[test]
fn a_command_run_inside_a_workspace_finds_it_as_git_finds_its_repository() {
    let home = Home::new();
    assert!(init(&home, "W").status.success());
    let w = home.path("W");
    let status = |dir: &std::path::Path, env: Option<&std::path::Path>| {
        let mut cmd = home.cmd_nowhere();
        cmd.current_dir(dir).args(["status", "--json"]);
        if let Some(e) = env {
            cmd.env("MEMSYNC_WORKSPACE", e);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["workspace"].as_str().unwrap_or_default().to_string()
    };
    assert_eq!(status(&w.join("memory"), None), w.display().to_string());
    let other = home.path("other");
    init(&home, "other");
    assert_eq!(status(&w, Some(&other)), other.display().to_string());
    // A vault whose `memory/` a person moved away is still the workspace:
    // its state and its MEMORY.md say so (issue 67, item 5).
    if !w.join("MEMORY.md").is_file() {
        std::fs::write(w.join("MEMORY.md"), "# Memory\n").unwrap();
    }
    std::fs::create_dir_all(w.join("notes")).unwrap();
    std::fs::rename(w.join("memory"), w.join("archive-memory")).unwrap();
    assert_eq!(status(&w.join("notes"), None), w.display().to_string());
}

/// `memsync config` prints the configuration in force with where each value
/// comes from: the workspace's file over the machine's over the default.
#[test]
fn config_prints_every_key_with_the_file_it_comes_from() {
    let home = Home::new();
    init(&home, "W");
    let w = home.path("W");
    std::fs::write(w.join("memsync.yaml"), "git:\n  commit_quiet_ms: 2000\n").unwrap();
    let machine = home.path("machine.yaml");
    std::fs::write(
        &machine,
        "watch:\n  debounce_ms: 120\ngit:\n  commit_quiet_ms: 9000\n",
    )
    .unwrap();
    let out = home
        .cmd_nowhere()
        .arg("--config")
        .arg(&machine)
        .arg("--workspace")
        .arg(&w)
        .args(["config", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let keys: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let of = |key: &str| {
        let k = keys
            .iter()
            .find(|k| k["key"] == key)
            .unwrap_or_else(|| panic!("{key}"));
        (
            k["value"].as_str().unwrap().to_string(),
            k["from"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(of("git.commit_quiet_ms").0, "2000");
    assert!(of("git.commit_quiet_ms").1.starts_with("workspace "));
    assert_eq!(of("watch.debounce_ms").0, "120");
    assert!(of("watch.debounce_ms").1.starts_with("machine "));
    assert_eq!(
        of("memory_md.window_days"),
        ("30".to_string(), "default".to_string())
    );
    assert_eq!(
        of("(workspace root)"),
        (w.display().to_string(), "--workspace".to_string())
    );
    // An unset key says so, never `~`, which reads as the home folder.
    assert_eq!(of("sentence.model").0, "null");
    assert!(keys.iter().all(|k| k["value"] != "~"), "{keys:?}");
}

/// `man` searches `~/.local/share/man` only while `~/.local/bin` is on PATH:
/// `man --out` there says what to add when it is not, and nothing when it is.
#[test]
fn man_out_says_how_man_will_find_the_pages_when_it_would_not() {
    let home = Home::new();
    let dir = home.path(".local/share/man/man1");
    let run = |path: &str| {
        let out = home
            .cmd_nowhere()
            .env("PATH", path)
            .env_remove("MANPATH")
            .arg("man")
            .arg("--out")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = run("/usr/bin:/bin");
    let man_root = home.path(".local/share/man");
    assert!(
        said.contains(&format!(
            "export MANPATH=\"{}:$MANPATH\"",
            man_root.display()
        )),
        "{said}"
    );
    assert!(dir.join("memsync.1").exists());
    let on_path = format!("{}:/usr/bin:/bin", home.path(".local/bin").display());
    assert!(!run(&on_path).contains("MANPATH"));
}

/// A search hit ends in what to run and a file a terminal can open; `open`
/// lists paths, not wikilinks; on a terminal both are OSC 8 links.
#[test]
fn search_hits_and_open_give_a_token_and_a_path_a_terminal_opens() {
    let (_tmp, ws) = common::demo_workspace();
    let run = |args: &[&str]| {
        let out = memsync_bin()
            .arg("--workspace")
            .arg(&ws)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let found = run(&["search", "stat cache"]);
    let last = found.lines().nth(3).unwrap_or_default().trim();
    let mut parts = last.split_whitespace();
    assert_eq!(
        (parts.next(), parts.next()),
        (Some("memsync"), Some("open")),
        "{found}"
    );
    let token = parts.next().unwrap();
    let path = std::path::PathBuf::from(parts.next().unwrap());
    assert!(path.is_absolute() && path.is_file(), "{last}");
    let opened = run(&["open", token]);
    assert!(!opened.contains("[["), "{opened}");
    assert!(opened.contains(&path.display().to_string()), "{opened}");
    let linked = run(&["--color", "always", "open", token]);
    assert!(
        linked.contains(&format!("\x1b]8;;file://{}", path.display())),
        "{linked}"
    );
}

/// Once the window has passed a MEMORY.md's rows, `status` no longer calls
/// it fresh nor says it keeps more sessions than are in the window: it says
/// the next sync drops them.
#[test]
fn status_calls_a_memory_md_whose_rows_left_the_window_out_of_date() {
    let (_tmp, ws) = common::demo_workspace();
    let later = common::run_at(&ws, "2027-03-01T12:00:00Z", &["status", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&later.stdout).unwrap();
    let default = json["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent_id"] == "default")
        .unwrap();
    assert_eq!(default["memory_md"]["in_window"], 0, "{default:#}");
    assert!(
        default["memory_md"]["outdated"].as_u64().unwrap() > 0,
        "{default:#}"
    );
    let memory = json["projections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == "MEMORY.md")
        .unwrap();
    assert_eq!(memory["fresh"], false, "{memory}");
    let text = common::run_at(&ws, "2027-03-01T12:00:00Z", &["status"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("which the next sync drops"), "{text}");
}
