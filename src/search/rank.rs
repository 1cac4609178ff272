//! The order of hits: relevance first, recency and use only between near-ties.
//!
//! ```text
//! relevance = bm25 × (matched / words)^COVERAGE_POWER × (TIME_BOOST if in the named time)
//! score     = relevance × (1 + recency_weight × 0.5^(age_days / recency_half_life_days))
//!                       × (1 + usage_weight × ln(1 + uses × 0.5^(days_since_use / usage_half_life_days)))
//! ```
//!
//! bm25 runs over the query's words joined with OR, so it already favours a
//! session with more and rarer words; the share of the words a session holds
//! (`matched / words`) puts a session holding all of them ahead of one with a
//! single rare word repeated. The default weights of recency and use are
//! small (5 %), so they reorder sessions whose relevance is within a few
//! percent and never a clearly better match (measured by `cargo bench
//! --bench recall`: a larger recency weight moved top hits to wrong sessions).
//!
//! Among the first ranked, a word a session holds only under another word of
//! its stem (`statue` for `status`) counts less than one held as written
//! (`exact`).
//!
//! A session that only asked the question again ranks below the sessions
//! that did work on it (`echo`). A session of a narrow named time that holds
//! no word comes in at half the best match's bm25 (`search::in_the_time`).
//!
//! Owns: the score. Must not: choose candidates or build hits.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::{Reading, echo, exact};
use crate::config::SearchConfig;
use crate::contract;
use crate::error::Result;
use crate::store::Index;

/// How strongly the share of the query's words a session holds counts.
const COVERAGE_POWER: f64 = 1.0;
/// A session in the time the query names counts this many times over.
const TIME_BOOST: f64 = 2.0;
/// A session of a narrow named time that holds none of the query's words
/// counts as this share of the best match's bm25 (`search::in_the_time`).
pub(super) const TIME_ONLY_SHARE: f64 = 0.5;

/// A matching session before it is ranked: only what ranking needs.
pub(super) struct Candidate {
    pub fts_id: i64,
    pub agent_id: String,
    pub token: String,
    pub relevance: f64,
    pub membership_ts: String,
    pub private: bool,
    pub project: Option<String>,
    pub accesses: i64,
    pub last_access: Option<String>,
    /// How many of the query's words it holds.
    pub matched: usize,
    /// Which of them, one bit a term in query order (at most 24 terms).
    pub held: u32,
    /// Its one-line memory, for telling a session that only asked the question.
    pub sentence: String,
    /// It is here only for being in the time the query names: its relevance
    /// is already decided, and it holds no word.
    pub by_time_only: bool,
}

/// The candidates with their scores, best first; ties go to the newer
/// session, then the token, so an order never depends on the index's.
pub(super) fn rank(
    index: &Index,
    cfg: &SearchConfig,
    reading: &Reading,
    mut kept: Vec<Candidate>,
    now: DateTime<Utc>,
) -> Result<Vec<(f64, Candidate)>> {
    count_words(index, reading, &mut kept)?;
    let words = reading.terms.len();
    let mut ranked: Vec<(f64, Candidate)> = kept
        .into_iter()
        .map(|c| {
            let coverage = match words {
                _ if c.by_time_only => 1.0,
                0 | 1 => 1.0,
                n => (c.matched as f64 / n as f64).powf(COVERAGE_POWER),
            };
            let in_time = !c.by_time_only
                && reading.span.is_some_and(|span| {
                    contract::parse_ts(&c.membership_ts).is_some_and(|t| span.holds(t))
                });
            let mut c = c;
            c.relevance *= coverage * if in_time { TIME_BOOST } else { 1.0 };
            (score(cfg, c.relevance, &c, now), c)
        })
        .collect();
    best_first(&mut ranked);
    Ok(ranked)
}

/// Best score first; ties go to the newer session, then the token.
fn best_first(ranked: &mut [(f64, Candidate)]) {
    ranked.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| b.1.membership_ts.cmp(&a.1.membership_ts))
            .then_with(|| a.1.token.cmp(&b.1.token))
    });
}

/// Lowers the first `window` ranked by what their matched words are held
/// only under another word of the same stem (`exact`), and ranks again:
/// between near-equals, the session that says the word asked comes first.
pub(super) fn prefer_exact(
    index: &Index,
    reading: &Reading,
    ranked: &mut [(f64, Candidate)],
    window: usize,
) -> Result<()> {
    let words: Vec<Option<String>> = reading.words.iter().map(|w| exact::checkable(w)).collect();
    if reading.explicit || words.iter().all(Option::is_none) {
        return Ok(());
    }
    let window = window.min(ranked.len());
    let ids: Vec<i64> = (ranked[..window].iter())
        .filter(|(_, c)| !c.by_time_only)
        .map(|(_, c)| c.fts_id)
        .collect();
    let heads: HashMap<i64, (String, bool)> = (index.document_heads(&ids, exact::READ_AT_MOST)?)
        .into_iter()
        .map(|h| (h.fts_id, (h.text.to_ascii_lowercase(), h.cut)))
        .collect();
    for (score, c) in &mut ranked[..window] {
        let Some((text, cut)) = heads.get(&c.fts_id) else {
            continue;
        };
        let stem_only = (words.iter().enumerate())
            .filter(|(i, w)| c.held & (1 << i) != 0 && w.is_some())
            .filter(|(_, w)| w.as_deref().is_some_and(|w| !exact::holds_a_form(text, w)))
            .count();
        if *cut || stem_only == 0 {
            continue;
        }
        let share = exact::share(c.matched, stem_only);
        c.relevance *= share;
        *score *= share;
    }
    best_first(ranked);
    Ok(())
}

/// Moves the sessions that only asked the question again below the work
/// (`echo::demote`), looking at the first `window` ranked only: an echo
/// further down is shown nowhere, work further down is too weak to set
/// above it, and telling an echo costs a pass over its sentence.
pub(super) fn demote_echoes(ranked: &mut Vec<(f64, Candidate)>, reading: &Reading, window: usize) {
    if reading.explicit {
        return;
    }
    let (asked, words) = (&reading.words, reading.terms.len());
    let rest = ranked.split_off(window.min(ranked.len()));
    echo::demote(
        ranked,
        |c| echo::only_asked(&c.sentence, asked),
        |c| echo::enough_words(c.matched, words),
    );
    ranked.extend(rest);
}

/// Fills in how many of the query's words each candidate holds: one query a
/// word, over the candidates only.
fn count_words(index: &Index, reading: &Reading, kept: &mut [Candidate]) -> Result<()> {
    if reading.terms.len() < 2 || kept.is_empty() {
        for c in kept.iter_mut() {
            (c.matched, c.held) = match c.by_time_only {
                true => (0, 0),
                false => (reading.terms.len(), (1 << reading.terms.len()) - 1),
            };
        }
        return Ok(());
    }
    let ids: Vec<i64> = kept.iter().map(|c| c.fts_id).collect();
    let mut held: HashMap<i64, u32> = HashMap::new();
    for (i, term) in reading.terms.iter().enumerate().take(32) {
        for id in index.holding(term, &ids)? {
            *held.entry(id).or_default() |= 1 << i;
        }
    }
    for c in kept.iter_mut() {
        c.held = held.get(&c.fts_id).copied().unwrap_or(0);
        c.matched = c.held.count_ones() as usize;
    }
    Ok(())
}

/// relevance × recency boost × usage boost (the formula above).
fn score(cfg: &SearchConfig, relevance: f64, c: &Candidate, now: DateTime<Utc>) -> f64 {
    let days_since = |ts: &str| {
        contract::parse_ts(ts)
            .map(|t| ((now - t).num_seconds() as f64 / 86_400.0).max(0.0))
            .unwrap_or(f64::INFINITY)
    };
    let half = |days: f64, half_life: f64| {
        if half_life > 0.0 {
            0.5f64.powf(days / half_life)
        } else {
            0.0
        }
    };
    let recency = half(days_since(&c.membership_ts), cfg.recency_half_life_days);
    let uses = c.accesses as f64
        * c.last_access
            .as_deref()
            .map_or(0.0, |t| half(days_since(t), cfg.usage_half_life_days));
    relevance * (1.0 + cfg.recency_weight * recency) * (1.0 + cfg.usage_weight * (1.0 + uses).ln())
}
