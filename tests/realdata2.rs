//! The second set of real sessions, `../shared/realdata2/` with its
//! `LABELS.json` (read in place, never copied here): every file a supported
//! harness wrote is captured or refused as its label says, no labelled
//! credential reaches any file memsync writes, the index included (its
//! `-wal` and `-shm` too), and the ledger sentences name the labelled
//! request and outcome at least as often as they do today (a ratchet: raise
//! it as capture improves). Skipped, with a message, when the folder is absent.

mod common;

use common::labels;

const NOW: &str = "2026-11-26T12:00:00Z";

#[test]
fn every_labelled_session_is_captured_or_refused_and_no_credential_is_written_anywhere() {
    let Some(dir) = labels::folder("realdata2") else {
        return;
    };
    let v = labels::judge_folder(&dir, NOW);
    eprintln!("realdata2: {}", v.score);
    assert!(v.wrong.is_empty(), "{:#?}", v.wrong);
    assert!(v.unfound.is_empty(), "{:#?}", v.unfound);
    // Today's figures (2026-11-27): requests 19, outcomes 19, clean 19 of 19.
    let score = &v.score;
    assert!(
        score.request >= 19 && score.outcome >= 19 && score.clean >= 19,
        "fewer sentences name their session than before:\n{score}"
    );
    assert!(
        v.credentials >= 8,
        "only {} labelled credentials found",
        v.credentials
    );
    assert!(
        v.leaks.is_empty(),
        "{} leaks:\n{:#?}",
        v.leaks.len(),
        v.leaks
    );
}
