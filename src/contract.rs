//! The pinned contracts of DESIGN.md: artifact kinds, file naming, session tokens,
//! the `body-normalized-v1` checksum, timestamp forms and the zone daily logs
//! are dated in.
//!
//! Owns: pure functions over strings. Must not: do I/O.

use std::fmt;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use data_encoding::{BASE32_NOPAD, HEXLOWER};
use sha2::{Digest, Sha256};

use serde::{Deserialize, Serialize};

pub const HASH_SCOPE: &str = "body-normalized-v1";
pub const MEMORY_DIR: &str = "memory";
pub const TOMBSTONE_DIR: &str = "memory/tombstones";
pub const TOKEN_LEN: usize = 16;

/// Set in the environment of every model call memsync makes (a sentence, a
/// summary): a harness hook that sees it answers with nothing and queues
/// nothing, so memsync never captures its own call (which would call again).
pub const MODEL_CALL_ENV: &str = "MEMSYNC_MODEL_CALL";

/// The first line of every prompt memsync sends a model, followed by the
/// prompt's version: a session whose first request holds this line is one
/// of memsync's own calls, caught even when a harness dropped the environment.
pub const MODEL_CALL_MARKER: &str = "memsync-model-call:";

/// The working folder of memsync's own model calls, under the state home
/// (`~/.local/state/memsync/model-call`): a session whose folder ends so is
/// memsync's own, and harvest never takes it.
pub const MODEL_CALL_FOLDER: &str = "memsync/model-call";

/// Whether `text` (a session's first request) is a prompt memsync wrote: a
/// line that is the marker and a version id, nothing else.
pub fn is_model_call_prompt(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim().strip_prefix(MODEL_CALL_MARKER).is_some_and(|v| {
            let v = v.trim();
            v.starts_with("memory_") && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

/// Whether a session's folder is memsync's own model-call folder.
pub fn is_model_call_folder(project: &str) -> bool {
    project
        .trim_end_matches(['/', '\\'])
        .replace('\\', "/")
        .ends_with(MODEL_CALL_FOLDER)
}

/// The four canonical artifact kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArtifactKind {
    Summary,
    Transcript,
    Compaction,
    Manifest,
}

impl ArtifactKind {
    pub const ALL: [ArtifactKind; 4] = [
        ArtifactKind::Summary,
        ArtifactKind::Transcript,
        ArtifactKind::Compaction,
        ArtifactKind::Manifest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Summary => "summary",
            ArtifactKind::Transcript => "transcript",
            ArtifactKind::Compaction => "compaction",
            ArtifactKind::Manifest => "manifest",
        }
    }

    pub fn parse(s: &str) -> Option<ArtifactKind> {
        ArtifactKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl fmt::Display for ArtifactKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `first 16 chars of lowercase base32(sha256("{agent_id}:{identity}"))`.
pub fn session_token(agent_id: &str, identity: &str) -> String {
    let digest = Sha256::digest(format!("{agent_id}:{identity}").as_bytes());
    let mut token = BASE32_NOPAD.encode(&digest).to_ascii_lowercase();
    token.truncate(TOKEN_LEN);
    token
}

/// The session identity a token rule hashes: trimmed; the spec rule prefers a
/// non-empty session_key.
pub fn session_identity<'a>(
    rule: TokenRule,
    session_key: Option<&'a str>,
    session_id: &'a str,
) -> &'a str {
    let key = session_key.map(str::trim).filter(|k| !k.is_empty());
    match (rule, key) {
        (TokenRule::Spec, Some(k)) => k,
        _ => session_id.trim(),
    }
}

/// The token a writer uses under `rule`.
pub fn token_for(
    rule: TokenRule,
    agent_id: &str,
    session_key: Option<&str>,
    session_id: &str,
) -> String {
    session_token(agent_id, session_identity(rule, session_key, session_id))
}

/// True when `token` matches either accepted rule for this session.
pub fn token_matches(
    token: &str,
    agent_id: &str,
    session_key: Option<&str>,
    session_id: &str,
) -> bool {
    [TokenRule::Spec, TokenRule::SessionId]
        .into_iter()
        .any(|rule| token_for(rule, agent_id, session_key, session_id) == token)
}

pub fn is_token(s: &str) -> bool {
    s.len() == TOKEN_LEN
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
}

/// The `body-normalized-v1` form: LF line endings, trailing spaces and tabs
/// removed per line, trailing empty lines dropped, no final newline.
pub fn normalize_body(body: &str) -> String {
    // Copied only when there is a carriage return to take out.
    let unified = match body.contains('\r') {
        true => std::borrow::Cow::Owned(body.replace("\r\n", "\n").replace('\r', "\n")),
        false => std::borrow::Cow::Borrowed(body),
    };
    let mut lines: Vec<&str> = unified
        .split('\n')
        .map(|l| l.trim_end_matches([' ', '\t']))
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

/// The digest of [`normalize_body`]'s form, hashed as it is read: a 4 MiB
/// transcript is not copied three times to be checked.
pub fn body_sha256(body: &str) -> String {
    // Most bodies are normalized already (memsync wrote them): no carriage
    // return and no line ending in a space or tab. Their form is the body
    // without its trailing blanks, hashed at once.
    if !body.contains('\r') && !body.contains(" \n") && !body.contains("\t\n") {
        return sha256_hex(body.trim_end_matches([' ', '\t', '\n']).as_bytes());
    }
    let mut hasher = Sha256::new();
    let (mut emitted, mut pending_empty) = (false, 0usize);
    for line in body_lines(body) {
        let line = line.trim_end_matches([' ', '\t']);
        if line.is_empty() {
            pending_empty += 1;
            continue;
        }
        // Empty lines count only once a later line shows they are not trailing.
        for _ in 0..pending_empty + usize::from(emitted) {
            hasher.update(b"\n");
        }
        hasher.update(line.as_bytes());
        (emitted, pending_empty) = (true, 0);
    }
    HEXLOWER.encode(&hasher.finalize())
}

/// Lines split at `\r\n`, `\r` or `\n`, as `normalize_body` splits them.
fn body_lines(body: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(body);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.find(['\r', '\n']) {
            Some(i) => {
                let skip = if text[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&text[i + skip..]);
                Some(&text[..i])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    HEXLOWER.encode(&Sha256::digest(bytes))
}

/// RFC 3339 in UTC with milliseconds, the form rows and frontmatter use.
pub fn format_ts(ts: DateTime<Utc>) -> String {
    ts.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A timestamp's filesystem-safe form: `2026-03-28T22-34-06.792Z`.
pub fn fs_timestamp(ts: DateTime<Utc>) -> String {
    format_ts(ts).replace(':', "-")
}

/// Parses an RFC 3339 timestamp with an explicit zone.
pub fn parse_ts(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// The parts of a canonical file name: `{captured_at_iso_fs}--{token}--{kind}.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalName {
    pub captured_at: Option<DateTime<Utc>>,
    pub token: String,
    pub kind: ArtifactKind,
}

/// Splits a file name that has the canonical shape. The timestamp and token may
/// still be malformed (`captured_at: None`, `is_token` false): the validator reports those.
pub fn parse_canonical_name(file_name: &str) -> Option<CanonicalName> {
    let stem = file_name.strip_suffix(".md")?;
    let mut parts = stem.rsplitn(3, "--");
    let kind = ArtifactKind::parse(parts.next()?)?;
    let token = parts.next()?.to_string();
    let ts = parts.next()?;
    if ts.is_empty() || token.is_empty() {
        return None;
    }
    Some(CanonicalName {
        captured_at: parse_fs_timestamp(ts),
        token,
        kind,
    })
}

/// `2026-03-28T22-34-06.792Z` back to an instant. Also what Signet's Rust
/// daemon writes (chrono's RFC 3339 with nanoseconds and a `+00:00` offset,
/// made safe as `+00-00`): the spec asks for a UTC time with file-system-safe
/// separators, and `+00:00` is UTC; any other offset is not.
pub fn parse_fs_timestamp(s: &str) -> Option<DateTime<Utc>> {
    match memsyncs_own_fs_timestamp(s) {
        Some(parsed) => parsed,
        None => parse_any_fs_timestamp(s),
    }
}

/// The one form memsync writes, `2026-03-28T22-34-06.792Z`, read by its
/// digits: a cold sync reads it for every file, several times, and the
/// general parse below was a few percent of the whole. `None` when `s` has
/// another shape (or a leap second), which the general parse then reads.
fn memsyncs_own_fs_timestamp(s: &str) -> Option<Option<DateTime<Utc>>> {
    let b = s.as_bytes();
    let shape = b"dddd-dd-ddTdd-dd-dd.dddZ";
    if b.len() != shape.len()
        || !b.iter().zip(shape).all(|(c, want)| match want {
            b'd' => c.is_ascii_digit(),
            _ => c == want,
        })
    {
        return None;
    }
    let n = |from: usize, to: usize| {
        b[from..to]
            .iter()
            .fold(0u32, |acc, c| acc * 10 + u32::from(c - b'0'))
    };
    if n(17, 19) == 60 {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(n(0, 4) as i32, n(5, 7), n(8, 10));
    let time = chrono::NaiveTime::from_hms_milli_opt(n(11, 13), n(14, 16), n(17, 19), n(20, 23));
    Some(date.zip(time).map(|(d, t)| d.and_time(t).and_utc()))
}

/// Any file-system-safe RFC 3339 time in UTC (`Z` or `+00-00`), any precision.
fn parse_any_fs_timestamp(s: &str) -> Option<DateTime<Utc>> {
    let (date, time) = s.split_once('T')?;
    let (time, zone) = if let Some(t) = time.strip_suffix('Z') {
        (t, "Z")
    } else if let Some(t) = time.strip_suffix("+00-00") {
        (t, "+00:00")
    } else {
        return None;
    };
    let mut time = time.to_string();
    for _ in 0..2 {
        let i = time.find('-')?;
        time.replace_range(i..=i, ":");
    }
    if time.contains('-') {
        return None;
    }
    parse_ts(&format!("{date}T{time}{zone}"))
}

/// The canonical file name for an artifact.
pub fn canonical_file_name(captured_at: DateTime<Utc>, token: &str, kind: ArtifactKind) -> String {
    format!("{}--{token}--{kind}.md", fs_timestamp(captured_at))
}

/// The tombstone path of a session, relative to the root.
pub fn tombstone_path(agent_id: &str, token: &str) -> String {
    format!("{TOMBSTONE_DIR}/{agent_id}--{token}.md")
}

/// Agent ids become path segments, so they are restricted.
/// Where a session's requests came from, as capture records it in the
/// optional frontmatter key `request_source` (absent: the owner). Only the
/// owner's words, and the jobs the owner scheduled, are trusted: a session
/// with a request from another chat participant is left out of everything
/// injected into an agent (MEMORY.md, daily logs, `context`), and still
/// found by search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestSource {
    /// The person who runs the agent (every local harness session).
    #[default]
    Owner,
    /// A job the owner scheduled (OpenClaw `[cron:…]`).
    Cron,
    /// Someone else in a chat the agent serves (a group member).
    Participant,
}

impl RequestSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestSource::Owner => "owner",
            RequestSource::Cron => "cron",
            RequestSource::Participant => "participant",
        }
    }

    /// The frontmatter value read back; an unknown one is not trusted.
    pub fn parse(s: &str) -> RequestSource {
        match s {
            "owner" => RequestSource::Owner,
            "cron" => RequestSource::Cron,
            _ => RequestSource::Participant,
        }
    }

    pub fn trusted(self) -> bool {
        self != RequestSource::Participant
    }
}

pub fn is_valid_agent_id(agent_id: &str) -> bool {
    let mut bytes = agent_id.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenRule {
    /// identity = session_key when non-empty, else session_id (the spec rule).
    Spec,
    /// identity = session_id (deployed Signet workspaces).
    SessionId,
}

/// The zone daily logs are dated in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DayZone {
    Local,
    Utc,
    Named(chrono_tz::Tz),
}

impl DayZone {
    pub fn parse(s: &str) -> std::result::Result<DayZone, String> {
        match s {
            "local" => Ok(DayZone::Local),
            "UTC" | "utc" => Ok(DayZone::Utc),
            name => name
                .parse::<chrono_tz::Tz>()
                .map(DayZone::Named)
                .map_err(|_| format!("{name:?} is not `local`, `UTC` or an IANA zone name")),
        }
    }

    pub fn date(&self, ts: DateTime<Utc>) -> NaiveDate {
        match self {
            DayZone::Local => ts.with_timezone(&chrono::Local).date_naive(),
            DayZone::Utc => ts.date_naive(),
            DayZone::Named(tz) => ts.with_timezone(tz).date_naive(),
        }
    }

    /// The first instant of `day` in the zone. A day that begins in a
    /// daylight-saving gap gets a bound 14 hours early: before its first
    /// instant in every zone, which is all a range query needs.
    pub fn day_start(&self, day: NaiveDate) -> DateTime<Utc> {
        use chrono::TimeZone;
        let midnight = day.and_time(chrono::NaiveTime::MIN);
        let first = match self {
            DayZone::Utc => return midnight.and_utc(),
            DayZone::Local => chrono::Local
                .from_local_datetime(&midnight)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
            DayZone::Named(tz) => tz
                .from_local_datetime(&midnight)
                .earliest()
                .map(|t| t.with_timezone(&Utc)),
        };
        first.unwrap_or_else(|| midnight.and_utc() - chrono::Duration::hours(14))
    }

    /// `HH:MM` in the zone.
    pub fn clock(&self, ts: DateTime<Utc>) -> String {
        use chrono::Timelike;
        let (h, m) = match self {
            DayZone::Local => {
                let t = ts.with_timezone(&chrono::Local);
                (t.hour(), t.minute())
            }
            DayZone::Utc => (ts.hour(), ts.minute()),
            DayZone::Named(tz) => {
                let t = ts.with_timezone(tz);
                (t.hour(), t.minute())
            }
        };
        format!("{h:02}:{m:02}")
    }
}

/// The deepest flow nesting (`[`, `{`) YAML is parsed with: the parser's
/// cost grows with the square of it (64 KiB of `[` took seconds), and no
/// frontmatter or config has a reason to nest this deep.
pub const MAX_YAML_NESTING: usize = 64;

/// Why `yaml` is refused before parsing, if it nests flow collections more
/// than [`MAX_YAML_NESTING`] deep. Quoted text does not count; a cheap scan.
pub fn yaml_too_deep(yaml: &str) -> Option<String> {
    // Too few brackets to nest that deep, whatever the quoting: the common
    // case, counted over bytes without decoding a character.
    let opening = yaml.bytes().filter(|&b| b == b'[' || b == b'{').count();
    if opening <= MAX_YAML_NESTING {
        return None;
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    for c in yaml.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '\n') => {}
            (None, '[' | '{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (None, ']' | '}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c == '\n' && quote == Some('\'') {
            // A single quote in plain text (`don't`) ends at the line.
            quote = None;
        }
    }
    (deepest > MAX_YAML_NESTING)
        .then(|| format!("nested {deepest} levels deep, over {MAX_YAML_NESTING}; not parsed"))
}

/// Where an agent's MEMORY.md lives, relative to the root.
pub fn memory_md_path(agent_id: &str) -> String {
    if agent_id == "default" {
        "MEMORY.md".into()
    } else {
        format!("agents/{agent_id}/MEMORY.md")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_body_digest_is_the_digest_of_the_normalized_body() {
        for body in [
            "",
            "\n",
            "a",
            "a\n",
            "\n\na",
            "a\r\n\r\nb  \t\n\n",
            "a\rb\r",
            " \n \n",
            "x\n\n\ny\n",
            "\r\n",
            "é  \r\n\tz",
        ] {
            assert_eq!(
                body_sha256(body),
                sha256_hex(normalize_body(body).as_bytes()),
                "{body:?}"
            );
        }
    }

    /// Every body of up to six characters from letters, blanks and line
    /// ends: the fast path for normalized bodies and the streamed one agree
    /// with the digest of the normalized body.
    #[test]
    fn the_body_digest_agrees_with_the_normalized_form_on_every_short_body() {
        let alphabet = ['a', ' ', '\t', '\n', '\r'];
        let mut bodies = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = bodies
                .iter()
                .filter(|b| b.chars().count() == bodies.last().map_or(0, |l| l.chars().count()))
                .flat_map(|b| alphabet.iter().map(move |c| format!("{b}{c}")))
                .collect();
            bodies.extend(longer);
        }
        assert!(bodies.len() > 15_000);
        for body in &bodies {
            assert_eq!(
                body_sha256(body),
                sha256_hex(normalize_body(body).as_bytes()),
                "{body:?}"
            );
        }
    }

    /// Every file-name time of memsync's own shape, with each field at and
    /// past its bounds and a leap second, reads as the general parse reads it.
    #[test]
    fn the_own_shape_fast_path_reads_every_time_as_the_general_parse() {
        let mut checked = 0;
        for (y, mo, d) in [
            (2026, 2, 28),
            (2024, 2, 29),
            (2026, 2, 29),
            (1970, 1, 1),
            (9999, 12, 31),
            (2026, 13, 1),
            (2026, 0, 10),
            (2026, 4, 31),
            (2026, 1, 0),
        ] {
            for (h, mi, s) in [
                (0, 0, 0),
                (23, 59, 59),
                (24, 0, 0),
                (12, 60, 0),
                (12, 0, 60),
                (12, 0, 61),
                (7, 5, 9),
            ] {
                for ms in [0, 1, 999] {
                    let name = format!("{y:04}-{mo:02}-{d:02}T{h:02}-{mi:02}-{s:02}.{ms:03}Z");
                    assert!(
                        memsyncs_own_fs_timestamp(&name).is_some() || s == 60,
                        "{name}"
                    );
                    assert_eq!(
                        parse_fs_timestamp(&name),
                        parse_any_fs_timestamp(&name),
                        "{name}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 189);
        for other in [
            "2026-03-28T22-34-06.79Z",
            "2026-03-28T22-34-06Z",
            "2026-03-28T22-34-06.792+00-00",
            "2026-03-28T22-34-06.792123456+00-00",
            "2026-03-28 22-34-06.792Z",
            "２026-03-28T22-34-06.792Z",
            "2026-03-28T22:34:06.792Z",
        ] {
            assert!(memsyncs_own_fs_timestamp(other).is_none(), "{other}");
            assert_eq!(
                parse_fs_timestamp(other),
                parse_any_fs_timestamp(other),
                "{other}"
            );
        }
    }

    /// Deep nesting is still refused once the bracket count could reach it,
    /// and a frontmatter with a few brackets is read as before.
    #[test]
    fn yaml_nesting_is_refused_only_past_the_limit() {
        let deep = format!(
            "a: {}1{}",
            "[".repeat(MAX_YAML_NESTING + 1),
            "]".repeat(MAX_YAML_NESTING + 1)
        );
        assert!(yaml_too_deep(&deep).is_some());
        let at_limit = format!(
            "a: {}1{}",
            "[".repeat(MAX_YAML_NESTING),
            "]".repeat(MAX_YAML_NESTING)
        );
        assert!(yaml_too_deep(&at_limit).is_none());
        let quoted = format!("a: \"{}\"", "[".repeat(MAX_YAML_NESTING + 5));
        assert!(yaml_too_deep(&quoted).is_none());
        assert!(yaml_too_deep("tags: [a, b]\nmap: {k: [1]}\n").is_none());
    }

    #[test]
    fn canonical_name_round_trips() {
        let ts = parse_ts("2026-03-28T22:34:06.792Z").unwrap();
        let name = canonical_file_name(ts, "gwar7autu3gbs32c", ArtifactKind::Summary);
        assert_eq!(
            name,
            "2026-03-28T22-34-06.792Z--gwar7autu3gbs32c--summary.md"
        );
        let parsed = parse_canonical_name(&name).unwrap();
        assert_eq!(parsed.captured_at, Some(ts));
        assert_eq!(parsed.kind, ArtifactKind::Summary);
        assert!(is_token(&parsed.token));
        // The spec's example token is illustrative: 9, 1 and 8 are not base32.
        assert!(!is_token("h7k3n4p9m2x1q8r5"));
    }

    #[test]
    fn normalization_is_idempotent() {
        let body = "\n a \t\r\nb\rc  \n\n \n";
        let once = normalize_body(body);
        assert_eq!(once, "\n a\nb\nc");
        assert_eq!(normalize_body(&once), once);
    }
}
