//! The counts the hardening tests run with, shared with the report test so
//! that `docs/HARDENING.md` states what the suite really does.

use std::path::Path;

use super::{Workspace, good, path_of, session, ts};

/// Generated cases per property in `tests/properties.rs`.
pub const PROPERTY_CASES: u32 = 256;

/// `default`, unless `PROPTEST_CASES` asks for a longer (or shorter) run.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Generated workspaces for the rendering property (each a real sync).
pub const RENDER_CASES: u32 = 48;

/// How the index is destroyed under a running daemon.
pub const INDEX_FAULTS: &[&str] = &["deleted", "truncated", "corrupted"];

/// `kill -9` at a random moment of a one-shot `sync`.
pub const KILL_SYNC_RUNS: usize = 50;

/// `kill -9` at a random moment of a `capture session-end`.
pub const KILL_CAPTURE_RUNS: usize = 50;

/// `kill -9` at a random moment of one of the daemon, a capture, a sync and a
/// rebuild (`reindex`), in turn.
pub const KILL_MIXED_RUNS: usize = 60;

/// Rounds of `sync` and two `capture`s started together beside a running daemon.
pub const CONCURRENT_ROUNDS: usize = 5;

/// What memsync must do with a hostile input.
pub enum Outcome {
    /// A problem with this rule, on the planted file.
    Reported(&'static str),
    /// Read and indexed like any good file.
    Accepted,
    /// Indexed, and rendered as one inert line: no heading, link or block marker.
    Inert,
}

impl Outcome {
    pub fn describe(&self) -> String {
        match self {
            Outcome::Reported(rule) => format!("reported as `{rule}` on the file"),
            Outcome::Accepted => "accepted and indexed".into(),
            Outcome::Inert => "rendered as one inert ledger line".into(),
        }
    }
}

/// One hostile input: `plant` writes it into a workspace and returns its path.
pub struct HostileInput {
    pub input: &'static str,
    pub outcome: Outcome,
    pub plant: fn(&Workspace) -> String,
}

fn summary(ws: &Workspace, id: &str) -> String {
    path_of(&good(ws, id), "summary")
}

/// Replaces the first line starting with `key:` in a file's frontmatter.
fn set_key(ws: &Workspace, rel: &str, key: &str, line: &str) {
    let text = ws.read(rel);
    let prefix = format!("{key}:");
    let start = text.find(&format!("\n{prefix}")).expect("key present") + 1;
    let end = start + text[start..].find('\n').expect("line end");
    ws.write(rel, &format!("{}{line}{}", &text[..start], &text[end..]));
}

fn with_body(ws: &Workspace, id: &str, body: &str) -> String {
    let mut s = session("default", id, ts("2026-11-19T10:00:00Z"));
    s.summary.as_mut().expect("summary").body = body.to_string();
    path_of(&ws.add(&s), "summary")
}

fn with_sentence(ws: &Workspace, id: &str, sentence: &str) -> String {
    let mut s = session("default", id, ts("2026-11-19T10:00:00Z"));
    for c in [&mut s.summary, &mut s.transcript].into_iter().flatten() {
        c.sentence = Some(sentence.to_string());
    }
    path_of(&ws.add(&s), "summary")
}

fn symlink(ws: &Workspace, target: &Path, rel: &str) -> String {
    std::fs::create_dir_all(ws.path("memory")).expect("mkdir");
    std::os::unix::fs::symlink(target, ws.path(rel)).expect("symlink");
    rel.to_string()
}

fn alias_bomb() -> String {
    let mut bomb = String::from(
        "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let mut prev = 'a';
    for name in "bcdefghij".chars() {
        bomb.push_str(&format!(
            "{name}: &{name} [{}]\n",
            vec![format!("*{prev}"); 9].join(",")
        ));
        prev = name;
    }
    bomb + "---\nbody\n"
}

/// Every hostile input the suite plants; `docs/HARDENING.md` lists them.
pub const HOSTILE_INPUTS: &[HostileInput] = &[
    HostileInput {
        input: "malformed YAML (an unclosed flow list)",
        outcome: Outcome::Reported("frontmatter.yaml"),
        plant: |ws| {
            let s = summary(ws, "h-yaml");
            set_key(ws, &s, "kind", "kind: [unclosed");
            s
        },
    },
    HostileInput {
        input: "truncated file: frontmatter never closed",
        outcome: Outcome::Reported("frontmatter.unterminated"),
        plant: |ws| {
            let s = summary(ws, "h-trunc");
            let text = ws.read(&s);
            ws.write(&s, &text[..text.len() / 3]);
            s
        },
    },
    HostileInput {
        input: "YAML alias bomb (9^10 expansions)",
        outcome: Outcome::Reported("frontmatter.yaml"),
        plant: |ws| {
            let s = summary(ws, "h-bomb");
            ws.write(&s, &alias_bomb());
            s
        },
    },
    HostileInput {
        input: "YAML nested 20,000 deep",
        outcome: Outcome::Reported("frontmatter.yaml"),
        plant: |ws| {
            let s = summary(ws, "h-deep");
            ws.write(
                &s,
                &format!(
                    "---\nk: {}{}\n---\nbody\n",
                    "[".repeat(20_000),
                    "]".repeat(20_000)
                ),
            );
            s
        },
    },
    HostileInput {
        input: "frontmatter over 64 KiB",
        outcome: Outcome::Reported("frontmatter.too-large"),
        plant: |ws| {
            let s = summary(ws, "h-bigfm");
            let text = ws.read(&s);
            ws.write(
                &s,
                &text.replacen(
                    "---\n",
                    &format!("---\npad: \"{}\"\n", "x".repeat(70_000)),
                    1,
                ),
            );
            s
        },
    },
    HostileInput {
        input: "artifact over 16 MiB",
        outcome: Outcome::Reported("file.too-large"),
        plant: |ws| {
            let mut s = session("default", "h-huge", ts("2026-11-19T10:00:00Z"));
            s.transcript.as_mut().expect("transcript").body = "x".repeat(17 << 20);
            path_of(&ws.add(&s), "transcript")
        },
    },
    HostileInput {
        input: "NUL bytes",
        outcome: Outcome::Reported("encoding.nul"),
        plant: |ws| {
            let s = summary(ws, "h-nul");
            let text = ws.read(&s);
            ws.write(&s, &format!("{text}\0\0"));
            s
        },
    },
    HostileInput {
        input: "invalid UTF-8",
        outcome: Outcome::Reported("encoding.utf8"),
        plant: |ws| {
            let s = summary(ws, "h-utf8");
            let mut bytes = ws.read(&s).into_bytes();
            bytes.extend_from_slice(b"\xff\xfe");
            std::fs::write(ws.path(&s), bytes).expect("write");
            super::age(&ws.path(&s));
            s
        },
    },
    HostileInput {
        input: "UTF-8 byte-order mark",
        outcome: Outcome::Accepted,
        plant: |ws| {
            let s = summary(ws, "h-bom");
            let text = ws.read(&s);
            ws.write(&s, &format!("\u{feff}{text}"));
            s
        },
    },
    HostileInput {
        input: "CRLF line endings",
        outcome: Outcome::Accepted,
        plant: |ws| {
            let s = summary(ws, "h-crlf");
            let text = ws.read(&s);
            ws.write(&s, &text.replace('\n', "\r\n"));
            s
        },
    },
    HostileInput {
        input: "git merge-conflict markers",
        outcome: Outcome::Reported("frontmatter.yaml"),
        plant: |ws| {
            let s = summary(ws, "h-conflict");
            set_key(
                ws,
                &s,
                "kind",
                "<<<<<<< HEAD\nkind: \"summary\"\n=======\nkind: \"transcript\"\n>>>>>>> theirs",
            );
            s
        },
    },
    HostileInput {
        input: "duplicate keys",
        outcome: Outcome::Reported("frontmatter.yaml"),
        plant: |ws| {
            let s = summary(ws, "h-dup");
            set_key(ws, &s, "kind", "kind: \"summary\"\nkind: \"summary\"");
            s
        },
    },
    HostileInput {
        input: "a number where a string belongs",
        outcome: Outcome::Reported("key.type"),
        plant: |ws| {
            let s = summary(ws, "h-num");
            set_key(ws, &s, "harness", "harness: 42");
            s
        },
    },
    HostileInput {
        input: "a list where a scalar belongs",
        outcome: Outcome::Reported("key.type"),
        plant: |ws| {
            let s = summary(ws, "h-list");
            set_key(ws, &s, "project", "project:\n  - \"a\"");
            s
        },
    },
    HostileInput {
        input: "a timestamp without a zone",
        outcome: Outcome::Reported("key.timestamp"),
        plant: |ws| {
            let s = summary(ws, "h-zone");
            set_key(ws, &s, "ended_at", "ended_at: \"2026-11-19T10:00:00\"");
            s
        },
    },
    HostileInput {
        input: "a timestamp out of range",
        outcome: Outcome::Reported("key.timestamp"),
        plant: |ws| {
            let s = summary(ws, "h-range");
            set_key(ws, &s, "ended_at", "ended_at: \"2026-13-45T99:00:00Z\"");
            s
        },
    },
    HostileInput {
        input: "a non-UTF-8 file name",
        outcome: Outcome::Reported("path.encoding"),
        plant: |ws| {
            use std::os::unix::ffi::OsStrExt;
            std::fs::create_dir_all(ws.path("memory")).expect("mkdir");
            std::fs::write(
                ws.root()
                    .join(std::ffi::OsStr::from_bytes(b"memory/bad-\xff-name.md")),
                "x",
            )
            .expect("write");
            "memory/bad-\u{fffd}-name.md".into()
        },
    },
    HostileInput {
        input: "a 4 MiB line",
        outcome: Outcome::Accepted,
        plant: |ws| with_body(ws, "h-longline", &"word ".repeat(800_000)),
    },
    HostileInput {
        input: "a symlink to a file outside the workspace",
        outcome: Outcome::Reported("path.symlink"),
        plant: |ws| {
            symlink(
                ws,
                Path::new("/etc/passwd"),
                "memory/2026-11-20T10-00-00.000Z--aaaaaaaaaaaaaaaa--summary.md",
            )
        },
    },
    HostileInput {
        input: "a symlink to a directory",
        outcome: Outcome::Reported("path.symlink"),
        plant: |ws| symlink(ws, Path::new("/etc"), "memory/etc"),
    },
    HostileInput {
        input: "a symlink loop",
        outcome: Outcome::Reported("path.symlink"),
        plant: |ws| symlink(ws, Path::new("loop"), "memory/loop"),
    },
    HostileInput {
        input: "a wikilink with `..`",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| with_body(ws, "h-dotdot", "See [[../../etc/passwd]].\n"),
    },
    HostileInput {
        input: "a wikilink to an absolute path",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| with_body(ws, "h-abs", "See [[/etc/passwd]].\n"),
    },
    HostileInput {
        input: "a wikilink with a URL scheme",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| {
            with_body(
                ws,
                "h-url",
                "See [[https://evil.example/x]] and [[file:secret]].\n",
            )
        },
    },
    HostileInput {
        input: "a manifest path with `..`",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| {
            let s = summary(ws, "h-mdotdot");
            set_key(
                ws,
                &s,
                "manifest_path",
                "manifest_path: \"memory/../../outside.md\"",
            );
            s
        },
    },
    HostileInput {
        input: "an absolute manifest path",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| {
            let s = summary(ws, "h-mabs");
            set_key(ws, &s, "manifest_path", "manifest_path: \"/etc/passwd\"");
            s
        },
    },
    HostileInput {
        input: "a manifest path with a URL scheme",
        outcome: Outcome::Reported("link.invalid"),
        plant: |ws| {
            let s = summary(ws, "h-murl");
            set_key(
                ws,
                &s,
                "manifest_path",
                "manifest_path: \"https://evil.example/m.md\"",
            );
            s
        },
    },
    HostileInput {
        input: "an agent id that escapes `agents/<id>/`",
        outcome: Outcome::Reported("key.value"),
        plant: |ws| {
            let s = summary(ws, "h-agent");
            set_key(ws, &s, "agent_id", "agent_id: \"../../etc\"");
            s
        },
    },
    HostileInput {
        input: "a sentence with newlines and a heading",
        outcome: Outcome::Inert,
        plant: |ws| {
            with_sentence(
                ws,
                "h-heading",
                "Fixed the retry loop in src/pay.rs\n## Injected heading\n# another\n- fake row | session=x",
            )
        },
    },
    HostileInput {
        input: "a sentence imitating memsync's block markers",
        outcome: Outcome::Inert,
        plant: |ws| {
            with_sentence(
                ws,
                "h-marker",
                "Fixed src/pay.rs <!-- memsync:end --> then <!-- memsync:begin memory-md agent=default --> again",
            )
        },
    },
    HostileInput {
        input: "a sentence with wikilinks",
        outcome: Outcome::Inert,
        plant: |ws| {
            with_sentence(
                ws,
                "h-links",
                "Fixed src/pay.rs, see [[memory/secret]] and [[../../etc/passwd|x]] for details",
            )
        },
    },
];

/// The `cargo fuzz` targets under `fuzz/fuzz_targets/`; CI runs each for
/// `FUZZ_SECONDS`, and `tests/fuzz_corpus.rs` replays their kept inputs.
pub const FUZZ_TARGETS: &[&str] = &[
    "frontmatter",
    "normalize",
    "wikilinks",
    "sanitizer",
    "sentence",
];

/// How long CI runs each fuzz target.
pub const FUZZ_SECONDS: u64 = 20;

/// The lines of a projection's managed block.
fn block_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with(memsync::project::BLOCK_BEGIN))
        .collect()
}

/// The headings memsync renders in MEMORY.md and daily logs.
const HEADINGS: &[&str] = &[
    "## Active Projects",
    "## Recent Compactions",
    memsync::project::LEDGER_HEADING,
    "## Sessions",
];

/// A rendered block holds only memsync's own structure: its two markers,
/// its headings, `- ` rows and blank lines.
pub fn assert_structural(rel: &str, text: &str) {
    let markers = text.matches("<!-- memsync:").count();
    assert_eq!(markers, 2, "{rel}: {markers} block markers:\n{text}");
    for line in block_lines(text) {
        let ok = line.is_empty()
            || line.starts_with("- ")
            || line.starts_with(memsync::project::BLOCK_BEGIN)
            || line == memsync::project::BLOCK_END
            || HEADINGS.contains(&line)
            || line
                .strip_prefix("### ")
                .is_some_and(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok());
        assert!(
            ok,
            "{rel}: a line memsync did not structure: {line:?}\n{text}"
        );
    }
}

/// One injected fault: what, how many runs, what must hold, and the test
/// (file and function) that proves it.
pub struct Fault {
    pub fault: &'static str,
    pub runs: usize,
    pub outcome: &'static str,
    pub test: (&'static str, &'static str),
}

/// Every fault the suite injects; `docs/HARDENING.md` lists them.
pub const FAULTS: &[Fault] = &[
    Fault {
        fault: "index deleted, truncated to 0 bytes, or overwritten with garbage under a running daemon",
        runs: INDEX_FAULTS.len(),
        outcome: "daemon logs it, rebuilds from markdown and keeps running; files and rows equal a fresh sync",
        test: (
            "tests/hardening.rs",
            "the_index_destroyed_under_the_daemon_is_rebuilt_from_markdown_and_logged",
        ),
    },
    Fault {
        fault: "state directory made unwritable (`chattr +i`) under a running daemon",
        runs: 1,
        outcome: "projections still follow the files; the state-file failure is logged",
        test: (
            "tests/hardening.rs",
            "an_unwritable_state_directory_is_reported_and_the_daemon_carries_on",
        ),
    },
    Fault {
        fault: "state directory unwritable before the first sync",
        runs: 1,
        outcome: "exit 3 naming `.memsync`; no file in the workspace touched",
        test: (
            "tests/hardening.rs",
            "a_cold_sync_with_an_unwritable_state_directory_fails_naming_it_and_writes_nothing",
        ),
    },
    Fault {
        fault: "MEMORY.md made immutable (`chattr +i`)",
        runs: 1,
        outcome: "`projection.write` reported, old bytes kept, daily logs still written; retried once writable",
        test: (
            "tests/projection.rs",
            "a_projection_that_cannot_be_written_keeps_its_old_bytes_and_is_reported",
        ),
    },
    Fault {
        fault: "an artifact made unreadable (mode 000, memsync running as an unprivileged user)",
        runs: 1,
        outcome: "`read.io` (permission denied) on the file; its last good rows kept, marked stale; clears when readable",
        test: (
            "tests/hardening.rs",
            "an_unreadable_file_is_reported_and_its_last_good_rows_are_kept",
        ),
    },
    Fault {
        fault: "disk full (a 1 MiB tmpfs) while writing projections",
        runs: 1,
        outcome: "old MEMORY.md intact, no temporary file left, exit 3; the next sync writes it",
        test: (
            "tests/hardening.rs",
            "a_full_disk_while_writing_a_projection_keeps_the_old_file_and_retries",
        ),
    },
    Fault {
        fault: "`kill -9` at a random moment of `sync` (every fifth run from a cold index)",
        runs: KILL_SYNC_RUNS,
        outcome: "every run: the next `sync` gives exactly the clean result (files and index rows), no temporary file left",
        test: (
            "tests/hardening.rs",
            "kill_9_at_random_moments_of_sync_always_leaves_a_recoverable_state",
        ),
    },
    Fault {
        fault: "`kill -9` at a random moment of `capture session-end`",
        runs: KILL_CAPTURE_RUNS,
        outcome: "every run: the next `sync` gives the clean result; the retried capture ends byte-identical to an uninterrupted one",
        test: (
            "tests/hardening.rs",
            "kill_9_at_random_moments_of_capture_always_leaves_a_recoverable_state",
        ),
    },
    Fault {
        fault: "`kill -9` at a random moment of the daemon, a capture, a sync and a `reindex`, in turn",
        runs: KILL_MIXED_RUNS,
        outcome: "after every kill `status`, `search` and `check` answer; the daemon logs no constraint error; the rows end equal to a clean build",
        test: (
            "tests/hardening.rs",
            "kill_9_across_daemon_capture_sync_and_rebuild_leaves_every_command_working",
        ),
    },
    Fault {
        fault: "`sync`, two `capture`s and a running `watch` at once",
        runs: CONCURRENT_ROUNDS,
        outcome: "every capture lands in MEMORY.md; files and rows equal a fresh sync",
        test: (
            "tests/hardening.rs",
            "sync_watch_and_two_captures_at_once_converge_to_the_clean_result",
        ),
    },
    Fault {
        fault: "`memory/` swapped for a symlink to a directory outside the workspace",
        runs: 1,
        outcome: "reported; `sync`, `capture` and `forget` neither read, write nor delete through it (exit 3 naming the link)",
        test: (
            "tests/hardening.rs",
            "no_command_reads_writes_or_deletes_through_a_symlinked_directory",
        ),
    },
    Fault {
        fault: "temporary files left by a killed writer, beside an rsync-style temp file",
        runs: 1,
        outcome: "only memsync's own, whose writer is dead, are removed",
        test: (
            "tests/hardening.rs",
            "sync_removes_only_the_temporary_files_of_memsync_writes_that_died",
        ),
    },
    Fault {
        fault: "a writer holding today's log open for the whole run (one descriptor, 100,000 lines) while the daemon rewrites it",
        runs: 1,
        outcome: "0 lines lost, doubled or torn: the daemon follows the replaced file until the writer closes it; a one-shot `sync` leaves the held file alone and says so",
        test: (
            "tests/held_writers.rs",
            "a_writer_holding_the_daily_log_open_loses_no_line_while_the_daemon_renders_it",
        ),
    },
    Fault {
        fault: "40 page-crossing writes stalled half visible (userfaultfd) among 100,000 appended lines, renders running throughout",
        runs: 1,
        outcome: "0 lines lost, doubled or torn: a render takes a held file only up to its last complete line",
        test: (
            "tests/held_writers.rs",
            "a_write_held_half_visible_across_a_page_is_never_cut_by_renders_around_it",
        ),
    },
    Fault {
        fault: "100 pulls (merge and rebase) beside the daemon, one-shot captures, hook jobs and an agent appending to today's log between pulls",
        runs: 1,
        outcome: "0 failed pulls, 0 lines missing, 0 stash entries, no `MERGE_AUTOSTASH` left",
        test: (
            "tests/git_pulls.rs",
            "a_hundred_pulls_beside_the_daemon_captures_and_hook_jobs_all_succeed_and_keep_every_line",
        ),
    },
    Fault {
        fault: "100 pulls with the agent appending every 15 ms, pulls included",
        runs: 1,
        outcome: "0 stash entries left (memsync merges autostash entries back); pulls fail only where git refuses a file the agent changed under it; at most 2 % of lines missing (0–14 of ~1,000 measured, most runs under 5: git's own instant between checking a file and replacing it)",
        test: (
            "tests/git_pulls.rs",
            "an_agent_writing_through_a_hundred_pulls_loses_nothing_to_a_stash_and_almost_nothing_at_all",
        ),
    },
];
