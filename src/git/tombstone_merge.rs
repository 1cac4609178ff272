//! Merging two clones' tombstones for one session. Forgetting the same
//! session on two clones writes the same path with different bytes (each its
//! own time and reason), which git reports as an add/add conflict and, with
//! conflict markers in the file, an invalid tombstone. The merge driver
//! (`.gitattributes` routes `memory/tombstones/*.md` to it) instead writes
//! one tombstone that holds both: the earliest removal time, both reasons
//! and every removed path, in an order that does not depend on which side is
//! ours, so every clone ends with the same bytes.
//!
//! Owns: the merged tombstone's text. Must not: touch any other file.

use crate::compose;
use crate::validate::{Tombstone, validate_tombstone};

/// The merged text of two tombstones (a side that is empty or not a valid
/// tombstone gives way to the other); `None` when neither side is valid.
pub fn merge(path: &str, ours: &str, theirs: &str) -> Option<String> {
    let read = |text: &str| validate_tombstone(path, text).ok();
    let (a, b) = match (read(ours), read(theirs)) {
        (Some(a), Some(b)) => (a, b),
        (Some(one), None) | (None, Some(one)) => return Some(render(&one)),
        (None, None) => return None,
    };
    let mut reasons = vec![a.reason.clone(), b.reason.clone()];
    reasons.sort();
    reasons.dedup();
    let mut removed: Vec<String> = a
        .removed_paths
        .iter()
        .chain(&b.removed_paths)
        .cloned()
        .collect();
    removed.sort();
    removed.dedup();
    let merged = Tombstone {
        removed_at: a.removed_at.clone().min(b.removed_at.clone()),
        reason: reasons.join("; "),
        removed_paths: removed,
        ..a
    };
    Some(render(&merged))
}

fn render(t: &Tombstone) -> String {
    let at = crate::contract::parse_ts(&t.removed_at).unwrap_or_default();
    compose::tombstone(&t.agent_id, &t.token, at, &t.reason, &t.removed_paths).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tomb(at: &str, reason: &str, paths: &[&str]) -> String {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        let at = crate::contract::parse_ts(at).unwrap();
        compose::tombstone("default", "abcdefghijklmnop", at, reason, &paths).1
    }

    #[test]
    fn two_clones_forgetting_one_session_merge_to_the_same_bytes_either_way() {
        let path = "memory/tombstones/default--abcdefghijklmnop.md";
        let a = tomb(
            "2026-11-20T10:00:00.000Z",
            "pasted a key",
            &["memory/x--summary.md"],
        );
        let b = tomb(
            "2026-11-20T09:00:00.000Z",
            "customer data",
            &["memory/x--transcript.md"],
        );
        let ab = merge(path, &a, &b).unwrap();
        assert_eq!(merge(path, &b, &a).unwrap(), ab);
        assert!(ab.contains("2026-11-20T09:00:00.000Z"), "{ab}");
        assert!(ab.contains("customer data; pasted a key"), "{ab}");
        assert!(ab.contains("x--summary.md") && ab.contains("x--transcript.md"));
        assert!(validate_tombstone(path, &ab).is_ok());
        assert_eq!(merge(path, &a, "").unwrap(), a);
        assert_eq!(merge(path, "", "").as_deref(), None);
    }
}
