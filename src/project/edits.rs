//! Edits a person made inside memsync's block (Obsidian shows the block like
//! any text, and hides the marker that says to edit outside it). A render
//! replaces the block, so before it does, a block that differs from the one
//! memsync last wrote, and whose body no longer matches the digest on its
//! begin line (a pull or merge brings other clones' sealed renders, which
//! are nobody's typing), is kept under `.memsync/edits/` and reported in
//! `status`: nothing typed disappears without a line saying where it went.
//!
//! Owns: the record of the last block written to each file (a digest in the
//! index's meta), the kept copies and their notices. Must not: write a
//! projection.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::Pending;
use crate::contract;
use crate::error::Result;
use crate::store::{Batch, Index, Phase};
use crate::validate::Problem;

/// The rule of the notice.
pub(super) const EDITED_BLOCK: &str = "projection.edited-block";

/// Where the blocks are kept, under the state directory.
const EDITS_DIR: &str = "edits";

const META_PREFIX: &str = "rendered_block:";

fn meta_key(path: &str) -> String {
    format!("{META_PREFIX}{path}")
}

/// The mark of a record's digest of a block with its link targets left out.
const LINKS: &str = "links:";

/// The digest of a block with every wikilink's target left out
/// (`[[memory/x.md|summary]]` as `[[|summary]]`): the same for the block
/// memsync wrote and for that block after Obsidian rewrote its links.
fn links_digest(block: &str) -> String {
    let blanked = crate::parse::map_wikilink_targets(block, |_| String::new());
    contract::sha256_hex(blanked.as_bytes())
}

/// The digests of the blocks memsync last wrote (from the index) and of
/// the ones this render writes.
#[derive(Debug, Default)]
pub(super) struct Blocks {
    last: BTreeMap<String, String>,
    pub(super) digests: BTreeMap<String, String>,
}

/// A block a person changed, as it was before the render replaced it.
#[derive(Debug)]
pub(super) struct EditedBlock {
    path: String,
    old: String,
    /// Its lines that are not in the new block.
    typed: usize,
}

impl Blocks {
    pub(super) fn load(index: &Index) -> Result<Blocks> {
        let last = index
            .meta_with_prefix(META_PREFIX)?
            .into_iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(META_PREFIX)?.to_string(), v)))
            .collect();
        Ok(Blocks {
            last,
            digests: BTreeMap::new(),
        })
    }

    /// Notes the block `p` writes; the file's block when it is not one
    /// memsync wrote there (no record: a new file, a rebuilt index, or the
    /// first render since memsync kept one). A record holds two digests, the
    /// block about to be written and the one the file holds until then when
    /// that one is memsync's, so a memsync killed between its record and its
    /// write is not taken for a person ([`Blocks::pre_record`]).
    pub(super) fn note(&mut self, p: &Pending) -> Option<EditedBlock> {
        let new = contract::sha256_hex(p.block.as_bytes());
        let last = self.last.get(&p.path);
        let newest = last
            .and_then(|l| l.split(' ').next())
            .unwrap_or_default()
            .to_string();
        let old = p.existing_block.as_deref().filter(|_| p.changed);
        let old_sha = old.map(|o| contract::sha256_hex(o.as_bytes()));
        // A block no memsync here wrote may still be memsync's: a pull or a
        // merge brings another clone's render, sealed with its digest; and
        // Obsidian, renaming or moving a file, rewrites the links to it in
        // memsync's block, which no person typed.
        let edited = match (&old_sha, last, old) {
            (Some(sha), Some(last), Some(old)) => {
                let relinked = format!("{LINKS}{}", links_digest(old));
                !last.split(' ').any(|d| d == sha || d == relinked) && !super::file::is_sealed(old)
            }
            _ => false,
        };
        // The block the file holds until the write lands: memsync's own
        // (accepted, so a kill must not turn it into a person's), else the
        // last one memsync wrote.
        let holds = match old_sha {
            Some(sha) if !edited => sha,
            _ => newest,
        };
        let mut record = if holds.is_empty() || holds == new {
            new.clone()
        } else {
            format!("{new} {holds}")
        };
        record.push_str(&format!(" {LINKS}{}", links_digest(&p.block)));
        self.digests.insert(p.path.clone(), record);
        let old = old.filter(|_| edited)?;
        let typed = old
            .lines()
            .filter(|l| !l.trim().is_empty() && !p.block.lines().any(|n| n == *l))
            .count();
        Some(EditedBlock {
            path: p.path.clone(),
            old: old.to_string(),
            typed,
        })
    }
}

impl Blocks {
    /// Records, before the files are written, the blocks about to be
    /// written: whichever moment a kill comes, the file then holds a block
    /// its record names.
    pub(super) fn pre_record(&mut self, index: &Index, paths: &[&str]) -> Result<()> {
        let pairs: Vec<(String, String)> = paths
            .iter()
            .filter_map(|p| Some((meta_key(p), self.digests.get(*p)?.clone())))
            .collect();
        if pairs.is_empty() {
            return Ok(());
        }
        index.set_metas(&pairs)?;
        for p in paths {
            if let Some(d) = self.digests.get(*p) {
                self.last.insert(p.to_string(), d.clone());
            }
        }
        Ok(())
    }
}

/// How many kept blocks stay, newest first, and for how long: enough to
/// find what was typed weeks ago, without a folder that grows for ever.
const KEEP_NEWEST: usize = 200;
const KEEP_DAYS: u64 = 90;

/// Keeps each edited block under `.memsync/edits/`; the notices saying where.
/// Older kept blocks past the limits above are removed then (so the cost
/// follows the edits, not the renders).
pub(super) fn keep_edited_blocks(
    state_dir: &Path,
    edited: &[EditedBlock],
    now: DateTime<Utc>,
) -> Vec<Problem> {
    if edited.is_empty() {
        return Vec::new();
    }
    let notices = edited
        .iter()
        .map(|e| {
            let kept = format!(
                "{EDITS_DIR}/{}--{}.md",
                e.path.replace('/', "__").trim_end_matches(".md"),
                contract::fs_timestamp(now)
            );
            let whereto = match crate::files::write_atomic(&state_dir.join(&kept), e.old.as_bytes()) {
                Ok(()) => format!("the block as it was is kept in `.memsync/{kept}`"),
                Err(err) => format!("it could not be kept ({err})"),
            };
            Problem::warning(
                &e.path,
                EDITED_BLOCK,
                format!(
                    "a change inside memsync's block ({} lines not memsync's) was replaced by the render; {whereto}. memsync rewrites the block on every change: type your own lines above or below it, and correct a session's row by editing `memory_sentence` in its summary's properties",
                    e.typed
                ),
            )
        })
        .collect();
    prune_kept(&state_dir.join(EDITS_DIR), KEEP_NEWEST, KEEP_DAYS);
    notices
}

/// Removes the kept blocks in `dir` beyond the `newest` most recent and
/// those older than `days`. A file that cannot be read or removed is left.
fn prune_kept(dir: &Path, newest: usize, days: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut kept: Vec<(std::time::SystemTime, std::path::PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    kept.sort_by_key(|k| std::cmp::Reverse(k.0));
    let max_age = std::time::Duration::from_secs(days * 24 * 3600);
    let old = |t: &std::time::SystemTime| t.elapsed().is_ok_and(|age| age > max_age);
    for (i, (modified, path)) in kept.iter().enumerate() {
        if (i >= newest || old(modified))
            && let Err(e) = std::fs::remove_file(path)
        {
            tracing::warn!(file = %path.display(), error = %e, "old kept block not removed");
        }
    }
}

/// Records the digest of the block each rendered file now holds, and the
/// notices: one lasts until its file's block changes again (a render that
/// only confirms the file leaves it), so `status` shows it meanwhile.
pub(super) fn record_blocks<'a>(
    b: &Batch<'_>,
    digests: impl Iterator<Item = (&'a str, &'a str)>,
    written: &[String],
    notices: &[Problem],
) -> Result<()> {
    for (path, digest) in digests {
        b.set_meta(&meta_key(path), digest)?;
    }
    for path in written {
        b.clear_path_rule(path, EDITED_BLOCK)?;
    }
    b.insert_problems(Phase::File, None, notices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn kept_at(dir: &Path, name: &str, age_days: u64) {
        let path = dir.join(name);
        std::fs::write(&path, "a block\n").unwrap();
        let when = SystemTime::now() - Duration::from_secs(age_days * 24 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn render(block: &str, file_holds: &str) -> Pending {
        Pending {
            path: "MEMORY.md".into(),
            agent_id: "default".into(),
            scope: "memory".into(),
            block: block.into(),
            changed: block != file_holds,
            existing_block: Some(file_holds.into()),
        }
    }

    /// The record a killed render left: what it pre-recorded, not yet written.
    fn after_a_kill(b: &Blocks) -> Blocks {
        Blocks {
            last: b.digests.clone(),
            digests: BTreeMap::new(),
        }
    }

    #[test]
    fn a_render_killed_before_its_write_never_takes_memsyncs_own_block_for_a_person() {
        // A rebuilt index has no record: the file's block is accepted, and
        // stays accepted when the render that replaces it is killed.
        let mut first = Blocks::default();
        assert!(first.note(&render("rows v2", "rows v1")).is_none());
        let mut next = after_a_kill(&first);
        assert!(next.note(&render("rows v3", "rows v1")).is_none());
        // With a record, the same holds for the block memsync last wrote.
        let mut again = after_a_kill(&next);
        assert!(again.note(&render("rows v4", "rows v1")).is_none());
        // A person's edit is still theirs after a kill: reported each time
        // until a render lands.
        let mut typed = after_a_kill(&again);
        assert!(typed.note(&render("rows v5", "my own line")).is_some());
        let mut typed_again = after_a_kill(&typed);
        assert!(
            typed_again
                .note(&render("rows v6", "my own line"))
                .is_some()
        );
    }

    #[test]
    fn kept_blocks_past_the_newest_or_too_old_are_removed_and_other_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        for (i, age) in [1, 2, 3, 4].iter().enumerate() {
            kept_at(dir.path(), &format!("MEMORY--{i}.md"), *age);
        }
        kept_at(dir.path(), "memory__2026-01-01--x.md", 120);
        kept_at(dir.path(), "README.txt", 400);
        prune_kept(dir.path(), 3, 90);
        assert_eq!(
            names(dir.path()),
            ["MEMORY--0.md", "MEMORY--1.md", "MEMORY--2.md", "README.txt"]
        );
    }
}
