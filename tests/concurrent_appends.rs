//! Renders never lose a line that another program appends to a projection
//! file while memsync rewrites it (issue 26, defect 1).

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::lines::{LineCount, numbered};
use common::{Workspace, session, ts};

const LINES: usize = 100_000;

/// Appends `LINES` numbered lines to `path`, one open-write-close each, as an
/// agent's `echo >>` or `fs.appendFile` does; pauses now and then so renders
/// interleave with the writes.
fn appender(
    path: PathBuf,
    tag: &'static str,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for i in 0..LINES {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .expect("open for append");
            f.write_all(numbered(tag, i).as_bytes()).expect("append");
            drop(f);
            if i % 100 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        done.store(true, Ordering::SeqCst);
    })
}

#[test]
fn lines_appended_while_renders_run_are_all_kept_in_the_daily_log_and_memory_md() {
    let ws = Workspace::new();
    let day = ts("2026-11-20T09:00:00Z");
    ws.add(&session("default", "first", day));
    ws.sync();
    let (log, md) = (ws.path("memory/2026-11-20.md"), ws.path("MEMORY.md"));
    assert!(log.exists() && md.exists());

    let (log_done, md_done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let writers = [
        appender(log.clone(), "log", log_done.clone()),
        appender(md.clone(), "memory", md_done.clone()),
    ];
    // Every sync brings a new session, so both files are rewritten each time
    // (or, the moment an appender holds one open, left for the next sync).
    let (mut renders, mut logs_written) = (0, 0);
    while !(log_done.load(Ordering::SeqCst) && md_done.load(Ordering::SeqCst)) {
        renders += 1;
        let at = day + chrono::Duration::seconds(renders);
        ws.add(&session("default", &format!("s{renders}"), at));
        let report = ws.sync();
        let log_written = report
            .projections_written
            .iter()
            .any(|p| p == "memory/2026-11-20.md");
        assert!(
            log_written
                || report
                    .projections_held
                    .iter()
                    .any(|p| p == "memory/2026-11-20.md")
        );
        logs_written += usize::from(log_written);
    }
    for w in writers {
        w.join().expect("appender");
    }
    assert!(
        logs_written >= 10,
        "only {logs_written} of {renders} renders rewrote the log during the appends"
    );
    eprintln!("{logs_written} of {renders} renders rewrote the log during the appends");

    for (path, tag) in [(&log, "log"), (&md, "memory")] {
        let text = std::fs::read_to_string(path).expect("read");
        let count = LineCount::of(&text, tag, LINES);
        assert!(
            count.is_whole(),
            "{}: {} over {renders} renders",
            path.display(),
            count.summary(LINES)
        );
        // The managed block is still one block. (MEMORY.md's ledger is empty by
        // now: 100,000 appended lines leave no room in its byte budget.)
        assert_eq!(text.matches("<!-- memsync:begin").count(), 1);
    }
    ws.sync();
    let log = std::fs::read_to_string(&log).expect("read");
    assert!(log.contains(&format!("session=s{renders}")));
}
