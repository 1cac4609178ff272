//! The front door stays a front door: the README is at most 150 lines, and
//! every link in it and in `docs/` points at a file of this repository that
//! exists (no link leaves the repository; an anchor names a real heading).

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every markdown page a reader is sent to: the README and docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages
}

/// The targets of `[text](target)` links outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: a `[x](y)` inside backticks is not a link.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
            }
            !fenced && l.starts_with('#')
        })
        .map(|l| slug(l.trim_start_matches('#')))
        .collect()
}

#[test]
fn the_readme_reads_in_two_minutes() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 150,
        "README.md is {lines} lines; move detail to docs/"
    );
    for must in [
        "## Install",
        "memsync demo",
        "cargo test",
        "## Beside Signet",
    ] {
        assert!(readme.contains(must), "README.md lost {must:?}");
    }
}

#[test]
fn every_link_in_the_readme_and_docs_stays_in_the_repository_and_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for link in links(&text) {
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let name = page.strip_prefix(repo()).unwrap().display().to_string();
            if link.contains("://") || link.starts_with("mailto:") {
                broken.push(format!("{name}: {link} leaves the repository"));
                continue;
            }
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let inside = target
                .canonicalize()
                .is_ok_and(|t| t.starts_with(repo().canonicalize().unwrap()));
            if !inside {
                broken.push(format!("{name}: {link} is not a file of the repository"));
            } else if !anchor.is_empty() && !anchors(&target).iter().any(|a| a == anchor) {
                broken.push(format!("{name}: {link} names no heading"));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

/// The man page and docs/CONFIGURATION.md say the same about which config
/// wins (issue 46: the man page said the reverse of what happens).
#[test]
fn the_man_page_and_the_configuration_docs_agree_that_the_workspace_overlays_the_machine() {
    let docs = std::fs::read_to_string(repo().join("docs/CONFIGURATION.md")).unwrap();
    assert!(
        docs.contains("then overlays\n`<workspace>/memsync.yaml` key by key"),
        "docs/CONFIGURATION.md no longer says the workspace overlays the machine config"
    );
    let man = assert_cmd::Command::cargo_bin("memsync")
        .unwrap()
        .args(["man"])
        .output()
        .unwrap();
    let man = String::from_utf8_lossy(&man.stdout).replace("\\-", "-");
    let flat = man.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("memsync.yaml overlays it key by key"),
        "the man page must say the workspace config overlays the machine config"
    );
    assert!(
        !flat.contains("settings over the workspace"),
        "the reverse claim is gone"
    );
}

/// A clone has no `../shared/`: only the development page names it, and says
/// so; every other page links there.
#[test]
fn only_the_development_page_names_the_shared_folder_a_clone_lacks() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        if name == "DEVELOPMENT.md" {
            continue;
        }
        assert!(!text.contains("../shared"), "{name} points at ../shared");
    }
    let dev = std::fs::read_to_string(repo().join("docs/DEVELOPMENT.md")).unwrap();
    assert!(dev.contains("does not") && dev.contains("../shared"));
}

/// The release binary carries no debuginfo and no symbols (82 MB with
/// debuginfo, 21.7 MB with symbols, 17.7 MB stripped).
#[test]
fn the_release_binary_carries_no_debuginfo() {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_memsync"));
    if !bin.to_string_lossy().contains("/release/") {
        return; // a debug build keeps its debuginfo on purpose
    }
    // With debuginfo (line tables only, std's in full) it was 89 MB; without, 18 MB.
    let size = std::fs::metadata(bin).unwrap().len();
    assert!(size < 40 << 20, "{} is {size} bytes", bin.display());
}
