//! A workspace that captured one session, read back as an agent reads it,
//! and a home folder laid out as the newer harnesses (Gemini CLI, qwen-code,
//! Copilot CLI, opencode, Cline) lay out theirs, filled from their samples.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

pub struct Captured {
    pub _tmp: TempDir,
    pub ws: PathBuf,
}

/// The body of an artifact text (what follows its frontmatter).
fn body(text: &str) -> String {
    text.splitn(3, "---\n")
        .nth(2)
        .unwrap_or_default()
        .to_string()
}

impl Captured {
    /// The newest summary's body.
    pub fn summary(&self) -> String {
        let all = super::harness::artifacts(&self.ws, "summary");
        all.last().map(|s| body(s)).unwrap_or_default()
    }

    /// The newest manifest, frontmatter and all.
    pub fn manifest(&self) -> String {
        let all = super::harness::artifacts(&self.ws, "manifest");
        all.last().cloned().unwrap_or_default()
    }

    /// MEMORY.md's list lines.
    pub fn ledger_rows(&self) -> String {
        let memory = std::fs::read_to_string(self.ws.join("MEMORY.md")).unwrap();
        let rows: Vec<&str> = memory.lines().filter(|l| l.starts_with("- ")).collect();
        rows.join("\n")
    }

    /// Every file memsync wrote under the workspace, as text.
    pub fn everything(&self) -> String {
        walkdir::WalkDir::new(&self.ws)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned())
            .collect()
    }
}

/// A sample copied where its harness keeps it, last written the day the
/// samples were made (so a harvest on the tests' fixed clock finds it idle,
/// whenever the test runs).
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
    super::set_mtime_at(to, "2026-11-26T12:00:00Z");
}

/// `home` with the samples where each harness keeps its sessions; opencode's
/// rows loaded into an `opencode.db` made from its real schema. Returns the
/// database's path.
pub fn new_harness_home(samples: &Path, home: &Path) -> PathBuf {
    for entry in std::fs::read_dir(samples.join("gemini-cli-0.61.0/chats")).unwrap() {
        let from = entry.unwrap().path();
        copy(
            &from,
            &home
                .join(".gemini/tmp/proj7/chats")
                .join(from.file_name().unwrap()),
        );
    }
    for entry in std::fs::read_dir(samples.join("qwen-code-0.24.4")).unwrap() {
        let from = entry.unwrap().path();
        let to = home.join(".qwen/projects/-home-dev-proj11/chats");
        copy(&from, &to.join(from.file_name().unwrap()));
    }
    let copilot = home.join(".copilot/session-state/0084ec3e-9d67-46ba-afff-a2b9e7f34428");
    for name in ["events.jsonl", "workspace.yaml"] {
        copy(
            &samples.join("copilot-cli-1.0.102").join(name),
            &copilot.join(name),
        );
    }
    let cline = home.join(".cline/data/sessions/1795663152997_wlu0b");
    copy(
        &samples.join("cline-3.0.65/session.messages.json"),
        &cline.join("1795663152997_wlu0b.messages.json"),
    );
    copy(
        &samples.join("cline-3.0.65/session.json"),
        &cline.join("1795663152997_wlu0b.json"),
    );
    let db = home.join(".local/share/opencode/opencode.db");
    opencode_db(&samples.join("opencode-1.18.33"), &db);
    db
}

/// An opencode database with the sample's schema and rows.
fn opencode_db(sample: &Path, db: &Path) {
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let conn = rusqlite::Connection::open(db).unwrap();
    let schema = std::fs::read_to_string(sample.join("schema.sql")).unwrap();
    conn.execute_batch(&schema).unwrap();
    conn.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    let rows = std::fs::read_to_string(sample.join("rows.jsonl")).unwrap();
    for line in rows.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = |k: &str| r[k].as_str().map(str::to_string);
        let n = |k: &str| r[k].as_i64().unwrap_or(0);
        let data = r["data"].to_string();
        match r["table"].as_str().unwrap() {
            "session" => conn.execute(
                "INSERT INTO session (id, project_id, slug, directory, title, version, parent_id, time_created, time_updated)
                 VALUES (?1, 'p', 's', ?2, ?3, ?4, ?5, ?6, ?7)",
                rusqlite::params![s("id"), s("directory"), s("title"), s("version"), s("parent_id"), n("time_created"), n("time_updated")],
            ),
            "message" => conn.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![s("id"), s("session_id"), n("time_created"), data],
            ),
            _ => conn.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, 0, 0, ?4)",
                rusqlite::params![s("id"), s("message_id"), s("session_id"), data],
            ),
        }
        .unwrap();
    }
}
