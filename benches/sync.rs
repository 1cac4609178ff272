//! `cargo bench --bench sync`: the core-engine benchmark on the generated
//! ~1,750-session workspace (50 sessions/day × 30 days plus 250 older).
//!
//! Reports, for the release binary: cold sync, no-op re-sync, re-sync after 10
//! changed files, peak RSS, a full render of every projection with a warm index,
//! and the floor (reading + sha256 of the same bytes, and FTS-indexing them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use memsync::config::{Env, Settings};
use memsync::generate::{self, Shape};
use rayon::prelude::*;

const RUNS: usize = 7;

#[path = "support/scales.rs"]
mod scales;

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    let settings = Settings::load(Some(&root), None, &Env::default()).expect("settings");
    let now = chrono::Utc::now();
    // The zone is fixed so every machine renders the same days.
    let mut settings = settings;
    settings.config.daily_logs.timezone = "UTC".into();
    let g = generate::generate(&root, now, Shape::default(), &settings.config).expect("generate");
    println!(
        "workspace: {} sessions, {} files, {:.1} MB in {}",
        g.sessions,
        g.files,
        g.bytes as f64 / 1e6,
        root.display()
    );
    settle();

    // Cold: an empty index and no projections, three times, each paired with
    // the naive loader (benches/floor_loader.py) on the same files.
    let loader_db = tmp.path().join("floor.db");
    let mut peak_rss = 0;
    // Each pair: (our wall time, the loader's wall time, our CPU, its CPU).
    let mut pairs: Vec<(Duration, Duration, Duration, Duration)> = (0..3)
        .map(|_| {
            reset(&root);
            let started = Instant::now();
            let (rss, our_cpu) = sync_usage(&root);
            peak_rss = peak_rss.max(rss);
            let ours = started.elapsed();
            reset(&root);
            let started = Instant::now();
            let loader_cpu = floor_loader(&root, &loader_db);
            (ours, started.elapsed(), our_cpu, loader_cpu)
        })
        .collect();
    reset(&root);
    sync(&root);
    let cold = median(pairs.iter().map(|p| p.0).collect());
    let loader = median(pairs.iter().map(|p| p.1).collect());
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let sorted = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>()
    };
    let ratios = sorted(pairs.iter().map(|p| ratio(p.0, p.1)).collect());
    let cpu_ratios = sorted(pairs.iter().map(|p| ratio(p.2, p.3)).collect());
    pairs.sort_by_key(|p| p.2);
    let (cpu, loader_cpu) = (pairs[1].2, pairs[1].3);
    let noop = median(
        (0..RUNS)
            .map(|_| {
                time(|| {
                    sync(&root);
                })
            })
            .collect(),
    );
    let summaries = summaries(&root, 10);
    let changed = median(
        (0..RUNS)
            .map(|i| {
                for p in &summaries {
                    rewrite_body(p, i);
                }
                time(|| {
                    sync(&root);
                })
            })
            .collect(),
    );
    // In-process, with the index held open: what the daemon pays per reconcile.
    let mut index = memsync::store::Index::open(&settings.index_path()).expect("index");
    let opts = memsync::pipeline::SyncOptions::RENDER;
    let lib_sync = |index: &mut memsync::store::Index| {
        memsync::pipeline::sync_with(index, &settings, chrono::Utc::now(), opts).expect("sync");
    };
    lib_sync(&mut index);
    let noop_lib = median((0..RUNS).map(|_| time(|| lib_sync(&mut index))).collect());
    let changed_lib = median(
        (0..RUNS)
            .map(|i| {
                for p in &summaries {
                    rewrite_body(p, RUNS + i);
                }
                time(|| lib_sync(&mut index))
            })
            .collect(),
    );
    let changed_paths: Vec<String> = summaries
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let changed_given = median(
        (0..RUNS)
            .map(|i| {
                for p in &summaries {
                    rewrite_body(p, 2 * RUNS + i);
                }
                time(|| {
                    memsync::pipeline::sync_paths(
                        &mut index,
                        &settings,
                        chrono::Utc::now(),
                        opts,
                        &changed_paths,
                    )
                    .expect("sync paths");
                })
            })
            .collect(),
    );
    drop(index);
    // Warm: one connection, one render first, then the timed ones.
    let mut index = memsync::store::Index::open(&settings.index_path()).expect("index");
    full_render(&mut index, &settings, now);
    let render = median(
        (0..RUNS)
            .map(|_| full_render(&mut index, &settings, now))
            .collect(),
    );
    drop(index);
    let event_1x = scales::per_event(&root, &settings);
    let scaled: Vec<scales::Scale> = [(4, false), (16, true), (32, false)]
        .into_iter()
        .map(|(times, events)| scales::measure(tmp.path(), now, times, events))
        .collect();
    let (read_1, read_n) = floor_read_hash(&root);
    let fts = floor_fts(&root);
    let (read_1, read_n, fts) = (once(read_1), once(read_n), once(fts));

    let rows = [
        (
            "cold sync, release binary, median of 3 fresh builds (process start included)",
            ms(cold),
            "≤ 1000 ms",
        ),
        (
            "floor: benches/floor_loader.py (read, sha256, one FTS5 table, one transaction), same runs",
            ms(loader),
            "",
        ),
        (
            "cold sync ÷ floor loader, wall time, per pair (sorted)",
            ratios.join(", "),
            "≤ 1.0",
        ),
        (
            "CPU (user + system, all threads): cold sync / floor loader, the pair of median sync CPU",
            format!(
                "{:.0} ms / {:.0} ms",
                cpu.as_secs_f64() * 1000.0,
                loader_cpu.as_secs_f64() * 1000.0
            ),
            "",
        ),
        (
            "cold sync ÷ floor loader, CPU, per pair (sorted)",
            cpu_ratios.join(", "),
            "≤ 1.4",
        ),
        ("no-op re-sync, binary", ms(noop), "≤ 40 ms"),
        (
            "re-sync after 10 changed files, binary",
            ms(changed),
            "≤ 60 ms",
        ),
        (
            "no-op re-sync, in-process with the index open",
            ms(noop_lib),
            "",
        ),
        (
            "re-sync after 10 changed files, in-process",
            ms(changed_lib),
            "≤ 50 ms",
        ),
        (
            "re-sync of 10 changed files given their paths (watch, capture)",
            ms(changed_given),
            "",
        ),
        (
            "peak RSS of a cold sync process, 1×",
            format!("{:.1} MiB", peak_rss as f64 / 1024.0),
            "≤ 64 MiB",
        ),
        (
            "one daemon event (a summary's body rewritten, reconciled by path), in-process, 1×",
            ms(event_1x.body),
            "",
        ),
        (
            "one daemon event (a summary's ledger sentence rewritten: MEMORY.md and today's log re-rendered), 1×",
            ms(event_1x.line),
            "",
        ),
        (
            "render every projection, warm index, no writes",
            ms(render),
            "≤ 20 ms",
        ),
        ("floor: read + sha256 all files, 1 thread", ms(read_1), ""),
        ("floor: read + sha256 all files, all cores", ms(read_n), ""),
        (
            "floor: FTS5-index all files in one transaction",
            ms(fts),
            "",
        ),
    ];
    println!("\nmedian (and minimum) of {RUNS} runs where repeated; cold sync of 3\n");
    println!("| measure | figure | target |");
    println!("|---|---|---|");
    for (what, figure, target) in rows {
        println!("| {what} | {figure} | {target} |");
    }
    println!("\nscales (--per-day and --older times the reference; one cold sync each)\n");
    println!(
        "| scale | sessions | files | cold sync | cold peak RSS (≤ 64 MiB) | no-op re-sync | daemon event: body edited | daemon event: ledger line changed (≤ 1.5× the 1× figures) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| 1× | {} | {} | {} | {:.1} MiB | {} | {} | {} |",
        g.sessions,
        g.files,
        ms(cold),
        peak_rss as f64 / 1024.0,
        ms(noop),
        ms(event_1x.body),
        ms(event_1x.line)
    );
    for s in &scaled {
        println!(
            "| {}× | {} | {} | {} | {:.1} MiB | {} | {} | {} |",
            s.times,
            s.sessions,
            s.files,
            ms(once(s.cold)),
            s.cold_rss_kib as f64 / 1024.0,
            ms(once(s.noop)),
            s.per_event.map_or("".into(), |e| ms(e.body)),
            s.per_event.map_or("".into(), |e| ms(e.line))
        );
    }
}

/// Lets a freshly generated workspace become what a real one is before
/// anything is timed: older than the stat cache's racy window (files younger
/// are re-hashed), and on disk, so the kernel's write-back of the generated
/// files does not compete with the run being timed.
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
    // SAFETY: sync(2) takes no arguments and cannot fail.
    unsafe { libc::sync() };
}

fn ms(t: Timing) -> String {
    let f = |d: Duration| d.as_secs_f64() * 1000.0;
    format!("{:.1} ms (min {:.1})", f(t.median), f(t.min))
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// Repeated timings: the median, and the minimum (the cost with the least
/// interference from the rest of the machine).
#[derive(Clone, Copy)]
struct Timing {
    median: Duration,
    min: Duration,
}

fn once(d: Duration) -> Timing {
    Timing { median: d, min: d }
}

fn median(mut v: Vec<Duration>) -> Timing {
    v.sort();
    Timing {
        median: v[v.len() / 2],
        min: v[0],
    }
}

/// Runs `memsync sync`; returns the process's peak RSS in KiB.
fn sync(root: &Path) -> i64 {
    sync_usage(root).0
}

/// Runs `memsync sync`; returns its peak RSS in KiB and its CPU time.
fn sync_usage(root: &Path) -> (i64, Duration) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memsync"));
    cmd.args(["-q", "--workspace"])
        .arg(root)
        .arg("sync")
        .env("TZ", "UTC");
    run_measured(cmd, "memsync sync")
}

/// Runs a program to its end; returns its own peak RSS in KiB and the CPU
/// time it used (user and system, all its threads).
#[allow(clippy::zombie_processes)] // wait4 below reaps it
fn run_measured(mut cmd: Command, what: &str) -> (i64, Duration) {
    let child = cmd.spawn().expect(what);
    // wait4 gives this child's own usage (RUSAGE_CHILDREN would mix the runs).
    let mut status = 0;
    // SAFETY: wait4 only writes into the status and rusage we pass.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::wait4(child.id() as i32, &mut status, 0, &mut usage);
        usage
    };
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{what} failed"
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (usage.ru_maxrss, tv(usage.ru_utime) + tv(usage.ru_stime))
}

/// Removes the index and every projection, as before a first sync.
fn reset(root: &Path) {
    let _ = std::fs::remove_dir_all(root.join(".memsync"));
    let _ = std::fs::remove_dir_all(root.join("agents"));
    let _ = std::fs::remove_file(root.join("MEMORY.md"));
    for entry in std::fs::read_dir(root.join("memory"))
        .expect("memory dir")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.len() == 13 && name.ends_with(".md") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn summaries(root: &Path, n: usize) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = std::fs::read_dir(root.join("memory"))
        .expect("memory dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with("--summary.md"))
        .collect();
    all.sort();
    all.into_iter().rev().take(n).collect()
}

/// A new body with a matching checksum: a valid edit, as a re-capture would write.
fn rewrite_body(path: &Path, round: usize) {
    rewrite(path, round, false);
}

/// A new body with a matching checksum and, with `new_line`, a new
/// ledger sentence (MEMORY.md and the day's log change too).
fn rewrite(path: &Path, round: usize, new_line: bool) {
    let text = std::fs::read_to_string(path).expect("read");
    let (head, _) = text.rsplit_once("---\n").expect("frontmatter");
    let body = format!("## Summary\n\nRevised summary, round {round}.\n");
    let sha = memsync::contract::body_sha256(&body);
    let head: String = head
        .lines()
        .map(|l| {
            if l.starts_with("content_sha256:") {
                format!("content_sha256: \"{sha}\"")
            } else if new_line && l.starts_with("memory_sentence:") {
                format!("memory_sentence: \"Reworked the parser and daemon handler, round {round}, touching web/app.tsx and noted the follow-up.\"")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(path, format!("{head}\n---\n{body}")).expect("write");
}

/// Renders every projection (forced by forgetting the projection settings' fingerprint).
fn full_render(
    index: &mut memsync::store::Index,
    settings: &Settings,
    now: chrono::DateTime<chrono::Utc>,
) -> Duration {
    index
        .set_meta("projection_config", "")
        .expect("force full render");
    let t = Instant::now();
    memsync::project::render(
        index,
        settings,
        now,
        memsync::files::WhileHeld::Defer,
        memsync::project::Compare::Every,
        &|| None,
    )
    .expect("render");
    t.elapsed()
}

fn files(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root.join("memory"))
        .expect("memory dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.to_string_lossy().contains("--"))
        .collect()
}

fn floor_read_hash(root: &Path) -> (Duration, Duration) {
    let files = files(root);
    let one = time(|| {
        for f in &files {
            let bytes = std::fs::read(f).expect("read");
            std::hint::black_box(memsync::contract::sha256_hex(&bytes));
        }
    });
    let all = time(|| {
        files.par_iter().for_each(|f| {
            let bytes = std::fs::read(f).expect("read");
            std::hint::black_box(memsync::contract::sha256_hex(&bytes));
        })
    });
    (one, all)
}

/// The naive loader, whole process.
/// Runs the naive loader; returns the CPU time it used.
fn floor_loader(root: &Path, db: &Path) -> Duration {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/floor_loader.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg(root).arg(db);
    run_measured(cmd, "python3 runs the floor loader").1
}

fn floor_fts(root: &Path) -> Duration {
    let bodies: Vec<String> = files(root)
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read"))
        .collect();
    let mut db = rusqlite::Connection::open_in_memory().expect("sqlite");
    db.execute_batch("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61')")
        .expect("fts");
    time(|| {
        let tx = db.transaction().expect("tx");
        {
            let mut stmt = tx
                .prepare("INSERT INTO t(body) VALUES (?1)")
                .expect("prepare");
            for b in &bodies {
                stmt.execute([b]).expect("insert");
            }
        }
        tx.commit().expect("commit");
    })
}
