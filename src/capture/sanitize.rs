//! `sanitize_transcript_v1`: the deterministic, versioned sanitizer every
//! transcript (and every captured summary or compaction body) passes through
//! before a byte of it is written.
//!
//! Owns: normalisation and secret redaction of text. Must not: do I/O.
//!
//! Order (fixed, part of the version): NUL bytes dropped; line endings, trailing
//! whitespace and trailing blank lines normalised as in `body-normalized-v1`;
//! then each rule below in turn, replacing a secret with `[REDACTED:<kind>]`.
//! A later version must get a new id (`sanitize_transcript_v2`) and a migration note.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

pub const SANITIZER_VERSION: &str = "sanitize_transcript_v1";

/// Sanitized text and how many secrets of each kind were redacted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sanitized {
    pub text: String,
    pub redactions: BTreeMap<&'static str, usize>,
}

/// A rule: a pattern and the kind it redacts. `value_group` names the capture
/// group that holds the secret; the rest of the match is kept.
struct Rule {
    kind: &'static str,
    pattern: Regex,
    value_group: Option<usize>,
}

fn rule(kind: &'static str, pattern: &str, value_group: Option<usize>) -> Rule {
    Rule {
        kind,
        // The patterns are constants; a typo is caught by every test.
        pattern: Regex::new(pattern).expect("sanitizer pattern compiles"),
        value_group,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        // Whole PEM blocks; a block cut off before its END line is redacted to the end of its base64.
        rule(
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s]*)",
            None,
        ),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            None,
        ),
        rule("anthropic-api-key", r"\bsk-ant-[A-Za-z0-9_-]{16,}", None),
        rule("api-key", r"\bsk-[A-Za-z0-9_-]{20,}", None),
        rule("aws-access-key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", None),
        rule(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
            None,
        ),
        rule(
            "slack-token",
            r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
            None,
        ),
        rule(
            "bearer",
            r"(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/=-]{12,})",
            Some(3),
        ),
        // `password=…`, `API_KEY: …`, `"client_secret": "…"`; the key is kept.
        rule(
            "assignment",
            r#"(?i)\b((?:[a-z0-9]+[_-])*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key))("?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&)\]}]+)"#,
            Some(3),
        ),
    ]
});

/// Sanitizes `text` with `sanitize_transcript_v1`.
pub fn sanitize(text: &str) -> Sanitized {
    let mut text = crate::contract::normalize_body(&text.replace('\0', ""));
    let mut redactions = BTreeMap::new();
    for rule in RULES.iter() {
        let mut count = 0;
        let replaced = rule.pattern.replace_all(&text, |caps: &Captures<'_>| {
            let Some(group) = rule.value_group else {
                count += 1;
                return format!("[REDACTED:{}]", rule.kind);
            };
            let whole = &caps[0];
            let Some(value) = caps.get(group) else {
                return whole.to_string();
            };
            let kind = if rule.kind == "assignment" {
                if !is_secret_value(&caps[1], value.as_str()) {
                    return whole.to_string();
                }
                assignment_kind(&caps[1])
            } else {
                rule.kind
            };
            count += 1;
            // The value group ends every pattern that has one: keep what precedes it.
            let match_start = caps.get(0).map_or(0, |w| w.start());
            format!("{}[REDACTED:{kind}]", &whole[..value.start() - match_start])
        });
        if count > 0 {
            text = replaced.into_owned();
            *redactions.entry(rule.kind).or_insert(0) += count;
        }
    }
    Sanitized { text, redactions }
}

/// The kind an assignment's key names.
fn assignment_kind(key: &str) -> &'static str {
    let key = key.to_ascii_lowercase();
    if key.contains("pass") {
        "password"
    } else if key.ends_with("token") {
        "token"
    } else if key.contains("secret") {
        "secret"
    } else {
        "api-key"
    }
}

/// Whether an assignment's value looks like a secret rather than a placeholder,
/// a count, or one of the workspace's own session tokens.
fn is_secret_value(key: &str, value: &str) -> bool {
    let bare = value.trim_matches(['"', '\'']);
    let key = key.to_ascii_lowercase();
    if bare.len() < 3 || bare.starts_with("[REDACTED") {
        return false;
    }
    // The workspace's own tokens (`session_token: gwar7autu3gbs32c`) are identifiers, not secrets.
    if key.ends_with("session_token")
        || key.ends_with("session-token")
        || crate::contract::is_token(bare)
    {
        return false;
    }
    let placeholder = matches!(
        bare.to_ascii_lowercase().as_str(),
        "null" | "none" | "true" | "false" | "undefined" | "***" | "xxx" | "redacted"
    ) || bare.starts_with('$')
        || bare.starts_with('<')
        || bare.starts_with("{{");
    // `max_token=4096` is a count.
    let count = key.ends_with("token") && bare.chars().all(|c| c.is_ascii_digit());
    !placeholder && !count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redacted(input: &str) -> String {
        sanitize(input).text
    }

    #[test]
    fn each_kind_is_redacted() {
        let cases = [
            (
                "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
                "key [REDACTED:anthropic-api-key]",
            ),
            (
                "OPENAI sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234",
                "OPENAI [REDACTED:api-key]",
            ),
            (
                "aws AKIAIOSFODNN7EXAMPLE here",
                "aws [REDACTED:aws-access-key] here",
            ),
            (
                "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "gh [REDACTED:github-token]",
            ),
            (
                "gh github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789",
                "gh [REDACTED:github-token]",
            ),
            (
                "slack xoxb-123456789012-abcdefghij",
                "slack [REDACTED:slack-token]",
            ),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt [REDACTED:jwt]",
            ),
            (
                "Authorization: Bearer abcDEF123456789.xyz",
                "Authorization: Bearer [REDACTED:bearer]",
            ),
            (
                "DB_PASSWORD=hunter2hunter2",
                "DB_PASSWORD=[REDACTED:password]",
            ),
            (
                "\"client_secret\": \"s3cr3t-value\"",
                "\"client_secret\": [REDACTED:secret]",
            ),
            (
                "export GITHUB_TOKEN=abc123def456",
                "export GITHUB_TOKEN=[REDACTED:token]",
            ),
            ("api_key: 'k-1234567890'", "api_key: [REDACTED:api-key]"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA==\n-----END RSA PRIVATE KEY-----\nafter",
                "[REDACTED:private-key]\nafter",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhkiG9w0B",
                "[REDACTED:private-key]",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redacted(input), want, "input: {input}");
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        let keep = [
            "sha256 3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea",
            "edit /home/ana/src/token.rs and src/password_reset.rs",
            "session gwar7autu3gbs32c in [[memory/2026-03-28T22-34-06.792Z--gwar7autu3gbs32c--summary.md|summary]]",
            "session_token: gwar7autu3gbs32c",
            "max_tokens: 4096",
            "the password is too weak, said the linter",
            "token: null and password=$DB_PASSWORD and secret: <your secret>",
            "commit a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",
            "ask-anything is not a key, nor is task-1234567890123456789012",
        ];
        for input in keep {
            assert_eq!(redacted(input), input);
        }
    }

    #[test]
    fn sanitizing_is_deterministic_and_idempotent() {
        let input = "a  \r\nDB_PASSWORD=hunter2hunter2\t\r\n\r\nsk-ant-api03-abcdefghijklmnopqrstuvwxyz\n\n\n";
        let once = sanitize(input);
        assert_eq!(once, sanitize(input));
        assert_eq!(
            once.text,
            "a\nDB_PASSWORD=[REDACTED:password]\n\n[REDACTED:anthropic-api-key]"
        );
        assert_eq!(sanitize(&once.text).text, once.text);
        assert_eq!(once.redactions.values().sum::<usize>(), 2);
    }
}
