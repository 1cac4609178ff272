//! `cargo bench --bench harvest`: a Claude Code home with 2,000 finished
//! session files (a week of sessions across 20 projects), harvested by the
//! release binary as a whole process: the first harvest, then a second one
//! with nothing new (target ≤ 200 ms: it must cost a `stat` per file, not a
//! read), then one with 10 sessions grown.
//!
//! Then Claude Code's own auto memory (issue 45): 2,000 memory files across
//! 100 projects imported as notes (target ≤ 5 s), a harvest with nothing new
//! (a `stat` per file), one with 20 files changed, and `context` for one of
//! the projects afterwards (target ≤ 100 ms, whole process).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

const SESSIONS: usize = 2_000;

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("claude");
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).expect("workspace");
    std::fs::write(ws.join("memsync.yaml"), "daily_logs:\n  timezone: UTC\n").expect("config");
    let config = tmp.path().join("config.yaml");
    std::fs::write(
        &config,
        format!("harvest:\n  claude_code_dir: {}\n", home.display()),
    )
    .expect("machine config");
    let now = SystemTime::now();
    let mut paths = Vec::new();
    for i in 0..SESSIONS {
        let dir = home.join(format!("projects/-home-dev-code-p{:02}", i % 20));
        std::fs::create_dir_all(&dir).expect("project dir");
        let path = dir.join(format!("s-{i:04}.jsonl"));
        std::fs::write(&path, session(i, 3)).expect("session");
        // Ended between 1 and 168 hours ago: all idle, all within the look-back.
        set_mtime(
            &path,
            now - Duration::from_secs(3600 * (1 + (i as u64 % 168))),
        );
        paths.push(path);
    }
    let harvest = || {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--config")
            .arg(&config)
            .arg("--workspace")
            .arg(&ws)
            .args(["--quiet", "harvest"])
            .output()
            .expect("memsync harvest");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        started.elapsed()
    };
    let first = harvest();
    let mut noop: Vec<Duration> = (0..5).map(|_| harvest()).collect();
    noop.sort();
    for (i, path) in paths.iter().take(10).enumerate() {
        std::fs::write(path, session(i, 5)).expect("grow");
        set_mtime(path, now - Duration::from_secs(3600));
    }
    let grown = harvest();
    let memory = std::fs::read_to_string(ws.join("MEMORY.md")).unwrap_or_default();
    assert!(
        memory.contains("session=s-0000 "),
        "the harvest reached MEMORY.md"
    );

    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
    println!("\n| measure ({SESSIONS} Claude Code session files) | figure | target |");
    println!("|---|---|---|");
    println!(
        "| first harvest, whole process ({:.1} ms per session) | {} | ≤ 15 s |",
        first.as_secs_f64() * 1000.0 / SESSIONS as f64,
        ms(first)
    );
    println!(
        "| second harvest, nothing new, whole process, median of 5 | {} | ≤ 200 ms |",
        ms(noop[2])
    );
    println!(
        "| harvest with 10 sessions grown (continuations) | {} | |",
        ms(grown)
    );
    memory_files(tmp.path());
}

const MEMORY_FILES: usize = 2_000;

/// Harvest and `context` over a home whose Claude Code keeps 20 auto-memory
/// files in each of 100 projects.
fn memory_files(tmp: &Path) {
    let home = tmp.join("claude-memory");
    let ws = tmp.join("ws-memory");
    std::fs::create_dir_all(&ws).expect("workspace");
    std::fs::write(ws.join("memsync.yaml"), "daily_logs:\n  timezone: UTC\n").expect("config");
    let config = tmp.join("config-memory.yaml");
    std::fs::write(
        &config,
        format!(
            "harvest:\n  claude_code_dir: {}\n  harnesses: [claude-code]\n",
            home.display()
        ),
    )
    .expect("machine config");
    let mut files = Vec::new();
    for p in 0..MEMORY_FILES / 20 {
        let dir = home.join(format!("projects/-home-dev-code-m{p:03}"));
        std::fs::create_dir_all(dir.join("memory")).expect("memory dir");
        let line = format!(
            r#"{{"type":"user","sessionId":"m{p}","cwd":"/home/dev/code/m{p:03}","message":{{"role":"user","content":"hi"}}}}"#
        );
        std::fs::write(dir.join(format!("m{p}.jsonl")), line + "\n").expect("session");
        for f in 0..20 {
            let path = dir.join("memory").join(format!("topic_{f:02}.md"));
            std::fs::write(&path, memory_text(p, f, "")).expect("memory file");
            files.push(path);
        }
    }
    let run = |args: &[&str]| {
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_memsync"))
            .arg("--config")
            .arg(&config)
            .arg("--workspace")
            .arg(&ws)
            .args(args)
            .current_dir(tmp)
            .output()
            .expect("memsync");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            started.elapsed(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (first, report) = run(&["--json", "harvest"]);
    assert!(
        report.contains("topic_19.md"),
        "the memory files were imported"
    );
    let mut noop: Vec<Duration> = (0..5).map(|_| run(&["--quiet", "harvest"]).0).collect();
    noop.sort();
    for (i, path) in files.iter().take(20).enumerate() {
        std::fs::write(path, memory_text(i / 20, i % 20, "Changed: use pnpm 9.\n")).expect("edit");
    }
    let (changed, _) = run(&["--quiet", "harvest"]);
    let mut context: Vec<Duration> = (0..5)
        .map(|_| run(&["context", "--cwd", "/home/dev/code/m007"]).0)
        .collect();
    context.sort();
    let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
    println!(
        "\n| measure ({MEMORY_FILES} Claude Code auto-memory files, 100 projects) | figure | target |"
    );
    println!("|---|---|---|");
    println!(
        "| first harvest: every file imported as a note, whole process | {} | ≤ 5 s |",
        ms(first)
    );
    println!(
        "| second harvest, nothing new, median of 5 | {} | a `stat` per file |",
        ms(noop[2])
    );
    println!("| harvest with 20 files changed | {} | |", ms(changed));
    println!(
        "| `context` in one project afterwards, median of 5 | {} | ≤ 100 ms |",
        ms(context[2])
    );
}

/// A topic file as Claude Code writes one: frontmatter, then the fact.
fn memory_text(project: usize, file: usize, extra: &str) -> String {
    format!(
        "---\nname: Topic {file} of project {project}\ndescription: a fact the agent keeps\ntype: project\n---\n\nProject {project} builds with cargo; topic {file} says the staging database is read-only and deploys go through the release branch.\n{extra}"
    )
}

/// A Claude Code session of `turns` request/answer pairs.
fn session(i: usize, turns: usize) -> String {
    let id = format!("s-{i:04}");
    let mut out = String::new();
    for t in 0..turns {
        let at = format!("2026-11-20T10:{:02}:00.000Z", t % 60);
        out.push_str(&format!(
            r#"{{"type":"user","uuid":"u-{t}","sessionId":"{id}","cwd":"/home/dev/code/p{:02}","timestamp":"{at}","message":{{"role":"user","content":"Step {t} of task {i}: make the retry loop in src/pay.rs back off exponentially and add a test"}}}}"#,
            i % 20
        ));
        out.push('\n');
        out.push_str(&format!(
            r#"{{"type":"assistant","uuid":"a-{t}","sessionId":"{id}","timestamp":"{at}","message":{{"id":"m-{t}","role":"assistant","content":[{{"type":"text","text":"Done with step {t}: src/pay.rs now retries with backoff and tests/pay.rs covers it."}},{{"type":"tool_use","id":"t{t}","name":"Edit","input":{{"file_path":"/home/dev/code/p00/src/pay.rs"}}}}]}}}}"#
        ));
        out.push('\n');
    }
    out
}

fn set_mtime(path: &Path, at: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .expect("open")
        .set_modified(at)
        .expect("mtime");
}
