//! Judging captures of a labelled folder of real sessions (`LABELS.json`,
//! as `../shared/realdata2/` and `realdata3/` hold them): each file captured
//! or refused as labelled, the sentence and summary naming the labelled
//! request and outcome, no forbidden text, every labelled search found, and
//! no labelled credential in any file memsync wrote (the index included).

use std::path::{Path, PathBuf};

use super::run_at;

/// A folder of labelled sessions, or `None` (with a message) where it is absent.
pub fn folder(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(name);
    if dir.join("LABELS.json").is_file() {
        return Some(dir);
    }
    eprintln!("skipped: {} is absent", dir.display());
    None
}

/// What capturing every file of a labelled folder gave.
#[derive(Default)]
pub struct Verdict {
    pub score: Score,
    /// Files captured or refused against their labels, compactions missing.
    pub wrong: Vec<String>,
    /// Labelled searches that found nothing.
    pub unfound: Vec<String>,
    pub credentials: usize,
    pub leaks: Vec<String>,
}

/// Captures each labelled file of `dir` into its own workspace at `now`.
pub fn judge_folder(dir: &Path, now: &str) -> Verdict {
    let mut v = Verdict::default();
    let labels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("LABELS.json")).unwrap()).unwrap();
    let files = labels["files"].as_object().expect("files");
    for (name, label) in files {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path();
        assert!(run_at(ws, now, &["init"]).status.success());
        let source = dir.join(name).to_string_lossy().into_owned();
        let out = run_at(
            ws,
            now,
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
                v.wrong
                    .push(format!("{name}: refusal expected, got: {stderr}"));
            }
        } else if !out.status.success() {
            v.wrong.push(format!("{name}: refused: {stderr}"));
        } else {
            v.score.judge(name, label, &labels["forbidden_all"], ws);
            v.wrong
                .extend(compactions_differ(name, &label["compactions"], ws));
            v.unfound.extend(unfound(name, &label["search"], ws, now));
        }
        let written = every_file(ws);
        for secret in label["secrets"].as_array().into_iter().flatten() {
            let secret = secret.as_str().expect("a secret is a string");
            v.credentials += 1;
            for (path, bytes) in &written {
                if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                    let at = path.strip_prefix(ws).unwrap_or(path).display();
                    v.leaks.push(format!("{name}: {}… in {at}", &secret[..4]));
                }
            }
        }
    }
    v
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

/// The labelled searches (`{"q": …}`, searched as a quoted phrase) that
/// return no hit in the workspace `ws`.
fn unfound(name: &str, searches: &serde_json::Value, ws: &Path, now: &str) -> Vec<String> {
    searches
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["q"].as_str())
        .filter(|q| {
            let out = run_at(ws, now, &["--json", "search", &format!("\"{q}\"")]);
            let hits: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
            hits.as_array().is_none_or(Vec::is_empty)
        })
        .map(|q| format!("{name}: search {q:?} finds nothing"))
        .collect()
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
pub struct Score {
    pub captured: usize,
    pub request: usize,
    pub outcome: usize,
    /// No forbidden text in the sentence.
    pub clean: usize,
    pub misses: Vec<String>,
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
            "of {} captured, request named {}, outcome named {}, no forbidden text {}",
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
