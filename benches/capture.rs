//! `cargo bench --bench capture`: `capture session-end` of every real session
//! in `../shared/realdata/` (read in place), in-process, each into a fresh
//! workspace (read, clean, sanitize, summarize, sentence, write, index,
//! render): the median and the slowest of `RUNS` captures per file, against
//! the 100 ms budget, and the sanitizer's share of a capture (the median time
//! to sanitize the file's rendered transcript, over the median capture; the
//! budget is 20 %). Skipped, with a message, when the folder is absent.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use memsync::capture::{self, SessionEnd, sanitize};
use memsync::config::{Env, Settings};

const RUNS: usize = 5;
const BUDGET: Duration = Duration::from_millis(100);

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    println!(
        "{:<44} {:>9} {:>8} {:>8} {:>6} {:>10}",
        "session file", "size KiB", "p50 ms", "max ms", "files", "sanitize %"
    );
    let mut over = 0;
    let mut worst_share: f64 = 0.0;
    for file in &files {
        let mut times = Vec::with_capacity(RUNS);
        let mut written = 0;
        for _ in 0..RUNS {
            let tmp = tempfile::tempdir().expect("tempdir");
            let root = tmp.path().join("ws");
            std::fs::create_dir_all(&root).expect("workspace");
            let settings = Settings::load(Some(&root), None, &Env::default()).expect("settings");
            let req = SessionEnd {
                agent_id: "default".into(),
                transcript: file.clone(),
                ..SessionEnd::default()
            };
            let started = Instant::now();
            let report =
                capture::session_end(&settings, chrono::Utc::now(), &req).expect("capture");
            times.push(started.elapsed());
            written = report.written.len();
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let share = 100.0 * ms(sanitize_time(file)) / ms(times[RUNS / 2]);
        worst_share = worst_share.max(share);
        if times[RUNS - 1] > BUDGET {
            over += 1;
        }
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) / 1024;
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{name:<44} {size:>9} {:>8.1} {:>8.1} {written:>6} {share:>10.1}",
            ms(times[RUNS / 2]),
            ms(times[RUNS - 1])
        );
    }
    println!(
        "{} of {} files within {} ms on every run",
        files.len() - over,
        files.len(),
        BUDGET.as_millis()
    );
    println!("the sanitizer takes at most {worst_share:.1} % of a capture (budget 20 %)");
}

/// The median time to sanitize the whole rendered transcript of `file`.
fn sanitize_time(file: &Path) -> Duration {
    let text = std::fs::read_to_string(file).expect("session file");
    let t = memsync::harnesses::read(&text);
    let rendered = t.render(0..t.messages.len());
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(sanitize::sanitize(&rendered));
            started.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}
