//! The second set of real sessions, `../shared/realdata2/` with its
//! `LABELS.json` (read in place, never copied here): every file a supported
//! harness wrote is captured or refused as its label says, and no labelled
//! credential reaches any file memsync writes, the index included (its
//! `-wal` and `-shm` too). Skipped, with a message, when the folder is absent.

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
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(
        credentials >= 8,
        "only {credentials} labelled credentials found"
    );
    assert!(leaks.is_empty(), "{} leaks:\n{leaks:#?}", leaks.len());
}
