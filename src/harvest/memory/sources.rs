//! The memory each harness writes itself, as harvest imports it: each
//! harness's folder (`src/harnesses/<name>/`) says where its memory is and
//! which project a memory folder is about; this lists it as [`MemoryFile`]s.
//! Also a folder's git remote, by which a project is known on another machine.
//!
//! Owns: the listing the importer walks. Must not: write anything, or know
//! a harness's layout (its folder does).

use std::path::{Path, PathBuf};

use crate::harness::Harness;
use crate::harnesses::program;

/// One file of a harness's own memory.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryFile {
    pub harness: Harness,
    pub path: PathBuf,
    /// Its path inside the harness's memory folder (`/`-separated).
    pub file: String,
    /// The harness's folder for the project, whose sessions name it.
    pub project_dir: Option<PathBuf>,
}

/// Every memory file of `harness` under its folder `home`; `mirror` is
/// the folder memsync's mirror renders into, if one is configured.
pub fn list(harness: Harness, home: &Path, mirror: Option<&Path>) -> Vec<MemoryFile> {
    let mut out: Vec<MemoryFile> = program(harness)
        .memory_files(home, mirror)
        .into_iter()
        .map(|m| MemoryFile {
            harness,
            path: m.path,
            file: m.file,
            project_dir: m.project_dir,
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// A folder's git remote (`origin`), as `host/path` without credentials,
/// scheme or `.git`, so the ssh and https forms of one remote are equal.
pub fn remote_of(dir: &Path) -> Option<String> {
    if !dir.is_dir() {
        return None;
    }
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["config", "--get", "remote.origin.url"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let url = String::from_utf8(out.stdout).ok()?;
    normal_remote(url.trim())
}

/// `https://user:token@github.com/a/b.git` and `git@github.com:a/b` as
/// `github.com/a/b`.
pub fn normal_remote(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let rest = match rest.split_once(':') {
        // scp-like `host:path`, not `host:port/path`.
        Some((host, path)) if !url.contains("://") => format!("{host}/{path}"),
        _ => rest.to_string(),
    };
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".git").unwrap_or(rest);
    (!rest.is_empty()).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_lose_credentials_scheme_and_suffix() {
        let same = "github.com/a/b";
        assert_eq!(
            normal_remote("git@github.com:a/b.git").as_deref(),
            Some(same)
        );
        assert_eq!(
            normal_remote("https://user:ghp_secret@github.com/a/b.git").as_deref(),
            Some(same)
        );
        assert_eq!(
            normal_remote("ssh://git@github.com/a/b/").as_deref(),
            Some(same)
        );
        assert_eq!(normal_remote(""), None);
    }
}
