//! MEMORY.md's head (active projects with their session counts, recent
//! compactions) is counted from per-day totals and the window's two edge
//! days, not by reading every session in the window. These properties hold
//! it to what a full read of the window says, at any window edge, through
//! sessions added, removed and moved between projects, and when the
//! exclusion rules change.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use memsync::compose::Content;
use proptest::prelude::*;

mod common;

use common::hardening::{RENDER_CASES, cases};
use common::{Workspace, now, run_at, session};
use memsync::contract;

/// One generated session: minutes from `now()`, project number, and whether
/// it is private or carries a compaction.
#[derive(Debug, Clone)]
struct Planned {
    minutes: i64,
    project: usize,
    private: bool,
    compacted: bool,
}

const WINDOW_MINUTES: i64 = 30 * 24 * 60;

/// Times crowd the window's edges and day boundaries, where per-day totals
/// and exact edge counts meet.
fn minutes() -> impl Strategy<Value = i64> {
    prop_oneof![
        (-WINDOW_MINUTES - 90..-WINDOW_MINUTES + 90),
        (-3 * 24 * 60..60i64),
        (-WINDOW_MINUTES - 3000..0),
    ]
}

fn planned() -> impl Strategy<Value = Planned> {
    (
        minutes(),
        0..7usize,
        proptest::bool::weighted(0.15),
        proptest::bool::weighted(0.3),
    )
        .prop_map(|(minutes, project, private, compacted)| Planned {
            minutes,
            project,
            private,
            compacted,
        })
}

fn project_path(n: usize) -> String {
    format!("/home/dev/code/proj{n}")
}

fn ended(p: &Planned) -> DateTime<Utc> {
    now() + Duration::minutes(p.minutes)
}

/// Writes the planned session `i` (id `s{i}`).
fn add(ws: &Workspace, i: usize, p: &Planned) -> Vec<String> {
    let mut s = session("default", &format!("s{i}"), ended(p));
    s.project = Some(project_path(p.project));
    s.private = p.private;
    if p.compacted {
        s.compaction = Some(Content {
            body: format!("## Compaction\n\nCompacted s{i}.\n"),
            sentence: Some(format!(
                "Compacted the scan stage work of session s{i} in src/scan.rs and kept the stat cache notes."
            )),
            captured_at: ended(p) - Duration::minutes(5),
        });
    }
    ws.add(&s)
}

/// The head a full read of the window gives: (project, sessions) newest
/// project first, at most five; and the newest three compacted session ids.
fn expected(
    live: &BTreeMap<usize, Planned>,
    hidden: &[usize],
) -> (Vec<(String, usize)>, Vec<String>) {
    let shown: Vec<(&usize, &Planned)> = live
        .iter()
        .filter(|(_, p)| !p.private && !hidden.contains(&p.project))
        .filter(|(_, p)| (-WINDOW_MINUTES..=0).contains(&p.minutes))
        .collect();
    let mut projects: BTreeMap<usize, (i64, usize)> = BTreeMap::new();
    for (_, p) in &shown {
        let e = projects.entry(p.project).or_insert((i64::MIN, 0));
        e.0 = e.0.max(p.minutes);
        e.1 += 1;
    }
    let mut order: Vec<(i64, usize, usize)> = projects
        .into_iter()
        .map(|(proj, (newest, n))| (newest, proj, n))
        .collect();
    order.sort_by_key(|o| std::cmp::Reverse(o.0));
    let heads = order
        .into_iter()
        .take(5)
        .map(|(_, proj, n)| (project_path(proj), n))
        .collect();
    let mut compacted: Vec<(i64, &usize)> = shown
        .iter()
        .filter(|(_, p)| p.compacted)
        .map(|(i, p)| (p.minutes, *i))
        .collect();
    compacted.sort_by_key(|c| std::cmp::Reverse(c.0));
    let compactions = compacted
        .into_iter()
        .take(3)
        .map(|(_, i)| format!("s{i}"))
        .collect();
    (heads, compactions)
}

/// The head MEMORY.md holds: (project, sessions) and the compacted session ids.
fn rendered(md: &str) -> (Vec<(String, usize)>, Vec<String>) {
    let section = |title: &str| -> Vec<String> {
        md.split(&format!("## {title}\n\n"))
            .nth(1)
            .map(|rest| {
                rest.lines()
                    .take_while(|l| l.starts_with("- "))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let projects = section("Active Projects")
        .iter()
        .map(|l| {
            let path = l
                .split(" (")
                .nth(1)
                .and_then(|r| r.split(')').next())
                .unwrap_or("");
            let n = l
                .split("): ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(usize::MAX);
            (path.to_string(), n)
        })
        .collect();
    let compactions = section("Recent Compactions")
        .iter()
        .filter_map(|l| l.split("session=").nth(1).and_then(|r| r.split(' ').next()))
        .map(str::to_string)
        .collect();
    (projects, compactions)
}

/// `session_days` against a count of `sessions` itself: every total the
/// store keeps by hand as a row arrives, leaves or is judged again.
fn day_totals_agree(ws: &Workspace) -> Result<(), TestCaseError> {
    let db = ws.db();
    let read = |sql: &str| -> Vec<(String, String, String, i64)> {
        let mut stmt = db.prepare(sql).expect("statement");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let kept =
        read("SELECT agent_id, day, project, n FROM session_days WHERE n <> 0 ORDER BY 1, 2, 3");
    let counted = read(
        "SELECT agent_id, substr(membership_ts, 1, 10), COALESCE(project, ''), COUNT(*) FROM sessions
         WHERE shown = 1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
    );
    prop_assert_eq!(kept, counted);
    Ok(())
}

/// Distinct minutes: equal times would make "newest" a tie the test does not model.
fn distinct(plans: Vec<Planned>) -> BTreeMap<usize, Planned> {
    let mut seen = std::collections::BTreeSet::new();
    plans
        .into_iter()
        .filter(|p| seen.insert(p.minutes))
        .enumerate()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(RENDER_CASES)))]

    #[test]
    fn the_head_counts_what_a_full_read_of_the_window_counts(
        plans in proptest::collection::vec(planned(), 1..40),
        removed in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        moved in proptest::collection::vec((any::<prop::sample::Index>(), 0..7usize), 0..6),
    ) {
        let ws = Workspace::new();
        let mut live = distinct(plans);
        let mut files = BTreeMap::new();
        for (i, p) in &live {
            files.insert(*i, add(&ws, *i, p));
        }
        ws.sync_at(now());
        prop_assert_eq!(rendered(&ws.read("MEMORY.md")), expected(&live, &[]));
        day_totals_agree(&ws)?;

        // Sessions removed, and sessions recaptured under another project:
        // the per-day totals follow each row that leaves or arrives.
        let ids: Vec<usize> = live.keys().copied().collect();
        for r in &removed {
            let i = ids[r.index(ids.len())];
            if live.remove(&i).is_some() {
                for f in &files[&i] {
                    ws.remove(f);
                }
            }
        }
        for (m, project) in &moved {
            let i = ids[m.index(ids.len())];
            if let Some(p) = live.get_mut(&i) {
                p.project = *project;
                for f in &files[&i] {
                    ws.remove(f);
                }
                files.insert(i, add(&ws, i, p));
            }
        }
        ws.sync_at(now());
        prop_assert_eq!(rendered(&ws.read("MEMORY.md")), expected(&live, &[]));
        day_totals_agree(&ws)?;

        // New rules judge every session again (the CLI reads the workspace's config).
        ws.write(
            "memsync.yaml",
            "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: [\"**/proj1\", \"**/proj4\"]\n",
        );
        let out = run_at(ws.root(), &contract::format_ts(now()), &["sync"]);
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        prop_assert_eq!(rendered(&ws.read("MEMORY.md")), expected(&live, &[1, 4]));
        day_totals_agree(&ws)?;
    }
}

#[test]
fn a_session_recaptured_with_the_same_line_marks_no_projection_dirty() {
    let ws = Workspace::new();
    let at = now() - Duration::hours(2);
    let paths = ws.add(&session("default", "steady", at));
    ws.sync_at(now());
    let mut again = session("default", "steady", at);
    again.summary = Some(Content {
        body: "## Summary\n\nA longer account of the same work on the stat cache.\n".into(),
        sentence: again.summary.as_ref().and_then(|c| c.sentence.clone()),
        captured_at: at,
    });
    for p in &paths {
        ws.remove(p);
    }
    ws.add(&again);
    let rendered_as_of = || -> Vec<String> {
        let db = ws.db();
        let mut stmt = db
            .prepare("SELECT rendered_now FROM projection_state ORDER BY path")
            .expect("statement");
        stmt.query_map([], |r| r.get(0))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows")
    };
    let before = rendered_as_of();
    let report = ws.sync_at(now() + Duration::minutes(1));
    assert!(report.indexed > 0, "the new body is indexed");
    // A render of either file would have recorded the later clock.
    assert_eq!(rendered_as_of(), before);
    assert!(
        report.projections_written.is_empty(),
        "{:?}",
        report.projections_written
    );
    assert_eq!(
        ws.search_json(&["longer account"]).len(),
        1,
        "the new body is searchable"
    );
}
