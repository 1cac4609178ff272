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

/// Days named in one word in the other languages memsync reads: (the word,
/// days back from today to its first day, its length in days).
const WORD_TIMES: &[(&str, i64, i64)] = &[
    // Spanish, Portuguese, French, German, Italian, Dutch, Russian.
    ("hoy", 0, 1),
    ("ayer", 1, 1),
    ("anteayer", 2, 1),
    ("hoje", 0, 1),
    ("ontem", 1, 1),
    ("anteontem", 2, 1),
    ("aujourd'hui", 0, 1),
    // Not French "hier": German and Dutch "hier" is "here".
    ("avant-hier", 2, 1),
    ("heute", 0, 1),
    ("gestern", 1, 1),
    ("vorgestern", 2, 1),
    ("oggi", 0, 1),
    ("ieri", 1, 1),
    ("vandaag", 0, 1),
    ("gisteren", 1, 1),
    ("сегодня", 0, 1),
    ("вчера", 1, 1),
    ("позавчера", 2, 1),
];

/// The same in Chinese, Japanese and Korean, found inside a run of text
/// (no space sets them apart), and "last week": the fifteen days up to
/// today, as a person's "last week" may mean any of them. Longer first:
/// 前天 before 天.
const CJK_TIMES: &[(&str, i64, i64)] = &[
    ("一昨日", 2, 1),
    ("上个星期", 14, 15),
    ("上星期", 14, 15),
    ("上周", 14, 15),
    ("上週", 14, 15),
    ("先週", 14, 15),
    ("지난주", 14, 15),
    ("그저께", 2, 1),
    ("前天", 2, 1),
    ("昨天", 1, 1),
    ("昨日", 1, 1),
    ("今天", 0, 1),
    ("今日", 0, 1),
    ("어제", 1, 1),
    ("오늘", 0, 1),
];

/// A day or week named in another language than English, and the text
/// without it.
fn other_language_span(text: &str, now: DateTime<Utc>) -> Option<(Span, String)> {
    let today = now.date_naive();
    let span = |back: i64, days: i64| {
        let first = today - Duration::days(back);
        Span::days(first, (first + Duration::days(days - 1)).min(today))
    };
    for (word, back, days) in CJK_TIMES {
        if let Some(at) = text.find(word) {
            let rest = format!("{} {}", &text[..at], &text[at + word.len()..]);
            return Some((span(*back, *days)?, rest.trim().to_string()));
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, raw) in words.iter().enumerate() {
        let bare = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if let Some((_, back, days)) = WORD_TIMES.iter().find(|(w, ..)| *w == bare) {
            let rest: Vec<&str> = (words.iter().enumerate())
                .filter(|(j, _)| *j != i)
                .map(|(_, w)| *w)
                .collect();
            return Some((span(*back, *days)?, rest.join(" ")));
        }
    }
    None
}

/// The first time `text` names, and the text without the words that named it.
pub fn take_span(text: &str, now: DateTime<Utc>) -> (Option<Span>, String) {
    if let Some((span, rest)) = other_language_span(text, now) {
        return (Some(span), rest);
    }
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
            if let Some(found) = named_stretch(&word, next(1)?.as_str(), today) {
                return Some(found);
            }
            // "last Saturday", "this past Friday".
            let at = if next(1).as_deref() == Some("past") {
                2
            } else {
                1
            };
            let day = weekday_before(&next(at)?, today)?;
            return Some((Span::days(day, day)?, at + 1));
        }
        "on" if next(1).is_some_and(|w| weekday(&w).is_some()) => {
            let day = weekday_before(&next(1)?, today)?;
            return Some((Span::days(day, day)?, 2));
        }
        _ => {}
    }
    if let Some((span, used)) = ago(bare, i, today) {
        return Some((span, used));
    }
    // "Saturday", written as a name.
    // Its short form alone ("Sat down", "Sun Microsystems") is no day.
    if raw[i].starts_with(char::is_uppercase)
        && word.len() > 3
        && let Some(day) = weekday_before(&word, today)
    {
        return Some((Span::days(day, day)?, 1));
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

/// "last week", "this month", "last year", "last weekend", "last night",
/// "the past month":
/// a calendar year or month as a person means it ("last year" is the year
/// before this one), a week loosely (the one before this one, so reach back
/// two), the latest weekend before today, or the night before.
fn named_stretch(which: &str, unit: &str, today: NaiveDate) -> Option<(Span, usize)> {
    // "the past week/month/year": that many days back to today.
    if which == "past" {
        let days = match unit {
            "week" => 7,
            "month" => 30,
            "year" => 365,
            _ => return None,
        };
        return Some((Span::days(today - Duration::days(days), today)?, 2));
    }
    let last = which == "last";
    let (first, end) = match unit {
        "week" => (today - Duration::days(if last { 14 } else { 7 }), today),
        "month" => {
            let this = today.with_day(1)?;
            match last {
                true => (
                    this.checked_sub_months(chrono::Months::new(1))?,
                    this.pred_opt()?,
                ),
                false => (this, today),
            }
        }
        "year" => {
            let year = today.year() - i32::from(last);
            let end = if last {
                NaiveDate::from_ymd_opt(year, 12, 31)?
            } else {
                today
            };
            (NaiveDate::from_ymd_opt(year, 1, 1)?, end)
        }
        "weekend" => {
            let sunday = weekday_before("sunday", today + Duration::days(i64::from(!last)))?;
            (sunday.pred_opt()?, sunday)
        }
        "night" => (today.pred_opt()?, today),
        _ => return None,
    };
    Some((Span::days(first, end)?, 2))
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The weekday a word names (`saturday`, `sat`), Monday 0.
fn weekday(word: &str) -> Option<u32> {
    let lower = word.to_lowercase();
    let at = WEEKDAYS
        .iter()
        .position(|d| *d == lower || (lower.len() == 3 && d.starts_with(&lower)))?;
    Some(at as u32)
}

/// The latest day before `today` that is the weekday `word` names.
fn weekday_before(word: &str, today: NaiveDate) -> Option<NaiveDate> {
    let wanted = weekday(word)?;
    let now = today.weekday().num_days_from_monday();
    let back = (now + 7 - wanted) % 7;
    Some(today - Duration::days(i64::from(if back == 0 { 7 } else { back })))
}

/// How many a count phrase says, and its words: "3", "ten", "a", "a couple
/// of", "a few", "several".
fn count_at(bare: &[String], i: usize) -> Option<(f64, usize)> {
    const NUMBERS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    let word = |k: usize| bare.get(i + k).map(|w| w.to_lowercase());
    let first = word(0)?;
    let second = word(1);
    match (first.as_str(), second.as_deref()) {
        ("a", Some("couple")) if word(2).as_deref() == Some("of") => Some((2.0, 3)),
        ("couple", Some("of")) => Some((2.0, 2)),
        ("a", Some("few")) => Some((3.0, 2)),
        ("few" | "several", _) => Some((3.0, 1)),
        ("a" | "an", _) => Some((1.0, 1)),
        ("thirty", _) => Some((30.0, 1)),
        (n, _) => {
            let count = NUMBERS
                .iter()
                .position(|w| *w == n)
                .map(|k| k as f64)
                .or_else(|| n.parse::<u32>().ok().map(f64::from))?;
            Some((count, 1))
        }
    }
}

/// "3 days ago", "ten days ago", "a couple of weeks ago", "a week and a
/// half ago", "one and a half months ago": a stretch around that time, and
/// how many words said it.
fn ago(bare: &[String], i: usize, today: NaiveDate) -> Option<(Span, usize)> {
    let word = |k: usize| bare.get(i + k).map(|w| w.to_lowercase());
    let (mut count, mut used) = count_at(bare, i)?;
    let half = |at: usize| {
        word(at).as_deref() == Some("and")
            && word(at + 1).as_deref() == Some("a")
            && word(at + 2).as_deref() == Some("half")
    };
    if half(used) {
        count += 0.5;
        used += 3;
    }
    let days = match word(used)?.trim_end_matches('s') {
        "day" => 1.0,
        "week" => 7.0,
        "month" => 30.0,
        "year" => 365.0,
        _ => return None,
    };
    used += 1;
    if half(used) {
        count += 0.5;
        used += 3;
    }
    if word(used).as_deref() != Some("ago") {
        return None;
    }
    let centre = today - Duration::days((count * days).round() as i64);
    let slack = Duration::days(((days / 2.0) as i64).max(1));
    Some((Span::days(centre - slack, centre + slack)?, used + 1))
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
    fn days_and_weeks_in_other_languages_count_back_from_now() {
        // now() is 2026-11-20.
        for (text, inside, outside, words_left) in [
            (
                "¿qué rompimos ayer?",
                "2026-11-19",
                "2026-11-17",
                "¿qué rompimos",
            ),
            (
                "qu'avons-nous changé avant-hier ?",
                "2026-11-18",
                "2026-11-20",
                "qu'avons-nous changé ?",
            ),
            (
                "was haben wir gestern repariert?",
                "2026-11-19",
                "2026-11-17",
                "was haben wir repariert?",
            ),
            (
                "o que fizemos hoje",
                "2026-11-20",
                "2026-11-18",
                "o que fizemos",
            ),
            (
                "что мы сломали вчера",
                "2026-11-19",
                "2026-11-17",
                "что мы сломали",
            ),
            (
                "我们昨天修复了什么",
                "2026-11-19",
                "2026-11-17",
                "我们 修复了什么",
            ),
            ("前天的缓存问题", "2026-11-18", "2026-11-16", "的缓存问题"),
            ("上周的重试逻辑", "2026-11-10", "2026-10-20", "的重试逻辑"),
            ("昨日直したバグ", "2026-11-19", "2026-11-17", "直したバグ"),
            (
                "先週のキャッシュ",
                "2026-11-10",
                "2026-10-20",
                "のキャッシュ",
            ),
            ("어제 고친 버그", "2026-11-19", "2026-11-17", "고친 버그"),
        ] {
            let (span, rest) = take_span(text, now());
            let span = span.unwrap_or_else(|| panic!("{text}"));
            assert!(
                span.holds(day(inside)) && !span.holds(day(outside)),
                "{text}"
            );
            assert_eq!(rest, words_left, "{text}");
        }
        // Inside another word it is no day, and German "hier" is "here".
        assert!(take_span("the hierarchy of heuter", now()).0.is_none());
        assert!(take_span("was ist hier kaputt?", now()).0.is_none());
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

    /// The class: "<count> <unit>(s) ago" with every way a person says the
    /// count, halves included; the words are taken out, the time kept.
    #[test]
    fn number_words_couples_and_halves_count_back() {
        // now() is Friday 2026-11-20.
        let counts = [
            ("4", 4.0),
            ("four", 4.0),
            ("ten", 10.0),
            ("twenty", 20.0),
            ("a couple of", 2.0),
            ("couple of", 2.0),
            ("a few", 3.0),
            ("several", 3.0),
            ("a", 1.0),
            ("one and a half", 1.5),
        ];
        for (count, n) in counts {
            for (unit, days) in [("day", 1.0_f64), ("week", 7.0), ("month", 30.0)] {
                let plural = if n == 1.0 {
                    unit.to_string()
                } else {
                    format!("{unit}s")
                };
                let q = format!("the smoker I bought {count} {plural} ago for the patio");
                let (span, rest) = take_span(&q, now());
                let span = span.unwrap_or_else(|| panic!("{q}"));
                let centre = now() - Duration::days((n * days).round() as i64);
                assert!(span.holds(centre), "{q}");
                assert_eq!(rest, "the smoker I bought for the patio", "{q}");
            }
        }
        let (span, rest) = take_span("a week and a half ago we moved", now());
        assert!(span.unwrap().holds(day("2026-11-10")));
        assert_eq!(rest, "we moved");
    }

    #[test]
    fn weekdays_weekends_and_calendar_years_are_what_a_person_means() {
        // now() is Friday 2026-11-20.
        for q in [
            "what did I cook last Saturday",
            "what did I cook on saturday",
            "what did I cook Saturday",
        ] {
            let span = take_span(q, now()).0.unwrap_or_else(|| panic!("{q}"));
            assert!(
                span.holds(day("2026-11-14")) && !span.holds(day("2026-11-12")),
                "{q}"
            );
        }
        assert_eq!(
            take_span("I cook saturday things", now()).0,
            None,
            "a lower-case name alone"
        );
        let weekend = take_span("the hike last weekend", now()).0.unwrap();
        assert!(weekend.holds(day("2026-11-14")) && weekend.holds(day("2026-11-15")));
        assert!(!weekend.holds(day("2026-11-18")));
        let year = take_span("what we shipped last year", now()).0.unwrap();
        assert!(year.holds(day("2025-06-01")) && !year.holds(day("2024-06-01")));
        assert!(
            !year.holds(day("2026-02-01")),
            "last year is the calendar year"
        );
        let month = take_span("bills from last month", now()).0.unwrap();
        assert!(month.holds(day("2026-10-15")) && !month.holds(day("2026-09-15")));
        let past = take_span("in the past month", now()).0.unwrap();
        assert!(past.holds(day("2026-11-01")) && past.holds(day("2026-10-25")));
    }
}
