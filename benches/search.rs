//! `cargo bench --bench search`: search latency on the generated ~1,750-session
//! workspace, in-process with the index open (what `memsync search` pays after
//! start-up), for one- and three-word queries, common and rare; then the whole
//! `memsync search` process for the workspace's 30 most common words, for
//! 30 one-to-three-word phrases taken from its bodies, and for 10 Chinese and
//! Japanese words inside the runs the generator writes.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use memsync::search::{self, Query};

const RUNS: usize = 200;

fn main() {
    let (_tmp, settings, g) = common::reference_workspace();
    let now = chrono::Utc::now();
    println!("workspace: {} sessions, {} files", g.sessions, g.files);
    let index = memsync::store::Index::open(&settings.index_path()).expect("index");
    let queries = [
        ("1 word, common", "daemon"),
        ("1 word, rare", "signetai"),
        ("3 words", "daemon cache writer"),
        ("3 words, prefix", "dae* cach* writ*"),
        ("1 Chinese word", "重试"),
        ("Chinese + Latin", "修复 lint"),
    ];
    println!(
        "{:<18} {:>8} {:>8} {:>8} {:>6}",
        "query", "p50 ms", "p95 ms", "max ms", "hits"
    );
    for (label, text) in queries {
        let q = Query {
            text: text.into(),
            limit: settings.config.search.limit,
            ..Query::default()
        };
        let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
        let mut hits = 0;
        for _ in 0..RUNS {
            let started = Instant::now();
            hits = search::search(&index, &settings.config.search, &q, now)
                .expect("search")
                .hits
                .len();
            times.push(started.elapsed());
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{label:<18} {:>8.2} {:>8.2} {:>8.2} {hits:>6}",
            ms(times[RUNS / 2]),
            ms(times[RUNS * 95 / 100]),
            ms(times[RUNS - 1])
        );
    }
    drop(index);
    let bodies = bodies(&settings.root);
    println!("\nwhole process, `memsync search <query>`, 3 runs per query");
    println!("{:<34} {:>8} {:>8}", "queries", "p50 ms", "p95 ms");
    for (label, queries) in [
        ("the 30 most common words", common_words(&bodies, 30)),
        ("30 phrases of 1-3 words from bodies", phrases(&bodies, 30)),
        ("10 Chinese and Japanese words", cjk_words()),
    ] {
        let mut times: Vec<Duration> = queries
            .iter()
            .flat_map(|q| (0..3).map(move |_| q))
            .map(|q| whole_process(&settings.root, q))
            .collect();
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let n = times.len();
        println!(
            "{label:<34} {:>8.2} {:>8.2}   (target p50 ≤ 10 ms)",
            ms(times[n / 2]),
            ms(times[n * 95 / 100])
        );
    }
    let (p50, p95) = context_process(&settings.root);
    println!(
        "{:<34} {:>8.2} {:>8.2}   (target p50 ≤ 100 ms)",
        "`memsync context`, 20 runs",
        p50.as_secs_f64() * 1000.0,
        p95.as_secs_f64() * 1000.0
    );
}

/// `memsync context --cwd <project>` as a whole process, 20 runs: its p50 and p95.
fn context_process(root: &Path) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..20)
        .map(|_| {
            let started = Instant::now();
            let status = Command::new(env!("CARGO_BIN_EXE_memsync"))
                .arg("--workspace")
                .arg(root)
                .args(["context", "--cwd", "/home/dev/code/memsync"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("run memsync context");
            assert!(status.success(), "memsync context failed");
            started.elapsed()
        })
        .collect();
    times.sort();
    (times[10], times[19])
}

/// Words inside the Chinese and Japanese clauses the generator writes, one
/// character, two, four, and one beside a Latin word.
fn cjk_words() -> Vec<String> {
    [
        "重试",
        "退避",
        "资源调度",
        "リトライ",
        "管理",
        "盘前",
        "修改配置文件",
        "试",
        "修复 lint",
        "缓存",
    ]
    .map(String::from)
    .to_vec()
}

/// One `memsync search` process, start to exit, printing its results (not
/// `-q`, which would skip rendering them) to a pipe nobody reads.
fn whole_process(root: &Path, query: &str) -> Duration {
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(root)
        .args(["search", query])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run memsync search");
    assert!(status.success(), "memsync search {query:?} failed");
    started.elapsed()
}

/// The bodies of the workspace's summaries and transcripts (frontmatter dropped).
fn bodies(root: &Path) -> Vec<String> {
    std::fs::read_dir(root.join("memory"))
        .expect("memory dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with("--summary.md") || name.ends_with("--transcript.md")
        })
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .map(|text| match text.splitn(3, "---\n").nth(2) {
            Some(body) => body.to_string(),
            None => text,
        })
        .collect()
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
}

fn common_words(bodies: &[String], n: usize) -> Vec<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for w in bodies.iter().flat_map(|b| words(b)) {
        *counts.entry(w).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(n).map(|(w, _)| w).collect()
}

/// `n` phrases of 1, 2 and 3 consecutive words, spread over the bodies.
fn phrases(bodies: &[String], n: usize) -> Vec<String> {
    let step = (bodies.len() / n).max(1);
    bodies
        .iter()
        .step_by(step)
        .take(n)
        .enumerate()
        .filter_map(|(i, body)| {
            let w: Vec<String> = words(body).skip(7).take(i % 3 + 1).collect();
            (!w.is_empty()).then(|| format!("\"{}\"", w.join(" ")))
        })
        .collect()
}
