//! Every number a config can hold, range-checked: a value no date, duration
//! or buffer can hold (`window_days: 100000000`) is a config error naming the
//! key and the range, never an overflow or a panic later.
//!
//! Owns: the ranges. Must not: read files.

use super::Config;

const DAY: u64 = 1;
const TEN_YEARS: u64 = 3650 * DAY;
const GIB: u64 = 1 << 30;
const WEEK_SECONDS: u64 = 7 * 24 * 3600;

/// The first number out of its range, as "key: value is outside lo..=hi (why)".
pub(super) fn check(c: &Config) -> Result<(), String> {
    let ints: [(&str, u64, u64, u64, &str); 25] = [
        (
            "scan.max_file_bytes",
            c.scan.max_file_bytes,
            1,
            4 * GIB,
            "bytes",
        ),
        (
            "memory_md.budget_bytes",
            c.memory_md.budget_bytes as u64,
            100,
            64 << 20,
            "bytes",
        ),
        (
            "memory_md.window_days",
            c.memory_md.window_days as u64,
            1,
            TEN_YEARS,
            "days",
        ),
        (
            "memory_md.head_projects",
            c.memory_md.head_projects as u64,
            0,
            1000,
            "projects",
        ),
        (
            "memory_md.head_compactions",
            c.memory_md.head_compactions as u64,
            0,
            1000,
            "compactions",
        ),
        (
            "sentence.max_words",
            c.sentence.max_words as u64,
            1,
            1000,
            "words",
        ),
        (
            "sentence.timeout_seconds",
            c.sentence.timeout_seconds,
            1,
            3600,
            "seconds",
        ),
        (
            "sentence.per_minute",
            c.sentence.per_minute,
            1,
            600,
            "calls",
        ),
        (
            "summary.timeout_seconds",
            c.summary.timeout_seconds,
            1,
            3600,
            "seconds",
        ),
        ("search.limit", c.search.limit as u64, 1, 1000, "sessions"),
        (
            "capture.hook_idle_ms",
            c.capture.hook_idle_ms,
            1,
            60_000,
            "ms",
        ),
        (
            "capture.job_attempts",
            c.capture.job_attempts as u64,
            1,
            100,
            "attempts",
        ),
        (
            "capture.job_backoff_seconds",
            c.capture.job_backoff_seconds,
            0,
            WEEK_SECONDS,
            "seconds",
        ),
        (
            "capture.job_lease_seconds",
            c.capture.job_lease_seconds,
            1,
            WEEK_SECONDS,
            "seconds",
        ),
        (
            "capture.max_transcript_bytes",
            c.capture.max_transcript_bytes,
            1,
            4 * GIB,
            "bytes",
        ),
        ("watch.debounce_ms", c.watch.debounce_ms, 0, 60_000, "ms"),
        (
            "git.commit_max_delay_seconds",
            c.git.commit_max_delay_seconds,
            1,
            24 * 3600,
            "seconds",
        ),
        (
            "git.commit_quiet_ms",
            c.git.commit_quiet_ms,
            0,
            3_600_000,
            "ms",
        ),
        (
            "watch.reconcile_minutes",
            c.watch.reconcile_minutes,
            1,
            7 * 24 * 60,
            "minutes",
        ),
        (
            "watch.poll_seconds",
            c.watch.poll_seconds,
            1,
            24 * 3600,
            "seconds",
        ),
        (
            "harvest.idle_minutes",
            c.harvest.idle_minutes,
            0,
            7 * 24 * 60,
            "minutes",
        ),
        (
            "harvest.max_age_days",
            c.harvest.max_age_days,
            0,
            TEN_YEARS * 10,
            "days",
        ),
        (
            "harvest.interval_seconds",
            c.harvest.interval_seconds,
            1,
            WEEK_SECONDS,
            "seconds",
        ),
        (
            "harvest.max_file_bytes",
            c.harvest.max_file_bytes,
            1,
            16 * GIB,
            "bytes",
        ),
        (
            "sentence.min_words",
            c.sentence.min_words as u64,
            1,
            1000,
            "words",
        ),
    ];
    for (key, value, lo, hi, unit) in ints {
        if !(lo..=hi).contains(&value) {
            return Err(format!("{key}: {value} is outside {lo} to {hi} {unit}"));
        }
    }
    let s = &c.search;
    let floats = [
        ("search.sentence_weight", s.sentence_weight, 0.0, 100.0),
        (
            "search.recency_half_life_days",
            s.recency_half_life_days,
            0.0,
            36_500.0,
        ),
        ("search.recency_weight", s.recency_weight, 0.0, 100.0),
        (
            "search.usage_half_life_days",
            s.usage_half_life_days,
            0.0,
            36_500.0,
        ),
        ("search.usage_weight", s.usage_weight, 0.0, 100.0),
    ];
    for (key, value, lo, hi) in floats {
        if !(value.is_finite() && (lo..=hi).contains(&value)) {
            return Err(format!("{key}: {value} is outside {lo} to {hi}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_range_and_an_overflowing_window_is_not() {
        assert_eq!(check(&Config::default()), Ok(()));
        let mut c = Config::default();
        c.memory_md.window_days = 100_000_000;
        assert!(
            check(&c)
                .unwrap_err()
                .starts_with("memory_md.window_days: 100000000")
        );
        let mut c = Config::default();
        c.search.recency_weight = f64::NAN;
        assert!(check(&c).is_err());
    }
}
