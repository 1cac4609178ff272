//! The README's command blocks run as written (issue 67): every line of its
//! `sh` blocks, in a fresh home with memsync on PATH and nothing else set,
//! in the order a newcomer meets them, exits 0; the completion lines load,
//! and `man memsync` finds the page once the line `man --out` prints is in
//! the profile. Only the lines that build or test this repository, and
//! `service install` (it would act on this machine's service manager;
//! tests/service.rs covers it), are not run here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Lines that are not for a newcomer's shell in a test, with the reason.
const NOT_RUN: &[(&str, &str)] = &[
    ("cargo ", "builds or tests this repository"),
    ("bash .ci/run", "is the test run itself"),
    ("MEMSYNC_SOAK_MINUTES", "is the hour-long soak"),
    (
        "memsync service install",
        "acts on the machine's service manager",
    ),
];

/// Every line of every `sh` block in the README, in order.
fn readme_lines() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let mut lines = Vec::new();
    let mut inside = false;
    for line in readme.lines() {
        match (inside, line.trim_start()) {
            (false, "```sh") => inside = true,
            (true, "```") => inside = false,
            (true, text) if !text.is_empty() => lines.push(text.to_string()),
            _ => {}
        }
    }
    lines
}

/// A fresh home whose PATH reaches memsync and the system's tools only.
struct Newcomer {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    path: String,
}

impl Newcomer {
    fn new() -> Newcomer {
        let tmp = tempfile::tempdir().unwrap();
        let (home, bin) = (tmp.path().join("home"), tmp.path().join("bin"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_memsync"), bin.join("memsync")).unwrap();
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
        Newcomer {
            _tmp: tmp,
            home,
            path,
        }
    }

    fn bash(&self, line: &str) -> Output {
        Command::new("bash")
            .args(["-c", line])
            .current_dir(&self.home)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", &self.path)
            .env("TZ", "UTC")
            .env("LANG", "C.UTF-8")
            .output()
            .unwrap()
    }

    fn run(&self, line: &str) -> String {
        let out = self.bash(line);
        assert!(
            out.status.success(),
            "README line failed: {line}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A session as `harvest` or a hook would have captured it by the time
    /// a person reaches the everyday commands; its token.
    fn a_captured_session(&self) -> String {
        let transcript = self.home.join("retry.jsonl");
        std::fs::write(
            &transcript,
            "{\"type\":\"user\",\"uuid\":\"u\",\"sessionId\":\"readme-1\",\"cwd\":\"/home/ana/shop\",\"timestamp\":\"2026-11-20T10:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"Fix the retry bug in src/pay.rs\"}}\n",
        )
        .unwrap();
        self.run(&format!(
            "memsync -q capture session-end --transcript {}",
            transcript.display()
        ));
        let hits: serde_json::Value =
            serde_json::from_str(&self.run("memsync search 'retry bug' --json")).unwrap();
        hits[0]["token"]
            .as_str()
            .expect("the captured session is found")
            .to_string()
    }
}

#[test]
fn every_line_of_the_readmes_command_blocks_runs_as_written_in_a_fresh_home() {
    let me = Newcomer::new();
    // A fish user's first run of fish has made this folder.
    std::fs::create_dir_all(me.home.join(".config/fish/completions")).unwrap();
    let demo = me.home.join("memsync-demo");
    let mut token = None;
    let mut ran = Vec::new();
    for line in readme_lines() {
        if let Some((_, why)) = NOT_RUN.iter().find(|(start, _)| line.starts_with(start)) {
            eprintln!("not run ({why}): {line}");
            continue;
        }
        // The demo's folder moves into this home so runs never share it.
        let mut line = line.replace("/tmp/memsync-demo", &demo.display().to_string());
        if line.contains("<token>") {
            let token = token.get_or_insert_with(|| me.a_captured_session());
            line = line.replace("<token>", token);
        }
        let said = me.run(&line);
        ran.push((line, said));
    }
    let said = |start: &str| {
        ran.iter()
            .find(|(l, _)| l.starts_with(start))
            .map(|(_, s)| s.as_str())
            .unwrap_or_else(|| panic!("the README no longer has {start:?}"))
    };
    assert!(said("memsync demo").contains("MEMORY.md"));
    assert!(said(&format!("memsync --workspace {} search", demo.display())).contains("1. "));
    assert!(said("memsync init").contains("workspace ready"));
    assert!(said("memsync forget").contains("forgotten"));
    // The bash completion the profile line loads, and fish's file.
    let loaded = me.run("source ~/.bashrc && complete -p memsync");
    assert!(loaded.contains("memsync"), "{loaded}");
    let fish = std::fs::read_to_string(me.home.join(".config/fish/completions/memsync.fish"))
        .expect("the fish completions file");
    assert!(fish.contains("--command memsync"), "{fish}");
    man_finds_the_page(&me, said("memsync man --out"));
}

/// `man memsync`, with the MANPATH line `man --out` printed (if it printed
/// one) added to the profile as it says, finds the page it wrote.
fn man_finds_the_page(me: &Newcomer, man_out: &str) {
    if !me.bash("command -v man").status.success() {
        eprintln!("skipped the man lookup: this machine has no `man`");
        return;
    }
    let profile: String = man_out
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("export MANPATH="))
        .collect();
    let found = me.run(&format!("{profile}\nman -w memsync"));
    let page = me.home.join(".local/share/man/man1/memsync.1");
    assert_eq!(found.trim(), page.display().to_string(), "{man_out}");
}
