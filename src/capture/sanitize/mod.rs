//! `sanitize_transcript_v7`: the deterministic, versioned sanitizer every
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

pub const SANITIZER_VERSION: &str = "sanitize_transcript_v7";

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
            // `"apiKey": "AIza…"` took the quotes with the value; its copies
            // elsewhere stand bare ("the key AIza… is restricted").
            let secret = secret.trim_matches(['"', '\'', '`']);
            if spreads(secret) && !self.secrets.iter().any(|(s, _)| s == secret) {
                self.secrets.push((secret.to_string(), *kind));
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

/// Sanitizes `text` with `sanitize_transcript_v7`.
pub fn sanitize(text: &str) -> Sanitized {
    let mut text = match text.contains('\0') {
        true => crate::contract::normalize_body(&text.replace('\0', "")),
        false => crate::contract::normalize_body(text),
    };
    let mut redactions = BTreeMap::new();
    let mut secrets = BTreeMap::new();
    loop {
        apply_rules(&mut text, &mut redactions, &mut secrets);
        // The AWS secret is judged by its neighbourhood, not a rule. Taking
        // it can split a value a rule kept whole (`KEY=…<secret>(API_KEY=…`)
        // and expose the rest, so the rules run again after it took one.
        let Some((after, aws)) = values::aws_secrets(&text) else {
            break;
        };
        text = after;
        *redactions.entry("aws-secret-key").or_insert(0) += aws.len();
        secrets.extend(aws.into_iter().map(|s| (s, "aws-secret-key")));
    }
    Sanitized {
        text,
        redactions,
        secrets,
    }
}

/// Runs every rule over `text` until a pass redacts nothing more: one
/// rule's redaction can expose text to another, and sanitizing must be
/// idempotent. Each pass that goes on took at least one secret out, so the
/// text's length bounds the passes; in practice there are one or two.
fn apply_rules(
    text: &mut String,
    redactions: &mut BTreeMap<&'static str, usize>,
    secrets: &mut BTreeMap<String, &'static str>,
) {
    for _ in 0..=text.len() {
        let mut redacted = false;
        for rule in RULES.iter() {
            let Some((replaced, kinds)) = apply(rule, text, secrets) else {
                continue;
            };
            redacted = true;
            *text = replaced;
            for kind in kinds {
                *redactions.entry(kind).or_insert(0) += 1;
            }
        }
        if !redacted {
            return;
        }
    }
}

/// `text` with every secret `rule` finds redacted, and the kinds it
/// redacted; `None` when it found none. A value that ends early (`x&next=…`)
/// is redacted alone and the search goes on right after it, so the next
/// parameter is judged in the same pass.
fn apply(
    rule: &Rule,
    text: &str,
    secrets: &mut BTreeMap<String, &'static str>,
) -> Option<(String, Vec<&'static str>)> {
    let mut out = String::new();
    let mut kinds = Vec::new();
    let (mut copied, mut at) = (0, 0);
    while at <= text.len() {
        let Some(caps) = rule.pattern.captures_at(text, at) else {
            break;
        };
        let whole = caps.get(0)?;
        let Some((span, kind, secret)) = redact(rule, &caps) else {
            // Past the match; an empty one moves on a character.
            at = match whole.end() > whole.start() {
                true => whole.end(),
                false => next_char(text, whole.end()),
            };
            continue;
        };
        out.push_str(&text[copied..span.start]);
        out.push_str(&format!("[REDACTED:{kind}]"));
        kinds.push(kind);
        secrets.entry(secret).or_insert(kind);
        copied = span.end;
        at = match span.end > whole.start() {
            true => span.end,
            false => next_char(text, whole.start()),
        };
    }
    if kinds.is_empty() {
        return None;
    }
    out.push_str(&text[copied..]);
    Some((out, kinds))
}

/// The byte offset of the character after the one at `i`.
fn next_char(text: &str, i: usize) -> usize {
    text[i..]
        .chars()
        .next()
        .map_or(text.len() + 1, |c| i + c.len_utf8())
}

/// The span of `text` one match redacts, the kind and the secret, or `None`
/// to keep it.
fn redact(
    rule: &Rule,
    caps: &Captures<'_>,
) -> Option<(std::ops::Range<usize>, &'static str, String)> {
    let whole = caps.get(0)?;
    let Some(group) = rule.value_group else {
        return Some((whole.range(), rule.kind, whole.as_str().to_string()));
    };
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
        Accept::Passphrase => values::is_passphrase(secret).then_some(rule.kind),
        Accept::NotPlaceholder => {
            (!values::is_placeholder(secret.trim_matches(['"', '\'', '`']))).then_some(rule.kind)
        }
    }?;
    let start = value.start();
    Some((start..start + secret.len(), kind, secret.to_string()))
}

#[cfg(test)]
mod tests;
