//! `cargo bench --bench search`: search latency on the generated ~1,750-session
//! workspace, in-process with the index open (what `memsync search` pays after
//! start-up), for one- and three-word queries, common and rare.

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
}
