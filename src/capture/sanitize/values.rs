//! Which values the sanitizer's context rules take: a secret, not a
//! placeholder (`$VAR`, `<your key>`, a type name), not code
//! (`os.getenv(…)`, `self._api_key`), not a count, not a plain word of prose.

use std::sync::LazyLock;

use regex::Regex;

/// A standalone AWS secret access key: 40 characters of base64 with upper and
/// lower case and a digit, bounded on both sides (checked in `aws_secrets`).
static AWS_SECRET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9/+]{40}").expect("pattern compiles"));

/// Redacts standalone 40-character AWS secret access keys.
pub(super) fn aws_secrets(text: &str) -> Option<(String, Vec<String>)> {
    // Built only once a key is found: a long transcript is not copied for nothing.
    let mut out = String::new();
    let mut last = 0;
    let mut found = Vec::new();
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
            if found.is_empty() {
                out.reserve(text.len());
            }
            out.push_str(&text[last..m.start()]);
            out.push_str("[REDACTED:aws-secret-key]");
            last = m.end();
            found.push(s.to_string());
        }
    }
    if found.is_empty() {
        return None;
    }
    out.push_str(&text[last..]);
    Some((out, found))
}

/// The kind an assignment's key names.
pub(super) fn assignment_kind(key: &str) -> &'static str {
    let key = key.to_ascii_lowercase();
    if key.contains("pass") || key.contains("cred") {
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
pub(super) fn is_secret_value(key: &str, value: &str) -> bool {
    let bare = value.trim_matches(['"', '\'', '`']);
    let key = key.to_ascii_lowercase();
    if bare.chars().count() < 3 {
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
pub(super) fn looks_random(s: &str) -> bool {
    let inner_upper = s.chars().skip(1).any(|c| c.is_uppercase());
    s.chars().count() >= 16
        || inner_upper
        || s.chars()
            .any(|c| c.is_ascii_digit() || (!c.is_alphanumeric()))
}

/// A value that stands for a secret without being one: a type name, a
/// `$VAR`, `<your key>`, `{{ template }}`, `YOUR_TOKEN`, `GITHUB_TOKEN`.
pub(super) fn is_placeholder(bare: &str) -> bool {
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
pub(super) fn is_code(s: &str) -> bool {
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

/// An unquoted value that runs into the next query parameter (`abc&page=2`)
/// ends before it; a `&` inside a password (`x&tail`) stays part of it.
pub(super) fn without_next_parameter(value: &str) -> &str {
    let mut at = 0;
    while let Some(i) = value[at..].find('&') {
        let amp = at + i;
        let rest = &value[amp + 1..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(rest.len());
        if name_len > 0 && rest[name_len..].starts_with('=') {
            return &value[..amp];
        }
        at = amp + 1;
    }
    value
}

/// A value after a secret's name in another language. After a key in a
/// non-Latin script and an explicit separator (`密码：`, `пароль:`), a run
/// of ASCII is the value a person typed; otherwise it must look random, so
/// `clave primaria` or `contraseña segura` stays.
pub(super) fn is_foreign_secret(key: &str, value: &str, explicit: bool) -> bool {
    let bare = value.trim_end_matches(['.', ',', ';', ':', ')', ']', '}', '!', '?']);
    if bare.chars().count() < 4 || is_placeholder(bare) {
        return false;
    }
    // A count (`トークン: 4096`), not a password.
    if bare.chars().all(|c| c.is_ascii_digit()) && bare.len() < 6 {
        return false;
    }
    let non_latin = key.chars().any(|c| !c.is_ascii() && !is_latin_letter(c));
    (explicit && non_latin) || (looks_random(bare) && !is_code(bare) && !is_path(bare))
}

fn is_latin_letter(c: char) -> bool {
    // Latin-1 Supplement, Latin Extended-A/B: é, ñ, ş, ł, ă.
    matches!(c, '\u{00C0}'..='\u{024F}')
}

/// A value after "password" in prose (`the password is hunter2`): only one
/// that looks random, so "the password is required" and a path stay.
/// Four groups of four letters (a mail app password) count too.
pub(super) fn is_prose_secret(value: &str) -> bool {
    // Markdown around a word (`**Use a password manager**:`) is no part of a secret.
    let bare = value.trim_matches(|c: char| ".,;:!?()[]{}<>*_~".contains(c));
    if is_app_password(bare) {
        return true;
    }
    bare.chars().count() >= 6
        && !is_placeholder(bare)
        && !is_code(bare)
        && !is_path(bare)
        && (bare.chars().any(|c| c.is_ascii_digit())
            || bare.chars().skip(1).any(|c| c.is_uppercase())
            || bare.chars().any(|c| !c.is_alphanumeric()))
}

/// A quoted value after "the password is": three words or more (a
/// passphrase: "correct horse battery staple"), or one that looks random.
/// Two words or one plain word ("not set", "required") are prose.
pub(super) fn is_passphrase(value: &str) -> bool {
    let value = value.trim();
    let words = value.split_whitespace().count();
    (3..=8).contains(&words) && !is_placeholder(value) && !value.contains("REDACTED")
        || words == 1 && is_prose_secret(value)
}

/// The password half of `user / password` after "credentials:": anything but
/// a placeholder or the word itself.
pub(super) fn is_paired_secret(value: &str) -> bool {
    let bare = value.trim_end_matches(['.', ')', ']']);
    let lower = bare.to_ascii_lowercase();
    bare.chars().count() >= 3
        && !is_placeholder(bare)
        && !matches!(lower.as_str(), "password" | "pass" | "passwd" | "pwd")
}

/// `abcd efgh ijkl mnop`: a Google or Apple app password, unless it reads as
/// a line of English ("make sure this runs").
pub(super) fn is_app_password(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "this", "that", "with", "from", "have", "make", "sure", "will", "then", "when", "what",
        "they", "them", "your", "been", "some", "more", "also", "into", "just", "like", "only",
        "over", "such", "than", "very", "here", "were", "does", "done", "each", "even", "file",
        "find", "good", "help", "keep", "know", "last", "look", "many", "most", "much", "must",
        "need", "next", "once", "part", "read", "said", "same", "show", "take", "tell", "test",
        "time", "uses", "want", "well", "work", "code", "line", "data", "runs", "call", "back",
    ];
    let groups: Vec<&str> = s.split(' ').collect();
    groups.len() == 4
        && groups
            .iter()
            .all(|g| g.len() == 4 && g.chars().all(|c| c.is_ascii_lowercase()))
        && groups.iter().filter(|g| WORDS.contains(g)).count() < 2
}

/// `/home/ana/x`, `./src`, `C:\x`, a URL: where a file is, not a secret.
fn is_path(s: &str) -> bool {
    s.starts_with('/')
        || s.starts_with("./")
        || s.starts_with("../")
        || s.starts_with('~')
        || s.contains("://")
        || s.get(1..3) == Some(":\\")
}

/// A password given beside a mailbox's address: one word with upper and
/// lower case and a digit (`uEawqO0Yn9Tb`); a word, a number or a name is not.
pub(super) fn is_mail_password(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && s.chars().any(|c| c.is_ascii_digit())
        && !is_placeholder(s)
}

/// A key in a URL's path: mixed case and digits, switching between them
/// often, with no word in it (`Xk3mPq9LrT2vWb7NcY4sZa`, not
/// `Release-Notes-2024-Final` or a lowercase hex commit).
pub(super) fn is_url_key(s: &str) -> bool {
    let classes = s.chars().any(|c| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && s.chars().any(|c| c.is_ascii_digit());
    let class = |c: char| {
        (
            c.is_ascii_uppercase(),
            c.is_ascii_lowercase(),
            c.is_ascii_digit(),
        )
    };
    let chars: Vec<char> = s.chars().collect();
    let switches = chars
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    let has_word = s.split(['-', '_']).any(|part| {
        part.len() >= 4
            && part.chars().all(|c| c.is_ascii_alphabetic())
            && part.chars().skip(1).all(|c| c.is_ascii_lowercase())
    });
    classes && switches * 3 >= chars.len() && !has_word
}
