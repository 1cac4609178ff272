//! Times a question names: "in May", "May 8, 2023", "2023", "last week",
//! "yesterday", "3 days ago", "2026-11-01". They are no words to match (a
//! session about May rarely says "May"); ranking boosts the sessions of that
//! time instead (`search::rank`). Days are taken in UTC and widened by half a
//! day on each side, so a session late in the evening anywhere still counts.
//!
//! Owns: finding a time in query text. Must not: rank or run SQL.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};

/// A stretch of time a query named.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

impl Span {
    pub fn holds(&self, t: DateTime<Utc>) -> bool {
        self.from <= t && t < self.to
    }

    fn days(first: NaiveDate, last: NaiveDate) -> Option<Span> {
        let slack = Duration::hours(12);
        Some(Span {
            from: first.and_hms_opt(0, 0, 0)?.and_utc() - slack,
            to: last.succ_opt()?.and_hms_opt(0, 0, 0)?.and_utc() + slack,
        })
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The first time `text` names, and the text without the words that named it.
pub fn take_span(text: &str, now: DateTime<Utc>) -> (Option<Span>, String) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                .to_string()
        })
        .collect();
    for i in 0..words.len() {
        if let Some((span, used)) = span_at(&bare, &words, i, now) {
            let rest: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j < i || *j >= i + used)
                .map(|(_, w)| *w)
                .collect();
            return (Some(span), rest.join(" "));
        }
    }
    (None, text.to_string())
}

/// The span named by the words from `i`, and how many words name it.
fn span_at(bare: &[String], raw: &[&str], i: usize, now: DateTime<Utc>) -> Option<(Span, usize)> {
    let word = bare[i].to_lowercase();
    let next = |k: usize| bare.get(i + k).map(|w| w.to_lowercase());
    let today = now.date_naive();
    if let Ok(day) = NaiveDate::parse_from_str(&word, "%Y-%m-%d") {
        return Some((Span::days(day, day)?, 1));
    }
    match word.as_str() {
        "today" => return Some((Span::days(today, today)?, 1)),
        "yesterday" => {
            let day = today.pred_opt()?;
            return Some((Span::days(day, day)?, 1));
        }
        "last" | "past" | "this" => {
            let (back, len) = match next(1)?.as_str() {
                "week" => (7, 7),
                "month" => (30, 30),
                "year" => (365, 365),
                "night" => (0, 1),
                _ => return None,
            };
            // "last week" is loosely the one before this one: reach back twice as far.
            let reach = if word == "last" { back + len } else { len };
            return Some((Span::days(today - Duration::days(reach), today)?, 2));
        }
        _ => {}
    }
    if let Some(span) = ago(&word, next(1).as_deref(), next(2).as_deref(), today) {
        return Some((span, 3));
    }
    // "May I ask…", "May we…": a question's first word before a pronoun is the verb.
    let verb_at_start = i == 0
        && matches!(
            next(1).as_deref(),
            Some("i" | "we" | "you" | "he" | "she" | "they" | "it")
        );
    if let Some(month) = month_of(&bare[i], raw[i]).filter(|_| !verb_at_start) {
        return month_span(bare, i, month, today);
    }
    // "8 May 2023"
    if let (Ok(day), Some(m)) = (word.parse::<u32>(), bare.get(i + 1))
        && (1..=31).contains(&day)
        && let Some(month) = month_of(m, raw[i + 1])
    {
        let (span, used) = month_span(bare, i + 1, month, today)?;
        let year = span_year(&span);
        let date = NaiveDate::from_ymd_opt(year, month, day)?;
        return Some((Span::days(date, date)?, used + 1));
    }
    if let Ok(year) = word.parse::<i32>()
        && word.len() == 4
        && (1990..=2099).contains(&year)
    {
        let first = NaiveDate::from_ymd_opt(year, 1, 1)?;
        let last = NaiveDate::from_ymd_opt(year, 12, 31)?;
        return Some((Span::days(first, last)?, 1));
    }
    None
}

/// "3 days ago", "a week ago", "two months ago": a stretch around that time.
fn ago(n: &str, unit: Option<&str>, ago: Option<&str>, today: NaiveDate) -> Option<Span> {
    if ago != Some("ago") {
        return None;
    }
    let count: i64 = match n {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "few" | "several" => 3,
        n => n.parse().ok()?,
    };
    let days = match unit?.trim_end_matches('s') {
        "day" => 1,
        "week" => 7,
        "month" => 30,
        "year" => 365,
        _ => return None,
    };
    let centre = today - Duration::days(count.checked_mul(days)?);
    let half = Duration::days((days / 2).max(1));
    Span::days(centre - half, centre + half)
}

/// The month a word names: any case, except "May" and "March", which must be
/// capitalised to be a month rather than a verb; three-letter forms too.
fn month_of(bare: &str, raw: &str) -> Option<u32> {
    let lower = bare.to_lowercase();
    let at = MONTHS.iter().position(|m| {
        *m == lower || (lower.len() == 3 && m.starts_with(&lower) && lower != "mar")
    })?;
    let verb_like = matches!(lower.as_str(), "may" | "march");
    if verb_like
        && !raw
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .starts_with(char::is_uppercase)
    {
        return None;
    }
    Some(at as u32 + 1)
}

/// A month, with the day and year that follow it when written ("May 8, 2023",
/// "May 2023"); a month with no year is its latest one not after today.
fn month_span(bare: &[String], i: usize, month: u32, today: NaiveDate) -> Option<(Span, usize)> {
    let mut used = 1;
    let mut day = None;
    if let Some(d) = bare.get(i + 1).and_then(|w| {
        w.trim_end_matches(|c: char| c.is_alphabetic())
            .parse::<u32>()
            .ok()
    }) && (1..=31).contains(&d)
        && bare[i + 1].len() <= 4
    {
        day = Some(d);
        used += 1;
    }
    let year = match bare.get(i + used).and_then(|w| w.parse::<i32>().ok()) {
        Some(y) if (1990..=2099).contains(&y) => {
            used += 1;
            y
        }
        _ if month > today.month() => today.year() - 1,
        _ => today.year(),
    };
    let first = NaiveDate::from_ymd_opt(year, month, day.unwrap_or(1))?;
    let last = match day {
        Some(_) => first,
        None => {
            let next = if month == 12 {
                NaiveDate::from_ymd_opt(year + 1, 1, 1)?
            } else {
                NaiveDate::from_ymd_opt(year, month + 1, 1)?
            };
            next.pred_opt()?
        }
    };
    Some((Span::days(first, last)?, used))
}

fn span_year(span: &Span) -> i32 {
    (span.from + Duration::hours(12)).year()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        crate::contract::parse_ts("2026-11-20T12:00:00Z").unwrap()
    }

    fn day(s: &str) -> DateTime<Utc> {
        crate::contract::parse_ts(&format!("{s}T12:00:00Z")).unwrap()
    }

    #[test]
    fn months_years_and_days_are_taken_out_of_the_words() {
        let (span, rest) = take_span("what did Caroline do in May 2023?", now());
        let span = span.unwrap();
        assert!(span.holds(day("2023-05-20")) && !span.holds(day("2023-06-03")));
        assert_eq!(rest, "what did Caroline do in");
        let (span, _) = take_span("the talk on 8 May, 2023", now());
        let span = span.unwrap();
        assert!(span.holds(day("2023-05-08")) && !span.holds(day("2023-05-10")));
        let (span, _) = take_span("fixed in 2024", now());
        assert!(span.unwrap().holds(day("2024-07-01")));
    }

    #[test]
    fn relative_times_count_back_from_now() {
        let (span, rest) = take_span("what broke yesterday", now());
        assert!(span.unwrap().holds(day("2026-11-19")));
        assert_eq!(rest, "what broke");
        let (span, _) = take_span("the retry fix last week", now());
        let span = span.unwrap();
        assert!(span.holds(day("2026-11-10")) && !span.holds(day("2026-10-20")));
        let (span, _) = take_span("two weeks ago", now());
        assert!(span.unwrap().holds(day("2026-11-06")));
        let (span, _) = take_span("in October", now());
        assert!(span.unwrap().holds(day("2026-10-15")));
        let (span, _) = take_span("in December", now());
        assert!(
            span.unwrap().holds(day("2025-12-15")),
            "the latest December"
        );
    }

    #[test]
    fn may_the_verb_is_no_month() {
        assert_eq!(take_span("it may fail", now()).0, None);
        assert_eq!(take_span("the march of time", now()).0, None);
        assert_eq!(take_span("May I ask what we fixed?", now()).0, None);
        assert!(take_span("May 2026 was busy", now()).0.is_some());
    }
}
