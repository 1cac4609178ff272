//! Same commit, same bytes (issue 68): MEMORY.md's `## Notes` list ordered
//! notes without an `updated:` key (every Obsidian note) by file mtime, so a
//! fresh clone of the same commit rendered other bytes and showed
//! `M MEMORY.md`. Two workspaces holding the same files with opposite
//! mtimes now render byte-identical projections.

mod common;

use std::time::{Duration, SystemTime};

use common::Workspace;

const NOTES: [(&str, &str); 4] = [
    (
        "notes/ideas.md",
        "# Ideas\n\nUse a queue for the retry worker.\n",
    ),
    (
        "notes/zebra.md",
        "# Zebra\n\nThe staging host is zebra-2.\n",
    ),
    (
        "notes/2026-11-19-deploy.md",
        "# Deploy\n\nDeploy from the release branch.\n",
    ),
    (
        "notes/pricing.md",
        "---\ntitle: Pricing\nupdated: 2026-11-18T10:00:00Z\n---\nPrices change on the first of the month.\n",
    ),
];

fn workspace(oldest_first: bool) -> Workspace {
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    for (i, (rel, text)) in NOTES.iter().enumerate() {
        let path = ws.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let age = if oldest_first { i } else { NOTES.len() - i };
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600 * age as u64))
            .unwrap();
    }
    ws.sync();
    ws
}

#[test]
fn two_workspaces_with_the_same_notes_and_other_mtimes_render_the_same_memory_md() {
    let a = workspace(true);
    let b = workspace(false);
    let memory = |ws: &Workspace| std::fs::read_to_string(ws.path("MEMORY.md")).unwrap();
    let (ma, mb) = (memory(&a), memory(&b));
    assert!(ma.contains("## Notes"), "{ma}");
    assert_eq!(ma, mb);
    // Dated notes first, newest first; then the undated by path.
    let order: Vec<&str> = ma
        .lines()
        .filter(|l| l.starts_with("- [[notes/"))
        .map(|l| &l[4..l.find('|').unwrap()])
        .collect();
    assert_eq!(
        order,
        [
            "notes/2026-11-19-deploy.md",
            "notes/pricing.md",
            "notes/ideas.md",
            "notes/zebra.md"
        ]
    );
}
