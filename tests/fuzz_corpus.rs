//! Replays the fuzz corpus, and every crash the fuzzer ever found, through
//! the same property checks the `cargo fuzz` targets run (`fuzz/checks.rs`),
//! so a fixed crash stays fixed without a nightly toolchain.

#![allow(dead_code)]

include!("../fuzz/checks.rs");

mod common;

use common::hardening::FUZZ_TARGETS;

/// Every input kept for `target`: its corpus and its crash artifacts.
fn inputs(target: &str) -> Vec<std::path::PathBuf> {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files: Vec<_> = ["corpus", "artifacts"]
        .iter()
        .filter_map(|kind| std::fs::read_dir(fuzz.join(kind).join(target)).ok())
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// A target's property check.
type Check = fn(&[u8]);

#[test]
fn every_kept_fuzz_input_passes_its_target_checks() {
    let check: &[(&str, Check)] = &[
        ("frontmatter", frontmatter),
        ("normalize", normalize),
        ("wikilinks", wikilinks),
        ("sanitizer", sanitizer),
        ("sentence", sentence),
    ];
    assert_eq!(
        check.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        FUZZ_TARGETS,
        "a fuzz target without a replay here"
    );
    for (target, run) in check {
        let files = inputs(target);
        assert!(!files.is_empty(), "no corpus for {target}");
        for file in files {
            let data = std::fs::read(&file).expect("read corpus file");
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(
                outcome.is_ok(),
                "{target}: {} fails its checks",
                file.display()
            );
        }
    }
}
