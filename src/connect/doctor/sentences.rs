//! `doctor` on the memory sentences: who writes them, whether the
//! harness's program can be started, and whether its calls keep falling back.
//!
//! Owns: that check's wording. Must not: call a model.

use chrono::{Duration, Utc};

use super::Check;
use crate::config::Settings;
use crate::wiring::{broken, ok, program_exists, state};

/// How many calls, all fallen back, make doctor call the provider broken.
const ALL_FAILED_AFTER: i64 = 3;

/// The sentence provider's check; none when no provider is configured.
pub(super) fn checks(settings: &Settings) -> Vec<Check> {
    let cfg = &settings.config.sentence;
    let Some(provider) = cfg.provider() else {
        return Vec::new();
    };
    let name = provider.name();
    let program = cfg.program.as_deref().or(match provider {
        crate::config::SentenceProvider::Harness(h) => {
            crate::capture::model::harness::default_program(h)
        }
        _ => None,
    });
    if let Some(program) = program
        && !program_exists(program)
    {
        return vec![state(broken(
            format!(
                "memory sentences by {name}: its program `{program}` is not found, so every sentence falls back"
            ),
            Some(format!(
                "set sentence.program to the path of `{program}` in the machine config (the daemon's PATH may lack it)"
            )),
        ))];
    }
    let stats = crate::store::model_calls::ModelCallLedger::open_existing(&settings.state_dir())
        .ok()
        .flatten()
        .and_then(|l| l.stats_since(Utc::now() - Duration::days(7)).ok())
        .unwrap_or_default();
    if stats.ok == 0 && stats.fallback >= ALL_FAILED_AFTER {
        let why = stats.reasons.first().map_or("", |(r, _)| r.as_str());
        return vec![state(broken(
            format!(
                "memory sentences by {name}: all {} calls of the last 7 days fell back (most: {why})",
                stats.fallback
            ),
            Some("memsync log and `memsync status` show each reason; docs/CONFIGURATION.md#memory-sentences".into()),
        ))];
    }
    vec![state(ok(format!(
        "memory sentences by {name}: {} ok, {} fallback in the last 7 days",
        stats.ok, stats.fallback
    )))]
}
