//! The summary body and the memory sentence of a capture: the configured
//! commands (an LLM, usually) with a timeout, else deterministic extraction.
//!
//! Owns: running `summary.command` and `sentence.command`, and the extractive
//! summary. Must not: write files; judge sentences (that is `sentence`).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use super::transcript::{Role, Transcript};

/// How many files and commands the extractive summary lists.
const LIST_LIMIT: usize = 10;
/// How much of the first request and the last answer it quotes.
const REQUEST_CHARS: usize = 600;
const OUTCOME_CHARS: usize = 800;

/// Why an external command gave no usable output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandFailure {
    #[error("could not start `{0}`: {1}")]
    Spawn(String, String),
    #[error("`{0}` did not finish within {1} s and was killed")]
    Timeout(String, u64),
    #[error("`{0}` exited with {1}")]
    Exit(String, String),
    #[error("`{0}` printed nothing")]
    Empty(String),
}

/// Runs `command` with `sh -c`, `stdin` on its standard input, and returns its
/// trimmed standard output. The command runs in its own process group, so a
/// timeout kills whatever it started too.
pub fn run_command(
    command: &str,
    stdin: &str,
    timeout: Duration,
) -> Result<String, CommandFailure> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| CommandFailure::Spawn(command.into(), e.to_string()))?;
    let input = stdin.to_string();
    let mut child_stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = child_stdin.as_mut() {
            // A command that ignores its input closes the pipe early: not an error.
            let _ = s.write_all(input.as_bytes());
        }
    });
    let mut child_stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = child_stdout.as_mut() {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => status,
        Ok(None) | Err(_) => {
            // SAFETY: kill(2) on the child's process group, which we created.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            return Err(CommandFailure::Timeout(command.into(), timeout.as_secs()));
        }
    };
    let _ = writer.join();
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(CommandFailure::Exit(command.into(), status.to_string()));
    }
    let text = String::from_utf8_lossy(&out).trim().to_string();
    if text.is_empty() {
        return Err(CommandFailure::Empty(command.into()));
    }
    Ok(text)
}

/// A deterministic summary: the first request, the files and commands
/// mentioned, and the last answer.
pub fn extractive(t: &Transcript) -> String {
    let (request, outcome) = match &t.plain {
        Some(text) => (first_paragraph(text), last_paragraph(text)),
        None => (
            t.first(Role::User).unwrap_or_default().to_string(),
            t.last(Role::Assistant).unwrap_or_default().to_string(),
        ),
    };
    let mut files = t.files.clone();
    let text = t.to_markdown();
    for word in text.split_whitespace() {
        let w = word
            .trim_matches(|c: char| "`'\"()[]{},;:".contains(c))
            .trim_end_matches(['.', '!', '?']);
        if looks_like_path(w) && !files.iter().any(|f| f == w) {
            files.push(w.to_string());
        }
    }
    let mut out = String::new();
    section(&mut out, "Request", &clip(&request, REQUEST_CHARS));
    section(&mut out, "Files", &bullets(&files));
    section(&mut out, "Commands", &bullets(&t.commands));
    section(&mut out, "Outcome", &clip(&outcome, OUTCOME_CHARS));
    if out.is_empty() {
        out.push_str("(empty transcript)");
    }
    out
}

fn section(out: &mut String, title: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("## ");
    out.push_str(title);
    out.push_str("\n\n");
    out.push_str(text.trim());
}

fn bullets(items: &[String]) -> String {
    items
        .iter()
        .take(LIST_LIMIT)
        .map(|i| format!("- `{}`", i.replace('`', "'").replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn looks_like_path(w: &str) -> bool {
    let Some((stem, ext)) = w.rsplit_once('.') else {
        return false;
    };
    w.contains('/')
        && !w.contains("://")
        && !stem.ends_with('/')
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
}

fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('#'))
        .collect()
}

fn first_paragraph(text: &str) -> String {
    paragraphs(text)
        .first()
        .copied()
        .unwrap_or_default()
        .to_string()
}

fn last_paragraph(text: &str) -> String {
    paragraphs(text)
        .last()
        .copied()
        .unwrap_or_default()
        .to_string()
}

/// At most `max` characters, cut at a word boundary with an ellipsis.
pub fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let cut = cut
        .rsplit_once(char::is_whitespace)
        .map_or(cut.as_str(), |(a, _)| a);
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extractive_summary_lists_request_files_commands_and_outcome() {
        let t = super::super::transcript::read(
            "{\"role\":\"user\",\"content\":\"Fix the retry in src/pay.rs please\"}\n{\"role\":\"assistant\",\"content\":\"Done: backoff added to src/pay.rs, see docs/retry.md.\"}\n",
        );
        assert_eq!(
            extractive(&t),
            "## Request\n\nFix the retry in src/pay.rs please\n\n## Files\n\n- `src/pay.rs`\n- `docs/retry.md`\n\n## Outcome\n\nDone: backoff added to src/pay.rs, see docs/retry.md."
        );
    }

    #[test]
    fn commands_time_out_fail_or_answer() {
        let t = Duration::from_secs(5);
        assert_eq!(run_command("tr a-z A-Z", "hello", t), Ok("HELLO".into()));
        assert!(matches!(
            run_command("exit 3", "", t),
            Err(CommandFailure::Exit(..))
        ));
        assert!(matches!(
            run_command("true", "", t),
            Err(CommandFailure::Empty(_))
        ));
        let started = std::time::Instant::now();
        let hung = run_command("sleep 30; echo late", "", Duration::from_millis(300));
        assert!(matches!(hung, Err(CommandFailure::Timeout(..))));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
