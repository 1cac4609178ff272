//! The progress bar on stderr for long runs (a cold sync, a reindex, a first
//! harvest): drawn only on a terminal, outside CI, when there is enough to do.
//!
//! Honest: it names what it counts, and shows a time left only once the rate
//! is known (a second in, and a twentieth done), as the plain average so far;
//! indicatif's early estimate said "23m" for a job of 1.4 s.

use std::time::Duration;

use indicatif::{HumanDuration, ProgressState, ProgressStyle};

use crate::pipeline;

/// A progress bar on stderr, hidden until `begin` says there is enough to do.
pub struct TerminalProgress {
    bar: indicatif::ProgressBar,
    /// What the bar is doing (`indexing`) and what it counts (`files`).
    doing: &'static str,
    unit: &'static str,
}

impl TerminalProgress {
    /// Fewer items than this finish before a bar would be worth drawing.
    const MIN_ITEMS: u64 = 500;

    /// `None` unless stderr is a terminal and `CI` is unset; `quiet` turns it off.
    pub fn for_stderr(quiet: bool) -> Option<TerminalProgress> {
        use std::io::IsTerminal;
        let wanted = !quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        wanted.then(|| TerminalProgress {
            bar: indicatif::ProgressBar::hidden(),
            doing: "indexing",
            unit: "files",
        })
    }

    /// The same bar, doing and counting something else.
    pub fn doing(self, doing: &'static str, unit: &'static str) -> TerminalProgress {
        TerminalProgress {
            doing,
            unit,
            ..self
        }
    }
}

/// The time left, once it can be told: `None` before a second has passed or
/// a twentieth is done; then the average time per item so far, times what is left.
pub fn time_left(elapsed: Duration, done: u64, total: u64) -> Option<Duration> {
    if elapsed < Duration::from_secs(1) || done == 0 || done * 20 < total {
        return None;
    }
    let per_item = elapsed.as_secs_f64() / done as f64;
    Some(Duration::from_secs_f64(
        per_item * total.saturating_sub(done) as f64,
    ))
}

fn write_time_left(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let total = state.len().unwrap_or(0);
    if let Some(left) = time_left(state.elapsed(), state.pos(), total) {
        let _ = write!(w, "{} left", HumanDuration(left));
    }
}

impl pipeline::Progress for TerminalProgress {
    fn begin(&self, total: u64) {
        if total < Self::MIN_ITEMS {
            return;
        }
        self.bar.set_length(total);
        let template = format!(
            "{{spinner}} {} {{pos}}/{{len}} {} {{wide_bar}} {{time_left}}",
            self.doing, self.unit
        );
        let style = ProgressStyle::with_template(&template)
            .map(|s| s.with_key("time_left", write_time_left))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        self.bar.set_style(style);
        self.bar
            .set_draw_target(indicatif::ProgressDrawTarget::stderr());
    }

    fn advance(&self) {
        self.bar.inc(1);
    }

    fn end(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_time_left_is_shown_before_the_rate_is_known() {
        let s = Duration::from_secs;
        assert_eq!(time_left(Duration::from_millis(300), 400, 1000), None);
        assert_eq!(time_left(s(5), 10, 1000), None);
        assert_eq!(time_left(s(2), 100, 1000), Some(s(18)));
        assert_eq!(time_left(s(3), 1000, 1000), Some(s(0)));
    }
}
