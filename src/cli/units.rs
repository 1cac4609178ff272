//! How sizes and long lists of written files read in a report: short.
//!
//! Owns: those two wordings. Must not: decide what is reported.

use super::terminal::shown;

/// `512 B`, `152 KiB`, `31.1 MiB`, `2.4 GiB`.
pub(super) fn human_bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let n_f = n as f64;
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{} KiB", n / 1024),
        1_048_576..1_073_741_824 => format!("{:.1} MiB", n_f / KIB / KIB),
        _ => format!("{:.1} GiB", n_f / KIB / KIB / KIB),
    }
}

/// The projections a sync wrote, in one short line: the MEMORY.md files by
/// name, the daily logs as a count and their first and last day.
pub(super) fn written_summary(paths: &[String]) -> String {
    let is_daily = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.len() == 13
            && name.ends_with(".md")
            && chrono::NaiveDate::parse_from_str(&name[..10], "%Y-%m-%d").is_ok()
    };
    let (daily, other): (Vec<&String>, Vec<&String>) = paths.iter().partition(|p| is_daily(p));
    let mut parts: Vec<String> = other.iter().map(|p| shown(p).into_owned()).collect();
    match daily.as_slice() {
        [] => {}
        [one] => parts.push(shown(one).into_owned()),
        many => {
            let mut days: Vec<&str> = many
                .iter()
                .map(|p| p.rsplit('/').next().unwrap_or(p).trim_end_matches(".md"))
                .collect();
            days.sort_unstable();
            parts.push(format!(
                "{} daily logs ({} … {})",
                many.len(),
                days[0],
                days[days.len() - 1]
            ));
        }
    }
    parts.join(", ")
}
