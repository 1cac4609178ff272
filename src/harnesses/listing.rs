//! Walking a harness's folder: its real subdirectories and the regular files
//! named as its sessions are. Symlinks are never followed.
//!
//! Owns: the directory walk every folder's session listing shares. Must not:
//! know any harness's layout (its folder does).

use std::path::{Path, PathBuf};

/// A regular file (a symlink is not followed).
pub fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// The real directories in `dir` (symlinks are not followed).
pub fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs
}

/// The regular `*.jsonl` files in `dir` whose names start with `prefix`.
pub fn jsonl<'a>(dir: &Path, prefix: &'a str) -> impl Iterator<Item = PathBuf> + use<'a> {
    files(dir, prefix, ".jsonl")
}

/// The regular files in `dir` named `<prefix>…<suffix>`.
pub fn files<'a>(
    dir: &Path,
    prefix: &'a str,
    suffix: &'a str,
) -> impl Iterator<Item = PathBuf> + use<'a> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(move |e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .map(|e| e.path())
}

/// The regular `*.md` files below `dir` (hidden ones left out), at most
/// `depth` folders deep, with their `/`-separated paths inside it.
pub fn markdown(dir: &Path, depth: usize) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_file() && name.ends_with(".md") {
            out.push((e.path(), name));
        } else if kind.is_dir() && depth > 1 {
            for (p, inner) in markdown(&e.path(), depth - 1) {
                out.push((p, format!("{name}/{inner}")));
            }
        }
    }
    out
}
