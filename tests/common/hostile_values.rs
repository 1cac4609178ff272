//! Hostile values a user can type: every flag, argument and path that takes a
//! value, tried with what a typo, a script or an attacker would pass. Run by
//! `tests/robustness.rs`; listed in `docs/HARDENING.md` by `tests/report.rs`.

/// One command line and what memsync must answer.
pub struct HostileValue {
    /// What the value is, for the report.
    pub value: &'static str,
    /// The arguments after `--workspace WS --now …`; `{ws}` is the workspace.
    pub args: &'static [&'static str],
    /// The exit code: 2 for a usage or config error unless said otherwise.
    pub exit: i32,
    /// A fragment of stderr that names the value or the fix.
    pub says: &'static str,
}

const fn v(
    value: &'static str,
    args: &'static [&'static str],
    exit: i32,
    says: &'static str,
) -> HostileValue {
    HostileValue {
        value,
        args,
        exit,
        says,
    }
}

pub const HOSTILE_VALUES: &[HostileValue] = &[
    v(
        "a duration whose unit is a multi-byte character",
        &["search", "retry", "--since", "7ö"],
        2,
        "--since \"7ö\"",
    ),
    v(
        "a duration past the calendar",
        &["search", "retry", "--since", "999999999999d"],
        2,
        "reaches back before any date",
    ),
    v(
        "a negative duration",
        &["search", "retry", "--since=-3d"],
        2,
        "cannot be negative",
    ),
    v(
        "an empty duration",
        &["search", "retry", "--since="],
        2,
        "--since \"\"",
    ),
    v(
        "a date that does not exist",
        &["search", "retry", "--since", "2026-13-45"],
        2,
        "--since \"2026-13-45\"",
    ),
    v(
        "a limit of 0",
        &["search", "retry", "--limit", "0"],
        2,
        "0 is not in 1..=1000",
    ),
    v(
        "a limit past 64 bits",
        &["search", "retry", "--limit", "99999999999999999999999"],
        2,
        "--limit",
    ),
    v(
        "a negative limit",
        &["search", "retry", "--limit=-1"],
        2,
        "--limit",
    ),
    v(
        "an unknown artifact kind",
        &["search", "retry", "--kind", "notes"],
        2,
        "[possible values: summary, transcript, compaction, manifest]",
    ),
    v(
        "searching manifests, which have no text",
        &["search", "retry", "--kind", "manifest"],
        2,
        "manifests have no text",
    ),
    v(
        "a project glob that does not parse",
        &["search", "retry", "--project", "["],
        2,
        "--project \"[\"",
    ),
    v("an empty query", &["search", ""], 2, "the query is empty"),
    v(
        "an open quote (read as words)",
        &["search", "\"retry"],
        0,
        "",
    ),
    v(
        "search syntax FTS5 refuses (answered as words)",
        &["search", "retry AND"],
        0,
        "read as words",
    ),
    v(
        "a clock that is not RFC 3339",
        &["--now", "yesterday", "status"],
        2,
        "is not an RFC 3339 timestamp",
    ),
    v(
        "a clock in year 1",
        &["--now", "0001-01-01T00:00:00Z", "status"],
        2,
        "outside the years 1970 to 9999",
    ),
    v(
        "a clock without a zone",
        &["--now", "2026-11-20T12:00:00", "status"],
        2,
        "with a zone",
    ),
    v(
        "`--now` for the daemon",
        &["watch"],
        2,
        "watch runs on the real clock",
    ),
    v(
        "a negative day count for generate",
        &["generate", "{ws}/gen", "--days=-1"],
        2,
        "-1 is not in 1..=3650",
    ),
    v(
        "a billion sessions a day for generate",
        &["generate", "{ws}/gen", "--per-day", "1000000000"],
        2,
        "is not in 0..=10000",
    ),
    v(
        "an agent id that climbs out of agents/",
        &["forget", "s", "--reason", "r", "--agent", "../../etc"],
        2,
        "--agent \"../../etc\"",
    ),
    v(
        "an agent id with a space",
        &[
            "capture",
            "session-end",
            "--agent",
            "A B",
            "--session-id",
            "s",
            "--transcript",
            "{ws}/MEMORY.md",
        ],
        2,
        "--agent \"A B\"",
    ),
    v(
        "a blank forget reason",
        &["forget", "s", "--reason", " "],
        2,
        "--reason must say why",
    ),
    v("an empty session name", &["open", ""], 2, "no session \"\""),
    v(
        "a session nobody has",
        &["open", "no-such-session"],
        2,
        "no session \"no-such-session\"",
    ),
    v(
        "an empty session id",
        &[
            "capture",
            "session-end",
            "--session-id",
            " ",
            "--transcript",
            "{ws}/MEMORY.md",
        ],
        2,
        "--session-id is empty",
    ),
    v(
        "a transcript path that is a directory",
        &[
            "capture",
            "session-end",
            "--session-id",
            "s",
            "--transcript",
            "{ws}/memory",
        ],
        3,
        "a directory, not a regular file",
    ),
    v(
        "a transcript that does not exist",
        &[
            "capture",
            "session-end",
            "--session-id",
            "s",
            "--transcript",
            "{ws}/none.jsonl",
        ],
        3,
        "No such file",
    ),
    v(
        "a compaction for a session that never ended",
        &[
            "capture",
            "compaction",
            "--session-id",
            "s",
            "--body",
            "{ws}/MEMORY.md",
        ],
        2,
        "capture its session end first",
    ),
    v(
        "capture with nothing to capture",
        &["capture"],
        2,
        "capture needs session-end",
    ),
    v(
        "an unknown hook harness (hook mode never fails the harness)",
        &["capture", "--hook", "vim"],
        0,
        "unknown hook harness \"vim\"",
    ),
    v(
        "a workspace that does not exist",
        &["--workspace", "{ws}/no/such/ws", "sync"],
        2,
        "create it with `memsync init",
    ),
    v(
        "a workspace that is a file",
        &["--workspace", "{ws}/MEMORY.md", "sync"],
        2,
        "is not a directory",
    ),
    v(
        "a workspace with `..` that does not exist",
        &["--workspace", "{ws}/../no-such-ws-3f9c", "status"],
        2,
        "does not exist",
    ),
    v(
        "a config file that does not exist",
        &["--config", "{ws}/none.yaml", "status"],
        2,
        "none.yaml",
    ),
    v(
        "a config path that is a directory",
        &["--config", "{ws}/memory", "status"],
        2,
        "config",
    ),
    v(
        "an unknown harness for harvest",
        &["harvest", "--harness", "vim"],
        2,
        "[possible values: claude-code, codex, openclaw, pi, gemini-cli, qwen-code, copilot-cli, opencode, cline]",
    ),
    v(
        "an unknown harness for a capture",
        &[
            "capture",
            "session-end",
            "--harness",
            "bogus",
            "--transcript",
            "-",
        ],
        2,
        "[possible values: claude-code, codex, openclaw, pi, gemini-cli, qwen-code, copilot-cli, opencode, cline, aider, manual]",
    ),
    v(
        "a harvest look-back that does not parse",
        &["harvest", "--since", "forever"],
        2,
        "--since \"forever\"",
    ),
    v(
        "a harness connect does not know",
        &["connect", "aider"],
        2,
        "[possible values: claude-code, codex, openclaw, gemini-cli, qwen-code, opencode, copilot-cli, cline, pi]",
    ),
    v(
        "a harness name with a path in it, for disconnect",
        &["disconnect", "../../etc/passwd"],
        2,
        "[possible values: claude-code, codex, openclaw, gemini-cli, qwen-code, opencode, copilot-cli, cline, pi]",
    ),
    v(
        "a demo into a workspace that is not empty",
        &["demo", "{ws}"],
        2,
        "is not empty",
    ),
];
