//! `sanitize_transcript_v2`: the deterministic, versioned sanitizer every
//! transcript (and every captured summary or compaction body) passes through
//! before a byte of it is written.
//!
//! Owns: normalisation and secret redaction of text. Must not: do I/O.
//!
//! Order (fixed, part of the version): NUL bytes dropped; line endings, trailing
//! whitespace and trailing blank lines normalised as in `body-normalized-v1`;
//! then each rule of [`RULES`] in turn, replacing a secret with
//! `[REDACTED:<kind>]`. A later version must get a new id and a migration note
//! (docs/SANITIZER.md).
//!
//! v2 over v1: provider key prefixes (Stripe, GitLab, npm, Google, Hugging Face,
//! SendGrid, DigitalOcean), AWS secret access keys, passwords inside URLs,
//! secret-named keys in camelCase and prose (`appSecret`, `app secret：`), and a
//! right-hand side that is code (`os.getenv(…)`, `resp.json()[…]`,
//! `self._api_key`, a type name) is no longer taken for a secret.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

pub const SANITIZER_VERSION: &str = "sanitize_transcript_v2";

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

/// Key names whose value is a secret (matched case-insensitively, as the end of
/// a longer name too: `DB_PASSWORD`, `appSecret`, `client-secret`).
const SECRET_NAMES: &str = r"password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?";

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
        rule(
            "stripe-key",
            r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
            None,
        ),
        rule(
            "gitlab-token",
            r"\bgl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}",
            None,
        ),
        rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", None),
        rule("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}", None),
        rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}", None),
        rule(
            "sendgrid-key",
            r"\bSG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
            None,
        ),
        rule("digitalocean-token", r"\bdo[por]_v1_[a-f0-9]{64}", None),
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
        // `postgres://user:password@host`: the user and host stay.
        rule(
            "url-password",
            r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@\x22'`]+:)([^\s@/\x22'`]+)(@)",
            Some(2),
        ),
        rule(
            "bearer",
            r"(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/=-]{12,})",
            Some(3),
        ),
        // `password=…`, `API_KEY: …`, `"appSecret": "…"`, `app secret：…`; the key
        // is kept, and a value that is code is kept too (see `is_secret_value`).
        rule(
            "assignment",
            &format!(
                r#"(?i)((?:\b[a-z0-9]+[ _-])?\b[a-z0-9_-]*?(?:{SECRET_NAMES}))(\*{{0,2}}["'`]?\*{{0,2}}[ \t]*(?:=|:|：|=>)[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&)\]}}>]+)"#
            ),
            Some(3),
        ),
    ]
});

/// A standalone AWS secret access key: 40 characters of base64 with upper and
/// lower case and a digit, bounded on both sides (checked in `aws_secrets`).
static AWS_SECRET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9/+]{40}").expect("pattern compiles"));

/// Sanitizes `text` with `sanitize_transcript_v2`.
pub fn sanitize(text: &str) -> Sanitized {
    let mut text = crate::contract::normalize_body(&text.replace('\0', ""));
    let mut redactions = BTreeMap::new();
    for rule in RULES.iter() {
        let mut count = 0;
        let replaced =
            rule.pattern
                .replace_all(&text, |caps: &Captures<'_>| match redact(rule, caps) {
                    Some(out) => {
                        count += 1;
                        out
                    }
                    None => caps[0].to_string(),
                });
        if count > 0 {
            text = replaced.into_owned();
            *redactions.entry(rule.kind).or_insert(0) += count;
        }
    }
    let (text, aws) = aws_secrets(&text);
    if aws > 0 {
        *redactions.entry("aws-secret-key").or_insert(0) += aws;
    }
    Sanitized { text, redactions }
}

/// The replacement for one match, or `None` to keep it.
fn redact(rule: &Rule, caps: &Captures<'_>) -> Option<String> {
    let Some(group) = rule.value_group else {
        return Some(format!("[REDACTED:{}]", rule.kind));
    };
    let whole = caps.get(0)?;
    let value = caps.get(group)?;
    let kind = if rule.kind == "assignment" {
        if !is_secret_value(&caps[1], value.as_str()) {
            return None;
        }
        assignment_kind(&caps[1])
    } else if is_placeholder(value.as_str()) {
        return None;
    } else {
        rule.kind
    };
    let keep_before = &whole.as_str()[..value.start() - whole.start()];
    let keep_after = &whole.as_str()[value.end() - whole.start()..];
    Some(format!("{keep_before}[REDACTED:{kind}]{keep_after}"))
}

/// Redacts standalone 40-character AWS secret access keys.
fn aws_secrets(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut count = 0;
    for m in AWS_SECRET.find_iter(text) {
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        let bounded = |c: Option<char>| {
            c.is_none_or(|c| !(c.is_ascii_alphanumeric() || "/+=_-.".contains(c)))
        };
        let s = m.as_str();
        let classes = s.chars().any(|c| c.is_ascii_uppercase())
            && s.chars().any(|c| c.is_ascii_lowercase())
            && s.chars().any(|c| c.is_ascii_digit());
        let slashes = s.chars().filter(|c| matches!(c, '/' | '+')).count();
        if bounded(before) && bounded(after) && classes && slashes <= 2 {
            out.push_str(&text[last..m.start()]);
            out.push_str("[REDACTED:aws-secret-key]");
            last = m.end();
            count += 1;
        }
    }
    if count == 0 {
        return (text.to_string(), 0);
    }
    out.push_str(&text[last..]);
    (out, count)
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

/// Type names that follow a secret-named key in code (`password: str`).
const TYPE_NAMES: &[&str] = &[
    "str",
    "string",
    "bytes",
    "int",
    "number",
    "bool",
    "boolean",
    "any",
    "unknown",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "secretstr",
    "optional",
    "required",
    "text",
    "varchar",
    "char",
    "redacted",
    "***",
    "xxx",
    "...",
    "…",
    "todo",
    "changeme",
];

/// Whether an assignment's value looks like a secret rather than a placeholder,
/// a count, code, or one of the workspace's own session tokens.
fn is_secret_value(key: &str, value: &str) -> bool {
    let bare = value.trim_matches(['"', '\'', '`']);
    let key = key.to_ascii_lowercase();
    if bare.chars().count() < 3 || bare.starts_with("[REDACTED") {
        return false;
    }
    // The workspace's own tokens (`session_token: gwar7autu3gbs32c`) are identifiers, not secrets.
    if key.ends_with("session_token")
        || key.ends_with("session-token")
        || crate::contract::is_token(bare)
    {
        return false;
    }
    let lower = bare.to_ascii_lowercase();
    let placeholder = is_placeholder(bare)
        || lower.starts_with("process.env")
        || lower.contains("env(")
        || lower.contains("environ");
    // `max_token=4096` is a count.
    let count = key.ends_with("token") && bare.chars().all(|c| c.is_ascii_digit());
    let quoted = value.len() != bare.len();
    !placeholder && !count && (quoted || (!is_code(bare) && looks_random(bare)))
}

/// An unquoted value is taken for a secret only when it is not a plain word:
/// it has a digit, a symbol, inner capitals, or is long (`hunter2hunter2`,
/// `BpyShg7Sdxukz6MQ`), so prose like `Secret: The messages` stays.
fn looks_random(s: &str) -> bool {
    let inner_upper = s.chars().skip(1).any(|c| c.is_uppercase());
    s.chars().count() >= 16
        || inner_upper
        || s.chars()
            .any(|c| c.is_ascii_digit() || (!c.is_alphanumeric()))
}

/// A value that stands for a secret without being one: a type name, a
/// `$VAR`, `<your key>`, `{{ template }}`, `YOUR_TOKEN`, `GITHUB_TOKEN`.
fn is_placeholder(bare: &str) -> bool {
    let lower = bare.to_ascii_lowercase();
    TYPE_NAMES.contains(&lower.as_str())
        || bare.starts_with('$')
        || bare.starts_with('<')
        || bare.starts_with("{{")
        || bare.starts_with('%')
        || is_env_name(bare)
        || lower.starts_with("your")
}

/// `GITHUB_TOKEN`, `API_KEY`: the name of a variable, not its value.
fn is_env_name(s: &str) -> bool {
    s.contains('_')
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// An unquoted right-hand side that is code: a call or index (`os.getenv(`,
/// `resp.json()[`), a member path (`self._api_key`, `config.token`), or a
/// snake_case variable (`api_key_value`).
fn is_code(s: &str) -> bool {
    if s.contains('(') || s.contains('[') || s.ends_with('.') {
        return true;
    }
    let ident = |p: &str| {
        let mut chars = p.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() >= 2 && parts.iter().all(|p| ident(p)) {
        return true;
    }
    // snake_case with no digit: a variable name, not a random secret.
    ident(s) && s.contains('_') && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
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
                "AKIABNCSCJHQBZFQF3M6\nkjNlm0R0KG7kJ5KqhTo4ZCvaFK2THmNUQKie9mUf\n",
                "[REDACTED:aws-access-key]\n[REDACTED:aws-secret-key]",
            ),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED:secret]",
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
                "{\"appId\": \"cli_a1b2\", \"appSecret\": \"ogOdad9lsRS5dUnJjkXRqyEo8Vet1jlG\"}",
                "{\"appId\": \"cli_a1b2\", \"appSecret\": [REDACTED:secret]}",
            ),
            (
                "app secret ：BpyShg7Sdxukz6MQ59uNMxbrqUqIjjEB",
                "app secret ：[REDACTED:secret]",
            ),
            (
                "export GITHUB_TOKEN=abc123def456",
                "export GITHUB_TOKEN=[REDACTED:token]",
            ),
            ("api_key: 'k-1234567890'", "api_key: [REDACTED:api-key]"),
            (
                "- **飞书 App Secret**: `BpyShg7Sdxukz6MQ59uNMxbrqUqIjjEB`",
                "- **飞书 App Secret**: [REDACTED:secret]",
            ),
            (
                "Stripe sk_live_cK8nkB6VRLetC6Psnc1OAPZn and rk_live_cK8nkB6VRLetC6Psnc1OAPZn",
                "Stripe [REDACTED:stripe-key] and [REDACTED:stripe-key]",
            ),
            (
                "mirror uses glpat-9CfNDxlexuamy4D9Ae2z ok",
                "mirror uses [REDACTED:gitlab-token] ok",
            ),
            (
                "CI：npm_q3C7qhuMk9zUGIAJsam9cDIPYSTGnAvqGCAk",
                "CI：[REDACTED:npm-token]",
            ),
            (
                "Maps 用 AIzaDgMHxHkt2NumGDbneu7Z_GymloP8M9tJCWi",
                "Maps 用 [REDACTED:google-api-key]",
            ),
            (
                "DATABASE_URL=postgres://orders_app:0NHLjxkoVVvpWbj8hk@db-7.internal:5432/orders",
                "DATABASE_URL=postgres://orders_app:[REDACTED:url-password]@db-7.internal:5432/orders",
            ),
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
    fn ordinary_text_and_code_are_left_alone() {
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
            "token = resp.json()[\"access_token\"]",
            "access_token = resp.json()[\"tenant_access_token\"]",
            "api_key=os.getenv(\"GEMINI_API_KEY\")",
            "genai.configure(api_key=os.getenv('GEMINI_API_KEY'))",
            "GITHUB_TOKEN = os.environ.get('GITHUB_TOKEN')",
            "self._client = OpenAI(api_key=self._api_key)",
            "password_hash = bcrypt.hashpw(pw.encode(), bcrypt.gensalt())",
            "def login(username: str, password: str) -> bool:",
            "const token = await getToken();",
            "curl -H \"Authorization: bearer YOUR_GITHUB_TOKEN\" https://api.github.com/graphql",
            "see https://example.com/docs and git@github.com:owner/repo.git",
            "Release artifact sha256: e3934b5610a6cad4bb0a86e2c72ea9de9c38d2c0aa1556e8364e55968c43e8a3",
            "apps/app/src/client/components/AppInnerSidebar.tsx",
            "`[\"MY_TOKEN\", \"HOOK_SECRET\"]`",
            "secret_key = settings.SECRET_KEY",
            "Secret: The messages below were generated by the user",
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
