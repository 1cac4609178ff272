//! The second set of real sessions, `../shared/realdata2/` with its
//! `LABELS.json` (read in place, never copied here): every file a supported
//! harness wrote is captured or refused as its label says, no labelled
//! credential reaches any file memsync writes, the index included (its
//! `-wal` and `-shm` too), and the ledger sentences name the labelled
//! request and outcome at least as often as they do today (a ratchet: raise
//! it as capture improves). Skipped, with a message, when the folder is absent.

mod common;

use std::path::{Path, PathBuf};

use common::run_at;

const NOW: &str = "2026-11-26T12:00:00Z";

fn realdata2() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata2");
    if dir.join("LABELS.json").is_file() {
        return Some(dir);
    }
    eprintln!("skipped: {} is absent", dir.display());
    None
}

/// Every file under `root`, with its bytes.
fn every_file(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.into_path(), bytes)
        })
        .collect()
}

#[test]
fn every_labelled_session_is_captured_or_refused_and_no_credential_is_written_anywhere() {
    let Some(dir) = realdata2() else { return };
    let labels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("LABELS.json")).unwrap()).unwrap();
    let files = labels["files"].as_object().expect("files");
    let (mut credentials, mut leaks, mut wrong) = (0, Vec::new(), Vec::new());
    let mut score = Score::default();
    for (name, label) in files {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path();
        assert!(run_at(ws, NOW, &["init"]).status.success());
        let source = dir.join(name).to_string_lossy().into_owned();
        let out = run_at(
            ws,
            NOW,
            &["--json", "capture", "session-end", "--transcript", &source],
        );
        let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
        if label["must_capture"] == false {
            let named = label["refusal_any"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str())
                .any(|t| stderr.contains(&t.to_lowercase()));
            if out.status.success() || !named {
                wrong.push(format!("{name}: refusal expected, got: {stderr}"));
            }
        } else if !out.status.success() {
            wrong.push(format!("{name}: refused: {stderr}"));
        } else {
            score.judge(name, label, &labels["forbidden_all"], ws);
            wrong.extend(compactions_differ(name, &label["compactions"], ws));
        }
        let written = every_file(ws);
        for secret in label["secrets"].as_array().into_iter().flatten() {
            let secret = secret.as_str().expect("a secret is a string");
            credentials += 1;
            for (path, bytes) in &written {
                if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                    let at = path.strip_prefix(ws).unwrap_or(path).display();
                    leaks.push(format!("{name}: {}… in {at}", &secret[..4]));
                }
            }
        }
    }
    eprintln!("{score}");
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Today's figures (2026-11-27): requests 19, outcomes 19, clean 19 of 19.
    assert!(
        score.request >= 19 && score.outcome >= 19 && score.clean >= 19,
        "fewer sentences name their session than before:\n{score}"
    );
    assert!(
        credentials >= 8,
        "only {credentials} labelled credentials found"
    );
    assert!(leaks.is_empty(), "{} leaks:\n{leaks:#?}", leaks.len());
}

/// What is wrong with the compaction artifacts of a capture, by the labels:
/// as many as the source holds readable summaries (an empty or encrypted one
/// is no artifact), each probe in one of them.
fn compactions_differ(name: &str, label: &serde_json::Value, ws: &Path) -> Option<String> {
    let bodies: Vec<String> = std::fs::read_dir(ws.join("memory"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("--compaction.md"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    let want = label["count"].as_u64().unwrap_or(0) as usize;
    let missing: Vec<&str> = label["probes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str())
        .filter(|p| !bodies.iter().any(|b| has_term(b, p)))
        .collect();
    (bodies.len() != want || !missing.is_empty()).then(|| {
        format!(
            "{name}: {} compaction artifacts, {want} labelled; probes not found: {missing:?}",
            bodies.len()
        )
    })
}

/// How many captured sessions' sentences (and summaries) say what the labels say.
#[derive(Default)]
struct Score {
    captured: usize,
    request: usize,
    outcome: usize,
    /// No forbidden text in the sentence.
    clean: usize,
    misses: Vec<String>,
}

impl Score {
    fn judge(
        &mut self,
        name: &str,
        label: &serde_json::Value,
        forbidden_all: &serde_json::Value,
        ws: &Path,
    ) {
        self.captured += 1;
        let summary = std::fs::read_dir(ws.join("memory"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with("--summary.md"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .unwrap_or_default();
        let sentence = summary
            .lines()
            .find_map(|l| l.strip_prefix("memory_sentence: "))
            .and_then(|v| serde_json::from_str::<String>(v).ok())
            .unwrap_or_default();
        let body = summary.splitn(3, "---\n").nth(2).unwrap_or_default();
        // The request part: after "<project>: ", before what was changed, run or came of it.
        let request = sentence
            .split_once(": ")
            .map_or(sentence.as_str(), |(_, r)| r);
        let request = ["; changed ", "; ran ", "; outcome:", "; committed"]
            .iter()
            .filter_map(|m| request.find(m))
            .min()
            .map_or(request, |at| &request[..at]);
        let outcome = sentence.split_once("outcome:").map_or("", |(_, o)| o);
        let terms = |key: &str| -> Vec<String> {
            label[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(String::from))
                .collect()
        };
        let any = |text: &str, key: &str| terms(key).iter().any(|t| has_term(text, t));
        if any(request, "request_any") && any(section(body, "Request"), "request_any") {
            self.request += 1;
        } else {
            self.misses.push(format!("{name}: request: {sentence}"));
        }
        if any(outcome, "outcome_any") || any(section(body, "Outcome"), "outcome_any") {
            self.outcome += 1;
        } else {
            self.misses.push(format!("{name}: outcome: {sentence}"));
        }
        let straight = sentence.replace(['\u{201c}', '\u{201d}'], "\"");
        let forbidden: Vec<&str> = forbidden_all
            .as_array()
            .into_iter()
            .chain(label["forbidden"].as_array())
            .flatten()
            .filter_map(|f| f.as_str())
            .filter(|f| straight.contains(f))
            .collect();
        if forbidden.is_empty() {
            self.clean += 1;
        } else {
            self.misses.push(format!("{name}: forbidden {forbidden:?}"));
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "realdata2: of {} captured, request named {}, outcome named {}, no forbidden text {}",
            self.captured, self.request, self.outcome, self.clean
        )?;
        for m in &self.misses {
            writeln!(f, "  {m}")?;
        }
        Ok(())
    }
}

/// A `## name` section of a summary body.
fn section<'a>(body: &'a str, name: &str) -> &'a str {
    let head = format!("## {name}\n");
    let Some(start) = body.find(&head).map(|i| i + head.len()) else {
        return "";
    };
    let rest = &body[start..];
    rest.find("\n## ").map_or(rest, |end| &rest[..end])
}

/// LABELS.json's `matching.terms`: case-insensitive after normalising quotes,
/// `**`, backticks and runs of whitespace, `_` and `-`; an ASCII term must
/// not touch another letter or digit at an alphanumeric edge (`*` at its
/// end lifts the right-hand check); other scripts match as substrings.
fn has_term(text: &str, term: &str) -> bool {
    let norm = |s: &str| -> String {
        let s = s
            .replace(['\u{2018}', '\u{2019}'], "'")
            .replace(['\u{201c}', '\u{201d}'], "\"")
            .replace("**", "")
            .replace('`', "");
        let mut out = String::new();
        for c in s.chars() {
            if c.is_whitespace() || c == '_' || c == '-' {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            } else {
                out.extend(c.to_lowercase());
            }
        }
        out
    };
    let (text, mut term) = (norm(text), norm(term));
    let prefix = term.ends_with('*');
    if prefix {
        term.pop();
    }
    if term.is_empty() {
        return false;
    }
    if !term.is_ascii() {
        return text.contains(&term);
    }
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let first = term.chars().next();
    let last = term.chars().last();
    text.match_indices(&term).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + term.len()..].chars().next();
        !(alnum(first) && alnum(before)) && (prefix || !(alnum(last) && alnum(after)))
    })
}
