//! A deterministic workspace generator for benchmarks and scale tests:
//! `per_day` sessions a day for `days` days before `now`, plus `older` sessions
//! outside the window. Text is pseudo-random but fixed by the seed.
//!
//! Owns: synthetic content. Must not: be used for anything but generated workspaces.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};

use crate::compose::{self, Content, NewSession};
use crate::config::Config;
use crate::error::Result;

mod collisions;
mod speakers;
mod stories;

pub use stories::Question;

#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub days: i64,
    pub per_day: i64,
    pub older: i64,
    /// One session in this many belongs to the second agent (`ops`); 0 for none.
    pub second_agent_every: i64,
    /// Approximate transcript size in bytes.
    pub transcript_bytes: usize,
}

impl Default for Shape {
    /// The benchmark shape: ~1,750 sessions, ~5,600 files, ~13 MB.
    fn default() -> Self {
        Shape {
            days: 30,
            per_day: 50,
            older: 250,
            second_agent_every: 10,
            transcript_bytes: 5_600,
        }
    }
}

/// What was generated.
#[derive(Debug, Clone, Copy, Default)]
pub struct Generated {
    pub sessions: usize,
    pub files: usize,
    pub bytes: usize,
}

/// xorshift64*: enough randomness for filler text, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

const PROJECTS: &[&str] = &[
    "/home/dev/code/signetai",
    "/home/dev/code/memsync",
    "/home/dev/code/openclaw",
    "/home/dev/code/webshop",
    "/home/dev/code/infra",
];
const WORDS: &[&str] = &[
    "the",
    "index",
    "writer",
    "refactor",
    "test",
    "daemon",
    "config",
    "parser",
    "cache",
    "query",
    "token",
    "migration",
    "schema",
    "handler",
    "render",
    "budget",
    "ledger",
    "session",
    "watch",
    "event",
    "retry",
    "backoff",
    "lease",
    "merge",
    "branch",
    "commit",
    "review",
    "deploy",
    "metric",
    "latency",
    "error",
    "fix",
    "and",
    "with",
    "for",
    "then",
    "so",
    "because",
    "after",
    "before",
    "while",
    "of",
    "in",
    "to",
];
const FILES: &[&str] = &[
    "src/lib.rs",
    "src/index.rs",
    "packages/daemon/src/write-gate.ts",
    "Cargo.toml",
    "README.md",
    "src/project.rs",
    "web/app.tsx",
    "deploy/main.tf",
];

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| rng.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn transcript(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 200);
    while out.len() < bytes {
        let who = if rng.next().is_multiple_of(2) {
            "user"
        } else {
            "assistant"
        };
        let n = 8 + (rng.next() % 20) as usize;
        out.push_str(&format!(
            "{who}: {} in {}\n",
            words(rng, n),
            rng.pick(FILES)
        ));
    }
    out
}

/// Clauses of a Chinese- and a Japanese-speaking user, written without spaces
/// as they are, so search over the workspace meets words inside runs.
const CJK_CLAUSES: &[&str] = &[
    "user: 失败后自动重试三次然后退避，修复代码lint问题\n",
    "user: 资源调度太慢了，请检查缓存和索引的配置\n",
    "user: パッケージ管理はuvを利用し、リトライ処理を追加してください\n",
    "user: 每日资讯的盘前摘要需要修改配置文件\n",
];

/// Every tenth session's transcript gets one clause of [`CJK_CLAUSES`]
/// (chosen by its number, so the rest of the workspace stays as it was).
fn with_cjk(mut transcript: String, i: i64) -> String {
    if i % 10 == 3 {
        transcript.push_str(CJK_CLAUSES[(i / 10) as usize % CJK_CLAUSES.len()]);
    }
    transcript
}

/// Writes the workspace into `dir`.
pub fn generate(
    dir: &Path,
    now: DateTime<Utc>,
    shape: Shape,
    config: &Config,
) -> Result<Generated> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Generated::default();
    let in_window = shape.days * shape.per_day;
    for i in 0..in_window + shape.older {
        let ended = if i < in_window {
            let (day, slot) = (i / shape.per_day, i % shape.per_day);
            now - Duration::days(day) - Duration::minutes(1 + slot * (1440 / shape.per_day.max(1)))
        } else {
            let j = i - in_window;
            now - Duration::days(shape.days + 1 + j / 8) - Duration::minutes(1 + (j % 8) * 97)
        };
        let files = session(&mut rng, i, ended, shape, config);
        out.sessions += 1;
        out.files += files.len();
        out.bytes += files.iter().map(|(_, t)| t.len()).sum::<usize>();
        compose::write_files(dir, &files)?;
    }
    Ok(out)
}

/// Writes the workspace into `dir` with the recall benchmark's story
/// sessions, stem-collision and speaker pairs among it, and returns the questions
/// about them.
pub fn generate_with_questions(
    dir: &Path,
    now: DateTime<Utc>,
    shape: Shape,
    config: &Config,
) -> Result<(Generated, Vec<Question>)> {
    let mut out = generate(dir, now, shape, config)?;
    let mut questions = Vec::new();
    for i in 0..stories::count() {
        let ended = stories::ended(i, now);
        let (mut files, asked) = stories::story(i, ended, config);
        out.sessions += 1;
        if stories::is_echoed(i) {
            files.extend(stories::echo(i, ended, config));
            out.sessions += 1;
        }
        out.files += files.len();
        out.bytes += files.iter().map(|(_, t)| t.len()).sum::<usize>();
        compose::write_files(dir, &files)?;
        questions.extend(asked);
    }
    // Two sessions and one question each.
    let pairs = (0..collisions::count())
        .map(|k| collisions::pair(k, collisions::ended(k, now), config))
        .chain((0..speakers::count()).map(|k| speakers::pair(k, speakers::ended(k, now), config)));
    for (files, asked) in pairs {
        out.sessions += 2;
        out.files += files.len();
        out.bytes += files.iter().map(|(_, t)| t.len()).sum::<usize>();
        compose::write_files(dir, &files)?;
        questions.push(asked);
    }
    Ok((out, questions))
}

/// [`generate_with_questions`], with the questions written to `file` as
/// JSON Lines (`memsync generate --questions FILE`).
pub fn generate_questions_to(
    dir: &Path,
    now: DateTime<Utc>,
    shape: Shape,
    config: &Config,
    file: &Path,
) -> Result<Generated> {
    let (g, asked) = generate_with_questions(dir, now, shape, config)?;
    let lines: String = asked
        .iter()
        .map(|q| serde_json::json!(q).to_string() + "\n")
        .collect();
    crate::files::write_atomic(file, lines.as_bytes()).map_err(|e| crate::Error::io(file, e))?;
    Ok(g)
}

fn session(
    rng: &mut Rng,
    i: i64,
    ended: DateTime<Utc>,
    shape: Shape,
    config: &Config,
) -> Vec<(String, String)> {
    let project = rng.pick(PROJECTS);
    let base = project.rsplit('/').next().unwrap_or(project);
    let agent = if shape.second_agent_every > 0
        && i % shape.second_agent_every == 7 % shape.second_agent_every
    {
        "ops"
    } else {
        "default"
    };
    let sentence = format!(
        "Worked through {} in {base} touching {} and left the follow-up noted for the next session run.",
        words(rng, 4),
        rng.pick(FILES)
    );
    let content = |body: String, at: DateTime<Utc>| Content {
        body,
        sentence: Some(sentence.clone()),
        captured_at: at,
    };
    let summary = format!("## Summary\n\n{}.\n\n{}.\n", words(rng, 60), words(rng, 50));
    let mut s = NewSession {
        agent_id: agent.into(),
        session_id: format!("gen-{i:06}-{:08x}", rng.next() as u32),
        session_key: None,
        project: Some(project.into()),
        harness: "claude-code".into(),
        started_at: Some(ended - Duration::minutes(30)),
        ended_at: Some(ended),
        captured_at: ended,
        summary: Some(content(summary, ended)),
        transcript: Some(content(
            with_cjk(transcript(rng, shape.transcript_bytes), i),
            ended,
        )),
        compaction: None,
        private: false,
        sentence_version: "memory_sentence_v1".into(),
        sanitizer_version: "sanitize_transcript_v1".into(),
    };
    if i % 5 == 0 {
        s.compaction = Some(content(
            format!("## Compaction\n\n{}.\n", words(rng, 80)),
            ended - Duration::minutes(10),
        ));
    }
    s.files(config)
}
