//! The man pages: clap_mangen's sections for each command, plus what a man
//! page has and `--help` does not: EXAMPLES (from each command's examples),
//! and on memsync(1) EXIT STATUS, ENVIRONMENT and FILES.
//!
//! Owns: the roff text. Must not: describe a flag a second time (clap's
//! definitions are the one source).

use std::io::Write;
use std::path::Path;

use clap::Command;
use clap_mangen::Man;

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The command ran and found something wrong: an artifact with an error (check, sync), a session harvest could not read, a harness that is not working (doctor), a service that is not running (service status).",
    ),
    (
        "2",
        "Usage: an unknown flag, a value that does not parse, a missing workspace or config file.",
    ),
    (
        "3",
        "Runtime: a file or the index could not be read or written (the message names it).",
    ),
    (
        "141",
        "The reader of stdout went away (memsync ... | head).",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "MEMSYNC_WORKSPACE",
        "The workspace root when --workspace is not given; without it, the workspace the current folder is in (or above it) is used.",
    ),
    (
        "SIGNET_WORKSPACE, SIGNET_PATH",
        "Read after MEMSYNC_WORKSPACE, so a Signet workspace is found too.",
    ),
    (
        "MEMSYNC_CONFIG",
        "The machine config file when --config is not given.",
    ),
    (
        "XDG_CONFIG_HOME",
        "Where the machine config is looked for: $XDG_CONFIG_HOME/memsync/config.yaml (else ~/.config).",
    ),
    (
        "XDG_STATE_HOME",
        "Where connect keeps its record: $XDG_STATE_HOME/memsync/connect.json (else ~/.local/state).",
    ),
    (
        "NO_COLOR",
        "Set: search prints no bold (--color always overrides).",
    ),
    (
        "RUST_LOG",
        "Log filter (e.g. memsync=debug); overrides -v and -q.",
    ),
    (
        "COMPLETE",
        "Set by the completion scripts: memsync prints completions instead of running.",
    ),
];

const HARNESS_VARIABLES: &str = "The harnesses' own folders, when they are not where each keeps them (the machine config's harvest keys win over them).";

/// The variables harnesses name their folders with, from the registry.
fn harness_variables() -> String {
    let names: Vec<&str> = crate::harness::Harness::ALL
        .into_iter()
        .filter_map(|h| h.home_variable())
        .collect();
    names.join(", ")
}

const FILES: &[(&str, &str)] = &[
    (
        "WORKSPACE/memory/*.md",
        "The canonical artifacts: summaries, transcripts, compactions, manifests (yours; memsync writes them only in capture, harvest and forget).",
    ),
    (
        "WORKSPACE/MEMORY.md, WORKSPACE/memory/YYYY-MM-DD.md",
        "Rendered: memsync owns only the block between its markers.",
    ),
    (
        "WORKSPACE/memsync.yaml",
        "The workspace config: overlays the machine config key by key, so its values win (not for sentence.command, summary.command, index.path, harvest or mirrors, which only the machine config sets).",
    ),
    (
        "WORKSPACE/.memsync/index.db",
        "The SQLite index, derived: delete it and memsync reindex rebuilds it.",
    ),
    (
        "WORKSPACE/.memsync/jobs.db",
        "Queued hook captures and harvest watermarks.",
    ),
    (
        "~/.config/memsync/config.yaml",
        "The machine config: this machine's settings, read first; WORKSPACE/memsync.yaml overlays it key by key.",
    ),
    (
        "~/.local/state/memsync/connect.json",
        "What connect changed in each harness's files, so disconnect can undo exactly that.",
    ),
];

fn section(out: &mut Vec<u8>, title: &str, items: &[(&str, &str)]) {
    let _ = writeln!(out, ".SH \"{title}\"");
    for (term, what) in items {
        let _ = writeln!(out, ".TP\n\\fB{}\\fR\n{}", escape(term), escape(what));
    }
}

/// Roff-safe text: a backslash doubled, a leading dot or quote kept literal.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\e");
    match text.starts_with(['.', '\'']) {
        true => format!("\\&{text}"),
        false => text,
    }
}

/// The command's examples (its after-help), one per line, as written.
fn examples(cmd: &Command, out: &mut Vec<u8>) {
    let Some(help) = cmd.get_after_help().map(|h| h.to_string()) else {
        return;
    };
    let lines: Vec<&str> = help
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_end().ends_with(':'))
        .collect();
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, ".SH EXAMPLES\n.nf");
    for line in lines {
        let _ = writeln!(out, "{}", escape(line.trim_start()));
    }
    let _ = writeln!(out, ".fi");
}

/// One page: clap_mangen's sections, then ours, then the version.
pub fn page(cmd: Command, top: bool) -> std::io::Result<Vec<u8>> {
    let man = Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    examples(&cmd, &mut out);
    if top {
        section(&mut out, "EXIT STATUS", EXIT_STATUS);
        let variables = harness_variables();
        let mut environment = ENVIRONMENT.to_vec();
        environment.insert(5, (&variables, HARNESS_VARIABLES));
        section(&mut out, "ENVIRONMENT", &environment);
        section(&mut out, "FILES", FILES);
        let _ = writeln!(
            out,
            ".SH \"SEE ALSO\"\nThe README and docs/ of the memsync source."
        );
    } else {
        let _ = writeln!(
            out,
            ".SH \"SEE ALSO\"\nmemsync(1) for EXIT STATUS, ENVIRONMENT and FILES."
        );
    }
    if cmd.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    Ok(out)
}

fn built(cmd: Command) -> Command {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// memsync(1) alone.
pub fn top_page(cmd: Command) -> std::io::Result<Vec<u8>> {
    page(built(cmd), true)
}

/// memsync.1 and one page per visible command (memsync-search.1, …) into `dir`.
pub fn write_pages(cmd: Command, dir: &Path) -> std::io::Result<()> {
    fn each(cmd: Command, dir: &Path, top: bool) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            each(sub, dir, false)?;
        }
        let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_string();
        let text = page(cmd, top)?;
        crate::files::write_atomic(&dir.join(format!("{name}.1")), &text)
    }
    each(built(cmd), dir, true)
}

/// What to add so `man memsync` finds pages written to `dir`, when it would
/// not: man looks in `X/share/man` (or `X/man`) for each `X/bin` on PATH,
/// and in MANPATH, so `~/.local/share/man` is searched only while
/// `~/.local/bin` is on PATH.
pub(super) fn manpath_hint(dir: &std::path::Path) -> Option<String> {
    let dir = std::path::absolute(dir).ok()?;
    let man_root = match dir.file_name()?.to_str()? {
        section if section.starts_with("man") && section.len() > 3 => dir.parent()?.to_path_buf(),
        _ => dir.clone(),
    };
    let listed = |var: &str, want: &std::path::Path| {
        std::env::var_os(var).is_some_and(|v| std::env::split_paths(&v).any(|p| p == want))
    };
    if listed("MANPATH", &man_root) {
        return None;
    }
    let prefix = match man_root.parent()? {
        share if share.file_name().is_some_and(|n| n == "share") => share.parent()?,
        other => other,
    };
    if listed("PATH", &prefix.join("bin")) {
        return None;
    }
    Some(format!(
        "`man memsync` does not look there yet ({} is not on PATH); add to your shell profile:\n  export MANPATH=\"{}:$MANPATH\"\n",
        prefix.join("bin").display(),
        man_root.display()
    ))
}
