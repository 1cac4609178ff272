//! Scan stage: walk the workspace under the include/exclude rules and classify
//! every markdown file, with the stat facts the stat cache compares.
//!
//! Owns: the directory walk and path classification. Must not: read file
//! contents, follow symlinks, or touch the index.

use std::path::Path;

use globset::GlobSet;

use crate::config::{ScanConfig, glob_set};
use crate::contract::{self, MEMORY_DIR, TOMBSTONE_DIR};
use crate::error::{Error, Result};
use crate::validate::Problem;

/// What a path is to memsync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileClass {
    /// `memory/{ts}--{token}--{kind}.md`.
    Artifact,
    /// `memory/tombstones/*.md`.
    Tombstone,
    /// A file memsync renders (MEMORY.md, daily logs); never ingested.
    Projection,
    /// Anything else: notes (`crate::note`), indexed apart from sessions.
    Note,
}

/// The stat facts the cache compares to decide whether a file must be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FileStat {
    pub size: u64,
    pub mtime_ns: i64,
    /// Change time: cannot be set back by `touch -m`, `cp -p` or `rsync -t`.
    pub ctime_ns: i64,
    pub inode: u64,
}

impl FileStat {
    pub fn of(meta: &std::fs::Metadata) -> FileStat {
        use std::os::unix::fs::MetadataExt;
        FileStat {
            size: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            inode: meta.ino(),
        }
    }
}

/// A canonical artifact or tombstone found by the scan.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    pub class: FileClass,
    pub stat: FileStat,
}

#[derive(Debug, Default)]
pub struct Scan {
    pub files: Vec<ScannedFile>,
    /// Notes (`crate::note`): markdown that is none of the above, stat-ed.
    pub notes: Vec<ScannedFile>,
    /// Path-level findings: symlinks not followed, unreadable names, misnamed artifacts.
    pub problems: Vec<Problem>,
    /// memsync's own temporary files whose writer died (see `project::file`).
    pub interrupted_writes: Vec<String>,
}

/// Compiled include/exclude rules. An exclude pattern that matches a directory
/// excludes everything below it.
pub struct ScanRules {
    include: GlobSet,
    exclude: GlobSet,
}

impl ScanRules {
    pub fn new(cfg: &ScanConfig, extra_exclude: &[String]) -> Result<ScanRules> {
        Ok(ScanRules {
            include: glob_set("scan.include", &cfg.include)?,
            exclude: glob_set("scan.exclude", cfg.exclude.iter().chain(extra_exclude))?,
        })
    }

    pub fn is_excluded(&self, rel: &str) -> bool {
        self.exclude.is_match(rel)
    }

    /// Whether `rel` or a directory above it is excluded (the scan never enters it).
    pub fn is_under_excluded(&self, rel: &str) -> bool {
        let mut prefix = String::new();
        for part in rel.split('/') {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if self.is_excluded(&prefix) {
                return true;
            }
        }
        false
    }

    /// Whether a file path (not a directory) is one memsync looks at.
    pub fn wants_file(&self, rel: &str) -> bool {
        self.include.is_match(rel)
            && !self.exclude.is_match(rel)
            && !self.has_excluded_ancestor(rel)
    }

    fn has_excluded_ancestor(&self, rel: &str) -> bool {
        let mut dir = rel;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if self.exclude.is_match(parent) {
                return true;
            }
            dir = parent;
        }
        false
    }
}

/// Walks `root`, never following symlinks, pruning excluded directories.
pub fn scan(root: &Path, rules: &ScanRules) -> Result<Scan> {
    let mut out = Scan::default();
    std::fs::symlink_metadata(root).map_err(|e| Error::io(root, e))?;
    walk(root, "", rules, &mut out);
    // Held through the whole sync: a third of the list's capacity is the
    // doubling's slack at 100,000s of files.
    out.files.shrink_to_fit();
    Ok(out)
}

/// One directory level. Hand-written rather than walkdir because std's
/// `DirEntry::metadata` stats relative to the open directory (`statx` on the
/// dir fd), where walkdir stats each full path.
fn walk(dir: &Path, rel_dir: &str, rules: &ScanRules, out: &mut Scan) {
    let cannot_list =
        |e: std::io::Error| Problem::warning(rel_dir, "read.io", format!("cannot list: {e}"));
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            out.problems.push(cannot_list(e));
            return;
        }
    };
    let mut to_stat = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                out.problems.push(cannot_list(e));
                continue;
            }
        };
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            let lossy = entry.file_name().to_string_lossy().into_owned();
            let shown = if rel_dir.is_empty() {
                lossy
            } else {
                format!("{rel_dir}/{lossy}")
            };
            out.problems.push(Problem::warning(
                &shown,
                "path.encoding",
                "file name is not valid UTF-8; skipped",
            ));
            continue;
        };
        let rel = if rel_dir.is_empty() {
            name.to_string()
        } else {
            format!("{rel_dir}/{name}")
        };
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            if !rules.is_excluded(&rel) {
                walk(&entry.path(), &rel, rules, out);
            }
            continue;
        }
        if file_type.is_file() && crate::files::is_interrupted_write(name) {
            out.interrupted_writes.push(rel);
            continue;
        }
        let candidate = globset::Candidate::new(&rel);
        if rules.exclude.is_match_candidate(&candidate) {
            continue;
        }
        if file_type.is_symlink() {
            let included = rules.include.is_match_candidate(&candidate);
            out.problems
                .extend(symlink_problem(&entry.path(), &rel, included));
            continue;
        }
        if !rules.include.is_match_candidate(&candidate) {
            continue;
        }
        let class = classify(&rel);
        match class {
            // memsync's own outputs are never ingested (no feedback loops);
            // what others write into a daily log around its block is a note.
            FileClass::Projection => {
                if is_daily_log(&rel)
                    && let Ok(meta) = entry.metadata()
                {
                    out.notes.push(ScannedFile {
                        path: rel,
                        class,
                        stat: FileStat::of(&meta),
                    });
                }
                continue;
            }
            FileClass::Note => {
                // A canonical name out of `memory/` (a moved folder) is read:
                // its frontmatter says whose it is and where it belongs.
                let moved = contract::parse_canonical_name(name).is_some();
                match misnamed(&rel).filter(|_| !moved) {
                    Some(problem) => out.problems.push(problem),
                    None if crate::note::is_note_path(&rel) => {
                        if let Ok(meta) = entry.metadata() {
                            out.notes.push(ScannedFile {
                                path: rel,
                                class,
                                stat: FileStat::of(&meta),
                            });
                        }
                    }
                    None => {}
                }
                continue;
            }
            FileClass::Artifact | FileClass::Tombstone => {}
        }
        to_stat.push((entry, rel, class));
        if to_stat.len() == STAT_CHUNK {
            stat_all(&mut to_stat, out);
        }
    }
    stat_all(&mut to_stat, out);
}

/// Entries stat-ed at once: a directory of 100,000 files never holds
/// 100,000 open entries and their full metadata together.
const STAT_CHUNK: usize = 4096;

/// Stats `entries` (the walk's cost: one statx each, relative to the open
/// directory) spread over the cores, and adds them to the scan.
fn stat_all(entries: &mut Vec<(std::fs::DirEntry, String, FileClass)>, out: &mut Scan) {
    use rayon::prelude::*;
    let stats: Vec<_> = entries
        .par_drain(..)
        .map(|(entry, rel, class)| (entry.metadata().map(|m| FileStat::of(&m)), rel, class))
        .collect();
    for (stat, rel, class) in stats {
        match stat {
            Ok(stat) => out.files.push(ScannedFile {
                path: rel,
                class,
                stat,
            }),
            Err(e) => out.problems.push(Problem::warning(
                &rel,
                "read.io",
                format!("cannot stat: {e}"),
            )),
        }
    }
}

/// A symbolic link is never followed. One that would matter is reported: a
/// link where a markdown file could be, to a directory (whose files would
/// otherwise be scanned), or one that loops or dangles. The target is only
/// stat-ed, never opened.
fn symlink_problem(path: &Path, rel: &str, included: bool) -> Option<Problem> {
    let reason = match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            "symbolic link to a directory not followed; memsync scans only real directories"
        }
        Ok(_) if included => "symbolic link not followed; memsync reads only regular files",
        Ok(_) => return None,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => "symbolic link loop not followed",
        Err(_) if included => "dangling symbolic link not followed",
        Err(_) => return None,
    };
    Some(Problem::warning(rel, "path.symlink", reason))
}

/// `path` relative to `root`; `None` when not UTF-8 or not under root. On unix
/// the separator is already `/`.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    path.strip_prefix(root).ok()?.to_str().map(String::from)
}

/// Whether a workspace-relative path is a daily log (`memory/YYYY-MM-DD.md`,
/// an agent's `agents/<id>/memory/YYYY-MM-DD.md`): a projection whose lines
/// outside memsync's block are someone's notes.
pub fn is_daily_log(rel: &str) -> bool {
    classify(rel) == FileClass::Projection && !rel.ends_with("MEMORY.md")
}

/// Classifies a workspace-relative path by name alone.
pub fn classify(rel: &str) -> FileClass {
    let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    if dir == MEMORY_DIR && contract::parse_canonical_name(file).is_some() {
        return FileClass::Artifact;
    }
    if dir == TOMBSTONE_DIR && file.ends_with(".md") {
        return FileClass::Tombstone;
    }
    if is_projection(dir, file) {
        return FileClass::Projection;
    }
    FileClass::Note
}

fn is_projection(dir: &str, file: &str) -> bool {
    let agent_dir = |d: &str| {
        d.strip_prefix("agents/")
            .is_some_and(|id| !id.contains('/') && contract::is_valid_agent_id(id))
    };
    let is_day = |f: &str| {
        f.strip_suffix(".md").is_some_and(|d| {
            chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok() && d.len() == 10
        })
    };
    match file {
        "MEMORY.md" => dir.is_empty() || agent_dir(dir),
        f if is_day(f) => dir == MEMORY_DIR || dir.strip_suffix("/memory").is_some_and(agent_dir),
        _ => false,
    }
}

/// A note whose name suggests a canonical artifact in the wrong place or shape.
fn misnamed(rel: &str) -> Option<Problem> {
    let file = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let stem = file.strip_suffix(".md")?;
    let looks = contract::ArtifactKind::ALL.iter().any(|k| {
        stem.strip_suffix(k.as_str())
            .is_some_and(|rest| rest.ends_with(['-', '_', '.']))
    });
    looks.then(|| {
        Problem::warning(
            rel,
            "naming.misnamed",
            "looks like a canonical artifact but is not `memory/{captured_at}--{token}--{kind}.md`; it is not indexed",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_name() {
        assert_eq!(
            classify("memory/2026-03-28T22-34-06.792Z--h7k3n4p9m2x1q8r5--summary.md"),
            FileClass::Artifact
        );
        assert_eq!(
            classify("memory/tombstones/default--h7k3n4p9m2x1q8r5.md"),
            FileClass::Tombstone
        );
        assert_eq!(classify("MEMORY.md"), FileClass::Projection);
        assert_eq!(classify("agents/ops/MEMORY.md"), FileClass::Projection);
        assert_eq!(classify("memory/2026-03-28.md"), FileClass::Projection);
        assert_eq!(
            classify("agents/ops/memory/2026-03-28.md"),
            FileClass::Projection
        );
        assert_eq!(classify("notes/idea.md"), FileClass::Note);
        assert!(misnamed("memory/old/2026-03-28-session-summary.md").is_some());
        assert!(misnamed("notes/idea.md").is_none());
    }
}
