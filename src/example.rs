//! The bundled example workspace behind `memsync demo`: realistic sessions for
//! two agents, a compaction, a tombstone, a curated MEMORY.md, a hand-written
//! daily log, and a few invalid files. Dated relative to `now`, so the 30-day
//! window is never empty.
//!
//! Owns: the example's content. Must not: write outside the directory it is given.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use crate::compose::{self, Content, NewSession};
use crate::config::Config;
use crate::error::{Error, Result};

struct Spec {
    agent: &'static str,
    id: &'static str,
    key: Option<&'static str>,
    project: Option<&'static str>,
    harness: &'static str,
    hours_ago: i64,
    minutes: i64,
    sentence: &'static str,
    summary: &'static str,
    transcript: &'static str,
}

const SESSIONS: &[Spec] = &[
    Spec {
        agent: "default",
        id: "6f1c2a9e-0b7d-4e51-9a0c-3d2f8e7b1a01",
        key: Some("signetai-dp19"),
        project: Some("/home/ada/code/signetai"),
        harness: "claude-code",
        hours_ago: 3,
        minutes: 42,
        sentence: "Finalized DP-19 write-gate clamping decisions in signetai and queued scope-aware dedup parity validation before merge.",
        summary: "## Summary\n\nClamped the write gate to the DP-19 limits in `packages/daemon/src/write-gate.ts` and\nadded parity tests for scope-aware dedup. Merge waits on the parity run.\n\nSee also [[memory/notes/dedup.md|dedup notes]].",
        transcript: "user: the write gate lets bursts through, can you clamp it per DP-19?\nassistant: I read packages/daemon/src/write-gate.ts and added a token bucket capped at the DP-19 limits.\nassistant: cargo-style parity tests now cover scope-aware dedup.\nuser: good, queue the parity run before merge.",
    },
    Spec {
        agent: "default",
        id: "0d3e4f5a-6b7c-4d8e-9f01-2a3b4c5d6e02",
        key: None,
        project: Some("/home/ada/code/memsync"),
        harness: "codex",
        hours_ago: 20,
        minutes: 5,
        sentence: "Added the stat cache to memsync scan so a no-op sync reads no files, and measured it on the generated workspace.",
        summary: "## Summary\n\nThe scan now compares size, mtime and inode with the `files` table and only reads\nwhat changed. A no-op sync of the generated workspace reads nothing.",
        transcript: "user: sync is slow on a big workspace\nassistant: added a stat cache in src/scan.rs keyed by path (size, mtime, inode)\nassistant: no-op sync now reads zero files",
    },
    Spec {
        agent: "default",
        id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c03",
        key: None,
        project: Some("/home/ada/code/signetai"),
        harness: "claude-code",
        hours_ago: 52,
        minutes: 18,
        sentence: "Traced the duplicate session rows in signetai to shared session keys and switched token derivation to session_id.",
        summary: "## Summary\n\nShared session keys collided across harness restarts; tokens now derive from\n`session_id` for new sessions (issue #412).",
        transcript: "user: why do I see the same session twice?\nassistant: two sessions share session_key signetai-dp19; see issue #412\nassistant: switched token derivation to session_id",
    },
    Spec {
        agent: "default",
        id: "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e04",
        key: None,
        project: Some("/home/ada/code/memsync"),
        harness: "claude-code",
        hours_ago: 26 * 24,
        minutes: 0,
        sentence: "Sketched the memsync projection budget so MEMORY.md stays under the 20000-byte OpenClaw cap with an explicit clipping notice.",
        summary: "## Summary\n\nMEMORY.md must stay under OpenClaw's per-file injection cap; the oldest ledger rows\nare clipped and a notice says how many were kept.",
        transcript: "user: MEMORY.md got truncated silently at 20k\nassistant: the renderer will clip the oldest rows and say so",
    },
    Spec {
        agent: "default",
        id: "test-7e6d5c4b",
        key: None,
        project: Some("/tmp/scratch"),
        harness: "claude-code",
        hours_ago: 5,
        minutes: 0,
        sentence: "Ran a throwaway fixture session in /tmp/scratch to check the hook payload parser in capture.rs before release.",
        summary: "## Summary\n\nA scratch session; it is indexed but never projected.",
        transcript: "user: just testing the hook",
    },
    Spec {
        agent: "reviewer",
        id: "r-11aa22bb-33cc-44dd-55ee-66ff77008805",
        key: Some("signetai-dp19"),
        project: Some("/home/ada/code/signetai"),
        harness: "openclaw",
        hours_ago: 2,
        minutes: 10,
        sentence: "Reviewed the DP-19 write-gate patch in signetai and asked for a regression test covering burst writes at the clamp.",
        summary: "## Summary\n\nThe clamp looks right; a regression test for bursts at exactly the limit is missing.",
        transcript: "reviewer: the clamp in write-gate.ts is right\nreviewer: please add a burst test at exactly the limit",
    },
    Spec {
        agent: "reviewer",
        id: "r-99aa88bb-77cc-66dd-55ee-44ff33002206",
        key: None,
        project: Some("/home/ada/code/memsync"),
        harness: "openclaw",
        hours_ago: 30,
        minutes: 45,
        sentence: "Worked on task.",
        summary: "## Summary\n\nLooked over the memsync README.",
        transcript: "reviewer: README reads fine",
    },
];

/// Writes the example workspace into `dir`, which must be empty, absent, or
/// a demo made earlier (replaced: running the README's line twice works).
pub fn write(dir: &Path, now: DateTime<Utc>, config: &Config) -> Result<()> {
    if is_demo(dir) {
        std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    if dir.exists()
        && dir
            .read_dir()
            .map_err(|e| Error::io(dir, e))?
            .next()
            .is_some()
    {
        return Err(crate::error::UsageError::NotEmpty {
            path: dir.to_path_buf(),
            reason: "the demo writes into a fresh directory (or over a demo it made before)",
        }
        .into());
    }
    let mut files = Vec::new();
    for spec in SESSIONS {
        let mut session_files = session(spec, now).files(config);
        if spec.sentence == "Worked on task." {
            plant_weak_sentence(&mut session_files);
        }
        files.extend(session_files);
    }
    files.extend(compaction(now, config));
    files.push(forgotten(now, config));
    files.extend(curated_and_invalid(now, config));
    compose::write_files(dir, &files)?;
    // `doctor` must never suggest wiring a harness to the demo.
    let marker = dir.join(crate::STATE_DIR).join(DEMO_MARKER);
    crate::files::create_private_dir(&dir.join(crate::STATE_DIR))?;
    crate::files::write_atomic(&marker, b"made by `memsync demo`\n")
        .map_err(|e| Error::io(&marker, e))
}

/// The file in the state directory that says a workspace is the demo.
pub const DEMO_MARKER: &str = "demo";

/// Whether `root` is a workspace `memsync demo` made.
pub fn is_demo(root: &Path) -> bool {
    root.join(crate::STATE_DIR).join(DEMO_MARKER).is_file()
}

/// A harness that stored a low-signal sentence as `ok`: `check` warns, and the
/// renderer replaces it with the fallback.
fn plant_weak_sentence(files: &mut [(String, String)]) {
    for (_, text) in files
        .iter_mut()
        .filter(|(p, _)| p.ends_with("--summary.md"))
    {
        let start = text.find("memory_sentence: ").unwrap_or(0);
        let end = start + text[start..].find('\n').unwrap_or(0);
        text.replace_range(start..end, "memory_sentence: \"Worked on task.\"");
        *text = text.replace(
            "memory_sentence_quality: \"fallback\"",
            "memory_sentence_quality: \"ok\"",
        );
    }
}

fn session(spec: &Spec, now: DateTime<Utc>) -> NewSession {
    let ended = now - Duration::hours(spec.hours_ago) - Duration::minutes(spec.minutes);
    let started = ended - Duration::minutes(47);
    let content = |body: &str| Content {
        body: body.to_string(),
        sentence: Some(spec.sentence.to_string()),
        captured_at: ended,
    };
    NewSession {
        agent_id: spec.agent.into(),
        session_id: spec.id.into(),
        session_key: spec.key.map(String::from),
        project: spec.project.map(String::from),
        harness: spec.harness.into(),
        started_at: Some(started),
        ended_at: Some(ended),
        captured_at: ended,
        summary: Some(content(spec.summary)),
        transcript: Some(content(spec.transcript)),
        compaction: None,
        private: false,
        sentence_version: "memory_sentence_v1".into(),
        sanitizer_version: "sanitize_transcript_v1".into(),
    }
}

/// A long session that was compacted mid-way, and a private one.
fn compaction(now: DateTime<Utc>, config: &Config) -> Vec<(String, String)> {
    let ended = now - Duration::hours(8);
    let mut s = session(
        &Spec {
            agent: "default",
            id: "e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a807",
            key: None,
            project: Some("/home/ada/code/memsync"),
            harness: "claude-code",
            hours_ago: 8,
            minutes: 0,
            sentence: "Wired the memsync daily-log renderer to OpenClaw's memory/YYYY-MM-DD.md layout and kept appended agent notes byte for byte.",
            summary: "## Summary\n\nDaily logs now carry a managed block; text an agent appends stays.",
            transcript: "user: OpenClaw appends to memory/2026-11-20.md, don't clobber it\nassistant: the renderer only replaces its own block",
        },
        now,
    );
    s.compaction = Some(Content {
        body: "## Compaction\n\nContext so far: daily-log block markers settled; next, time zones with DST.".into(),
        sentence: Some("Compacted the memsync daily-log work: block markers settled in project.rs, DST time-zone handling is next.".into()),
        captured_at: ended - Duration::minutes(20),
    });
    let mut private = session(
        &Spec {
            agent: "default",
            id: "p-0001-private",
            key: None,
            project: Some("/home/ada/personal/taxes"),
            harness: "claude-code",
            hours_ago: 12,
            minutes: 0,
            sentence: "Sorted receipts for the taxes folder into tax-2026/ by month and flagged three missing invoices for follow-up.",
            summary: "## Summary\n\nPrivate session: never projected.",
            transcript: "user: sort these receipts",
        },
        now,
    );
    private.private = true;
    let mut files = s.files(config);
    files.extend(private.files(config));
    files
}

/// A session that was forgotten: only its tombstone remains.
fn forgotten(now: DateTime<Utc>, config: &Config) -> (String, String) {
    let s = session(
        &Spec {
            agent: "default",
            id: "f0f0f0f0-dead-4bee-8f00-000000000008",
            key: None,
            project: Some("/home/ada/code/signetai"),
            harness: "claude-code",
            hours_ago: 40,
            minutes: 0,
            sentence: "",
            summary: "",
            transcript: "",
        },
        now,
    );
    let token = s.token(config.token.write_rule);
    let removed: Vec<String> = s.files(config).into_iter().map(|(p, _)| p).collect();
    compose::tombstone(
        "default",
        &token,
        now - Duration::hours(39),
        "pasted an API key into the session",
        &removed,
    )
}

fn curated_and_invalid(now: DateTime<Utc>, config: &Config) -> Vec<(String, String)> {
    let today = (now - Duration::hours(3)).date_naive();
    let mut files = vec![
        (
            "MEMORY.md".to_string(),
            "# Memory\n\nCurated by Ada. memsync keeps everything outside its block as written.\n\n\
             - Prefer small commits with messages that say why.\n\
             - The signetai daemon is TypeScript; memsync is Rust.\n"
                .to_string(),
        ),
        (
            format!("memory/{today}.md"),
            format!("# {today}\n\n- 07:50 agent note: started the day by re-reading the DP-19 thread.\n"),
        ),
        (
            "memory/notes/dedup.md".to_string(),
            "# Dedup notes\n\nScope-aware dedup keys on (agent, scope, hash).\n".to_string(),
        ),
        (
            "memory/notes/2026-03-01-session-summary.md".to_string(),
            "An old summary saved by hand under the wrong name.\n".to_string(),
        ),
    ];
    // A summary edited by hand after it was written: its checksum no longer matches.
    let mut edited = session(&SESSIONS[1], now - Duration::days(3));
    edited.session_id = "b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d09".into();
    let mut edited_files = edited.files(config);
    if let Some((_, text)) = edited_files
        .iter_mut()
        .find(|(p, _)| p.ends_with("--summary.md"))
    {
        text.push_str("\nEdited later in Obsidian.\n");
    }
    files.extend(edited_files);
    // A transcript whose frontmatter was cut off mid-write.
    let broken = session(&SESSIONS[2], now - Duration::days(5));
    let token = broken.token(config.token.write_rule);
    let ts = now - Duration::days(5) - Duration::hours(60);
    files.push((
        format!(
            "memory/{}",
            crate::contract::canonical_file_name(
                ts,
                &token,
                crate::contract::ArtifactKind::Transcript
            )
        ),
        "---\nkind: \"transcript\"\nagent_id: \"default\"\nsession_id: [unclosed\n".to_string(),
    ));
    files
}
