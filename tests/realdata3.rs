//! The third set of real sessions, `../shared/realdata3/` with its
//! `LABELS.json` (read in place, never copied here): the validation set of
//! issue 63. Capture's rules are written for classes of sessions (and
//! proved on generated variants elsewhere); this set checks them on files
//! nobody wrote a rule for. Every file a supported harness wrote is
//! captured or refused as labelled, no labelled credential reaches any file
//! memsync writes, and the sentences name the labelled request and outcome
//! at least as often as today (a ratchet: raise it as capture improves).
//! Skipped, with a message, when the folder is absent.

mod common;

use common::labels;

const NOW: &str = "2026-11-28T12:00:00Z";

#[test]
fn the_validation_set_is_captured_or_refused_as_labelled_with_no_credential_written() {
    let Some(dir) = labels::folder("realdata3") else {
        return;
    };
    let v = labels::judge_folder(&dir, NOW);
    eprintln!("realdata3: {}", v.score);
    for miss in v.wrong.iter().chain(&v.unfound) {
        eprintln!("  {miss}");
    }
    assert!(v.wrong.is_empty(), "{:#?}", v.wrong);
    assert!(
        v.leaks.is_empty(),
        "{} leaks:\n{:#?}",
        v.leaks.len(),
        v.leaks
    );
    // 2026-11-28, session 33: 24 captured; requests 19 (15 before the
    // session's class rules), outcomes 21 (18), clean 22 (19); 1 search of
    // 72 unfound ("Médiamétrie" in an Aider chat).
    let score = &v.score;
    assert!(
        score.request >= 24 && score.outcome >= 23 && score.clean >= 24,
        "fewer sentences name their session than before:\n{score}"
    );
    assert!(v.unfound.is_empty(), "{:#?}", v.unfound);
}
