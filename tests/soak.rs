//! The long soak (issue 68): two clones of one workspace, each with its
//! daemon, an agent capturing sessions into each (and forgetting some) and
//! committing them, and pulls and pushes every few seconds, for an hour.
//! Nothing captured is lost, nothing forgotten comes back, nothing lands in
//! `.memsync/edits/` (no person typed), the daemons' open files and memory
//! stay flat, they commit at least once per `git.commit_max_delay_seconds`,
//! and both clones end with the same MEMORY.md.
//!
//! Each clone's person runs one git command at a time (an agent's commit and
//! a pull started together in one repository race inside git itself: the
//! first short runs lost sessions that way, with memsync not involved).
//!
//! Not part of `.ci/run` (an hour): run it with
//! `MEMSYNC_SOAK_MINUTES=60 cargo test --release --test soak -- --ignored --nocapture`
//! (any number of minutes; 5 is a quick look).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::daemon::Daemon;
use common::gitrepo::{capture, commit_all, git, memsync, try_git, two_clones};

/// The daemons' longest wait for quiet before they commit anyway.
const MAX_DELAY_SECONDS: u64 = 60;

/// One reading of a daemon's open files and resident memory: all of it
/// (`VmRSS`), and its anonymous part (`RssAnon`: the heap and stacks, what
/// a leak or state kept without bound grows). The rest is the binary's
/// code paged in as more of it runs (bounded by its size, shared, and the
/// kernel's to drop) and the index's mapped WAL index.
#[derive(Debug, Clone, Copy)]
struct Sample {
    fds: usize,
    rss_kib: u64,
    anon_kib: u64,
}

fn sample(pid: i32) -> Option<Sample> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib = |key: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Some(Sample {
        fds,
        rss_kib: kib("VmRSS:")?,
        anon_kib: kib("RssAnon:")?,
    })
}

/// Seconds between two readings of the daemons.
const SAMPLE_EVERY: u64 = 5;

/// How many readings make the window the issue compares: the first and the
/// last ten minutes of a run, or its first and last third when it is
/// shorter than half an hour.
fn window(len: usize) -> usize {
    let ten_minutes = (600 / SAMPLE_EVERY) as usize;
    ten_minutes.min(len / 3).max(1)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn least(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The mean of the first and of the last window of `values`.
fn first_and_last(values: &[f64]) -> (f64, f64) {
    let w = window(values.len());
    (mean(&values[..w]), mean(&values[values.len() - w..]))
}

/// What the daemon holds at rest, between batches (a sample taken while a
/// batch runs holds that batch's buffers too, which follow the size of the
/// file it renders: one day's log in this soak holds a thousand sessions),
/// once warm: the least of the window at the run's middle and of the last
/// one. The first minutes are left out because the heap grows to its
/// working set there: measured, 1.4 MiB at start and 2.2-2.3 MiB from the
/// quarter-hour to the hour. What grows without bound still grows between
/// the middle and the end.
fn floors_once_warm(values: &[f64]) -> (f64, f64) {
    let w = window(values.len());
    let middle = values.len() / 2;
    (
        least(&values[middle..(middle + w).min(values.len())]),
        least(&values[values.len() - w..]),
    )
}

/// The session ids whose summaries a clone holds.
fn sessions(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root.join("memory"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with("--summary.md"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .filter_map(|t| {
                    t.lines()
                        .find_map(|l| l.strip_prefix("session_id: "))
                        .map(|v| v.trim_matches('"').to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// An agent in `root`: a session every `pace`, every tenth one forgetting
/// the session five before it, each change committed as a git plugin would.
fn agent(
    root: PathBuf,
    name: &'static str,
    pace: Duration,
    stop: Arc<AtomicBool>,
    ledger: Arc<Mutex<(Vec<String>, Vec<String>)>>,
    person: Arc<Mutex<()>>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let inputs = tempfile::tempdir().unwrap();
        let mut i = 0;
        while !stop.load(Ordering::Relaxed) {
            let id = format!("{name}-{i}");
            capture(&root, inputs.path(), &id, 0);
            ledger.lock().unwrap().0.push(id);
            if i % 10 == 9 {
                let doomed = format!("{name}-{}", i - 5);
                memsync(&root, &["-q", "forget", &doomed, "--reason", "soak"]).success();
                ledger.lock().unwrap().1.push(doomed);
            }
            // The daemon may be committing too: a busy index is tried next round.
            {
                let _person = person.lock().unwrap();
                let _ = try_git(&root, &["add", "-A"]).and_then(|_| {
                    try_git(&root, &["commit", "-q", "-m", &format!("agent {name} {i}")])
                });
            }
            i += 1;
            std::thread::sleep(pace);
        }
    })
}

/// A person pulling and pushing `root` every few seconds; counts failures.
/// The person runs one git command at a time: a commit and a pull started
/// together in one repository race inside git itself (the merge checks out
/// a tree computed from the HEAD before the commit, deleting the commit's
/// new files, then fails to move HEAD), whatever memsync does.
fn puller(
    root: PathBuf,
    stop: Arc<AtomicBool>,
    person: Arc<Mutex<()>>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut failed = 0;
        while !stop.load(Ordering::Relaxed) {
            let _person = person.lock().unwrap();
            if try_git(&root, &["pull", "-q", "--no-edit", "origin", "main"]).is_err()
                || try_git(&root, &["push", "-q", "origin", "main"]).is_err()
            {
                failed += 1;
            }
            drop(_person);
            std::thread::sleep(Duration::from_secs(4));
        }
        failed
    })
}

/// When the daemon of `root` committed, in seconds since the epoch.
fn daemon_commits(root: &Path) -> Vec<u64> {
    let mut at: Vec<u64> = git(root, &["log", "--format=%ct %an %s"])
        .lines()
        .filter(|l| l.ends_with("memsync: update projections"))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    at.sort_unstable();
    at
}

#[test]
#[ignore = "an hour: MEMSYNC_SOAK_MINUTES=60 cargo test --release --test soak -- --ignored --nocapture"]
fn two_clones_an_agent_and_pulls_lose_nothing_and_the_daemons_stay_flat() {
    let minutes: u64 = std::env::var("MEMSYNC_SOAK_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(60);
    let tmp = tempfile::tempdir().unwrap();
    // Kept for a look when MEMSYNC_SOAK_KEEP is set.
    let tmp_path = tmp.path().to_path_buf();
    let _removed_at_end = match std::env::var_os("MEMSYNC_SOAK_KEEP") {
        Some(_) => {
            eprintln!("soak workspace kept at {}", tmp.keep().display());
            None
        }
        None => Some(tmp),
    };
    let (_remote, a, b) = two_clones(&tmp_path, "# Memory\n\nCurated by hand.\n");
    let config = std::fs::read_to_string(a.join("memsync.yaml")).unwrap();
    std::fs::write(
        a.join("memsync.yaml"),
        format!("{config}  commit_max_delay_seconds: {MAX_DELAY_SECONDS}\n"),
    )
    .unwrap();
    commit_all(&a, "soak settings");
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let daemons = [Daemon::start(&a), Daemon::start(&b)];
    let stop = Arc::new(AtomicBool::new(false));
    let ledger = Arc::new(Mutex::new((Vec::new(), Vec::new())));
    // One person per clone, running one git command at a time.
    let people = [Arc::new(Mutex::new(())), Arc::new(Mutex::new(()))];
    let agents = [
        agent(
            a.clone(),
            "a",
            Duration::from_secs(1),
            stop.clone(),
            ledger.clone(),
            people[0].clone(),
        ),
        agent(
            b.clone(),
            "b",
            Duration::from_secs(3),
            stop.clone(),
            ledger.clone(),
            people[1].clone(),
        ),
    ];
    let pullers = [
        puller(a.clone(), stop.clone(), people[0].clone()),
        puller(b.clone(), stop.clone(), people[1].clone()),
    ];

    let mut samples: [Vec<Sample>; 2] = [Vec::new(), Vec::new()];
    let end = Instant::now() + Duration::from_secs(minutes * 60);
    while Instant::now() < end {
        for (d, s) in daemons.iter().zip(samples.iter_mut()) {
            s.extend(sample(d.pid()));
        }
        std::thread::sleep(Duration::from_secs(SAMPLE_EVERY));
    }
    stop.store(true, Ordering::Relaxed);
    agents.into_iter().for_each(|t| t.join().unwrap());
    let pull_failures: usize = pullers.into_iter().map(|t| t.join().unwrap()).sum();
    let ended = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for d in daemons {
        assert!(d.stop().success());
    }
    // Both clones converge: commit, pull, sync, push, twice round.
    for _ in 0..2 {
        for clone in [&a, &b] {
            commit_all(clone, "converge");
            git(clone, &["pull", "-q", "--no-edit", "origin", "main"]);
            memsync(clone, &["-q", "sync"]).success();
            commit_all(clone, "converge");
            git(clone, &["push", "-q", "origin", "main"]);
        }
    }
    git(&a, &["pull", "-q", "--no-edit", "origin", "main"]);
    memsync(&a, &["-q", "sync"]).success();

    let (captured, forgotten) = ledger.lock().unwrap().clone();
    let want: BTreeSet<String> = captured
        .iter()
        .filter(|s| !forgotten.contains(s))
        .cloned()
        .collect();
    eprintln!(
        "soak {minutes} min: {} sessions captured, {} forgotten, {pull_failures} pulls or pushes refused",
        captured.len(),
        forgotten.len()
    );
    for clone in [&a, &b] {
        let held = sessions(clone);
        let lost: Vec<_> = want.difference(&held).collect();
        let back: Vec<_> = held
            .intersection(&forgotten.iter().cloned().collect())
            .cloned()
            .collect();
        assert!(lost.is_empty(), "{}: lost {lost:?}", clone.display());
        assert!(back.is_empty(), "{}: resurrected {back:?}", clone.display());
        let kept = std::fs::read_dir(clone.join(".memsync/edits"))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(
            kept,
            0,
            "{}: blocks kept as a person's edits",
            clone.display()
        );
    }
    assert_eq!(
        std::fs::read(a.join("MEMORY.md")).unwrap(),
        std::fs::read(b.join("MEMORY.md")).unwrap(),
        "the clones render different bytes"
    );
    let commits = daemon_commits(&a);
    let during: Vec<u64> = commits
        .into_iter()
        .filter(|t| (started..=ended).contains(t))
        .collect();
    let gaps = during.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    eprintln!(
        "daemon a: {} commits, longest gap {gaps} s (max delay {MAX_DELAY_SECONDS} s)",
        during.len()
    );
    assert!(!during.is_empty(), "the daemon never committed");
    assert!(gaps <= 2 * MAX_DELAY_SECONDS, "no commit for {gaps} s");
    let mut climbs = Vec::new();
    for (name, s) in ["a", "b"].iter().zip(&samples) {
        let series = |f: fn(&Sample) -> u64| -> (f64, f64) {
            first_and_last(&s.iter().map(|x| f(x) as f64).collect::<Vec<_>>())
        };
        let (fd_first, fd_last) = series(|x| x.fds as u64);
        let (rss_first, rss_last) = series(|x| x.rss_kib);
        let (anon_first, anon_last) = series(|x| x.anon_kib);
        let anon: Vec<f64> = s.iter().map(|x| x.anon_kib as f64).collect();
        let (rest_first, rest_last) = floors_once_warm(&anon);
        eprintln!(
            "daemon {name}: open files {fd_first:.1} -> {fd_last:.1}, RSS {:.1} -> {:.1} MiB, of it anonymous {:.2} -> {:.2} MiB (at rest once warm {:.2} -> {:.2}) ({} samples)",
            rss_first / 1024.0,
            rss_last / 1024.0,
            anon_first / 1024.0,
            anon_last / 1024.0,
            rest_first / 1024.0,
            rest_last / 1024.0,
            s.len()
        );
        if fd_last > fd_first * 1.1 + 1.0 {
            climbs.push(format!("daemon {name}: open files climb"));
        }
        if rss_last > rss_first * 1.1 {
            climbs.push(format!("daemon {name}: resident memory climbs"));
        }
        if rest_last > rest_first * 1.1 {
            climbs.push(format!("daemon {name}: memory it keeps at rest climbs"));
        }
    }
    assert!(climbs.is_empty(), "{climbs:?}");
}
