//! `sanitize_transcript_v5`: the deterministic, versioned sanitizer every
//! transcript (and every captured summary or compaction body) passes through
//! before a byte of it is written.
//!
//! Owns: normalisation and secret redaction of text. Must not: do I/O.
//!
//! Order (fixed, part of the version): NUL bytes dropped; line endings, trailing
//! whitespace and trailing blank lines normalised as in `body-normalized-v1`;
//! then each rule of [`rules::RULES`] in turn, replacing a secret with
//! `[REDACTED:<kind>]`; then standalone AWS secret keys. A later version must
//! get a new id and a migration note (docs/CAPTURE.md).
//!
//! The rules find a secret two ways: by its **shape** (a provider's prefix, a
//! PEM block, a Telegram bot token, four groups of four letters alone on a
//! line) and by its **context** (what precedes it: a key name in any language,
//! `PASSWORD '…'` in SQL, `curl -u`, `mysql -p`, a connection string, "the
//! password is" in prose). Which values a context rule may take is decided in
//! [`values`], so code and prose stay intact.

mod rules;
mod values;

use std::collections::BTreeMap;

use regex::Captures;

use rules::{Accept, RULES, Rule};

pub const SANITIZER_VERSION: &str = "sanitize_transcript_v5";

/// Sanitized text and how many secrets of each kind were redacted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sanitized {
    pub text: String,
    pub redactions: BTreeMap<&'static str, usize>,
    /// The secrets redacted (their exact bytes, each once) and their kinds.
    pub secrets: BTreeMap<String, &'static str>,
}

/// The credentials a session holds, wherever the rules recognised one: v4
/// redacts every copy of each in every text of the session, also where it
/// stands without a key (`DB_PASSWORD=x` once, then `'x'` as an argument, in
/// backticks, in a compaction or a summary).
#[derive(Debug, Clone, Default)]
pub struct Known {
    secrets: Vec<(String, &'static str)>,
}

impl Known {
    /// Learns the secrets `found` redacted that are safe to look for anywhere.
    pub fn learn(&mut self, found: &Sanitized) {
        for (secret, kind) in &found.secrets {
            if spreads(secret) && !self.secrets.iter().any(|(s, _)| s == secret) {
                self.secrets.push((secret.clone(), *kind));
            }
        }
        // Longest first: a secret that contains another is redacted whole.
        self.secrets
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
    }

    /// `found` with every remaining copy of a known secret redacted too.
    pub fn redact(&self, mut found: Sanitized) -> Sanitized {
        for (secret, kind) in &self.secrets {
            let copies = found.text.matches(secret.as_str()).count();
            if copies > 0 {
                found.text = found
                    .text
                    .replace(secret.as_str(), &format!("[REDACTED:{kind}]"));
                *found.redactions.entry(kind).or_insert(0) += copies;
            }
        }
        found
    }
}

/// Whether a redacted value is looked for everywhere else: long enough, and
/// not a plain word, number or identifier that also names other things (a
/// password `cortexbuild` that is the project's name, a numeric PIN).
fn spreads(secret: &str) -> bool {
    let chars = secret.chars().count();
    let plain = secret.chars().all(|c| c.is_ascii_lowercase())
        || secret.chars().all(|c| c.is_ascii_digit())
        || secret.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    chars >= 8 && !plain && !secret.contains('\n')
}

/// Sanitizes `text` with `sanitize_transcript_v5`.
pub fn sanitize(text: &str) -> Sanitized {
    let mut text = crate::contract::normalize_body(&text.replace('\0', ""));
    let mut redactions = BTreeMap::new();
    let mut secrets = BTreeMap::new();
    // A match whose value ends early (`x&next=…`) leaves its tail unscanned,
    // and one rule's redaction can expose text to another: run the rules
    // again until a pass redacts nothing more, so sanitizing is idempotent.
    for _ in 0..8 {
        let mut redacted = false;
        for rule in RULES.iter() {
            let mut kinds: Vec<&'static str> = Vec::new();
            let replaced =
                rule.pattern
                    .replace_all(&text, |caps: &Captures<'_>| match redact(rule, caps) {
                        Some((out, kind, secret)) => {
                            kinds.push(kind);
                            secrets.entry(secret).or_insert(kind);
                            out
                        }
                        None => caps[0].to_string(),
                    });
            if kinds.is_empty() {
                continue;
            }
            redacted = true;
            text = replaced.into_owned();
            for kind in kinds {
                *redactions.entry(kind).or_insert(0) += 1;
            }
        }
        // The AWS secret is judged by its neighbourhood, not a rule; it is
        // part of the pass because taking it can split a value a rule kept
        // whole (`KEY=…<secret>(API_KEY=…`) and expose the rest.
        let (after, aws) = values::aws_secrets(&text);
        if !aws.is_empty() {
            redacted = true;
            text = after;
            *redactions.entry("aws-secret-key").or_insert(0) += aws.len();
            secrets.extend(aws.into_iter().map(|s| (s, "aws-secret-key")));
        }
        if !redacted {
            break;
        }
    }
    Sanitized {
        text,
        redactions,
        secrets,
    }
}

/// The replacement for one match, the kind it redacted and the secret, or
/// `None` to keep it.
fn redact(rule: &Rule, caps: &Captures<'_>) -> Option<(String, &'static str, String)> {
    let Some(group) = rule.value_group else {
        let secret = caps[0].to_string();
        return Some((format!("[REDACTED:{}]", rule.kind), rule.kind, secret));
    };
    let whole = caps.get(0)?;
    let value = caps.get(group)?;
    // An earlier rule (or pass) has already taken this one's secret; the
    // value judges in `values` rely on this and never see a redaction.
    if whole.as_str().contains("[REDACTED") {
        return None;
    }
    // An unquoted value may run into the next query parameter (`x&page=2`): that part stays.
    let secret = values::without_next_parameter(value.as_str());
    let kind = match rule.accept {
        Accept::Assignment => {
            values::is_secret_value(&caps[1], secret).then(|| values::assignment_kind(&caps[1]))
        }
        Accept::ForeignKey => {
            // A value that runs on into a word (`oubli|é`) is a word, not a password.
            let explicit = caps.get(2).is_some_and(|sep| !sep.as_str().is_empty());
            (caps.get(4).is_none() && values::is_foreign_secret(&caps[1], secret, explicit))
                .then_some(rule.kind)
        }
        Accept::Prose => values::is_prose_secret(secret).then_some(rule.kind),
        Accept::Paired => values::is_paired_secret(secret).then_some(rule.kind),
        Accept::AppPassword => values::is_app_password(secret).then_some(rule.kind),
        Accept::MailPassword => values::is_mail_password(secret).then_some(rule.kind),
        Accept::UrlKey => values::is_url_key(secret).then_some(rule.kind),
        Accept::NotPlaceholder => {
            (!values::is_placeholder(secret.trim_matches(['"', '\'', '`']))).then_some(rule.kind)
        }
    }?;
    let start = value.start() - whole.start();
    let keep_before = &whole.as_str()[..start];
    let keep_after = &whole.as_str()[start + secret.len()..];
    let redacted = format!("{keep_before}[REDACTED:{kind}]{keep_after}");
    Some((redacted, kind, secret.to_string()))
}

#[cfg(test)]
mod tests;
