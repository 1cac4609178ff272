//! The per-session sentence quality floor (spec: "Per-session sentence quality
//! floor") and the deterministic fallback sentence.
//!
//! Owns: judging and neutralising one-line sentences. Must not: do I/O.

use crate::config::SentenceConfig;

/// Why a sentence fails the floor; `None` from `check` means it passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FloorFailure {
    WordCount(usize),
    NoTerminalPunctuation,
    NoAnchor,
    LowSignal,
}

impl std::fmt::Display for FloorFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FloorFailure::WordCount(n) => write!(f, "has {n} words"),
            FloorFailure::NoTerminalPunctuation => f.write_str("does not end with `.`, `!` or `?`"),
            FloorFailure::NoAnchor => f.write_str(
                "names no concrete anchor (project, path or file, issue/PR/task id, or component)",
            ),
            FloorFailure::LowSignal => f.write_str("is a known low-signal template"),
        }
    }
}

/// Checks a sentence against the floor. `project` is the session's project path.
pub fn check(sentence: &str, project: Option<&str>, cfg: &SentenceConfig) -> Option<FloorFailure> {
    let sentence = sentence.trim();
    let squashed = squash(sentence).to_lowercase();
    if cfg
        .low_signal
        .iter()
        .any(|t| squash(t).to_lowercase() == squashed)
    {
        return Some(FloorFailure::LowSignal);
    }
    let words = word_count(sentence);
    if words < cfg.min_words || words > cfg.max_words {
        return Some(FloorFailure::WordCount(words));
    }
    // CJK sentences end with their own full-width marks.
    if !sentence.ends_with(['.', '!', '?', '。', '！', '？']) {
        return Some(FloorFailure::NoTerminalPunctuation);
    }
    if !has_anchor(sentence, project) {
        return Some(FloorFailure::NoAnchor);
    }
    None
}

/// Words as the floor counts them. Whitespace separates words, except in
/// Chinese, Japanese and Korean, which do not space their words: there every
/// two CJK characters count as one word (rounded up), and a run of other
/// characters inside such a token counts as one more; a token with no CJK
/// character is one word, whatever it holds. So "Fixed the bug." is 3,
/// "修复了登录页面的错误" (10 characters) is 5, "用uv管理" is 1 + 1 + 1 = 3.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().map(token_words).sum()
}

fn token_words(token: &str) -> usize {
    let mut words = 0;
    let mut cjk: usize = 0;
    let mut in_other = false;
    for c in token.chars() {
        if is_cjk(c) {
            cjk += 1;
            in_other = false;
        } else if c.is_alphanumeric() {
            if !in_other {
                words += 1;
                in_other = true;
            }
        } else {
            in_other = false;
        }
    }
    if cjk == 0 {
        return 1; // `src/lib.rs`, `write-gate`, `—`: one token, one word
    }
    words + cjk.div_ceil(2)
}

/// Where a text's first sentence ends (just past its mark), or its length
/// when no mark ends one: `。！？` anywhere, `.!?` before a space or the end
/// (so `v1.2`, `.devenv` and `?page=2` end nothing), never at its first
/// character, and never inside an inline code span (`` `\d[A-Z]? ?\d` ``)
/// that closes on its line.
pub fn first_sentence_end(text: &str) -> usize {
    let mut chars = text.char_indices().peekable();
    let mut in_code = false;
    while let Some((i, c)) = chars.next() {
        if c == '`' {
            let closes = text[i + 1..]
                .split('\n')
                .next()
                .is_some_and(|l| l.contains('`'));
            in_code = !in_code && closes;
            continue;
        }
        let next = chars.peek().map(|&(_, n)| n);
        let ends = matches!(c, '。' | '！' | '？')
            || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace));
        if ends && i > 0 && !in_code && !is_log_level(&text[..i], c) {
            return i + c.len_utf8();
        }
    }
    text.len()
}

/// Whether the mark `c` after `before` closes a log line's level rather
/// than a sentence: npm's and node-gyp's `npm ERR! code ERESOLVE`.
fn is_log_level(before: &str, c: char) -> bool {
    c == '!'
        && before
            .strip_suffix("ERR")
            .is_some_and(|tool| tool.is_empty() || tool.ends_with(' '))
}

/// Whether `lower` (already lowercased) holds one of `phrases` where a word
/// starts: "ugh" in "ugh, again" but not in "tough". A phrase opening with
/// CJK needs no boundary, as those scripts write no spaces.
pub fn holds_phrase<'a>(lower: &str, phrases: impl IntoIterator<Item = &'a str>) -> bool {
    phrases.into_iter().any(|p| {
        let cjk = p.chars().next().is_some_and(is_cjk);
        lower.match_indices(p).any(|(i, _)| {
            cjk || !lower[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
    })
}

/// A Hangul syllable: Korean, which spaces its words.
pub fn is_hangul(c: char) -> bool {
    ('\u{AC00}'..='\u{D7AF}').contains(&c)
}

/// A Han, kana or Hangul character.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x20000..=0x2FA1F)
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last path segment of a project path.
pub fn project_basename(project: &str) -> Option<&str> {
    project
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|b| !b.is_empty())
}

fn has_anchor(sentence: &str, project: Option<&str>) -> bool {
    if let Some(base) = project.and_then(project_basename)
        && sentence.to_lowercase().contains(&base.to_lowercase())
    {
        return true;
    }
    sentence.split_whitespace().any(is_anchor_word)
}

/// A path or file token, an issue/PR/task id, or a named component.
fn is_anchor_word(word: &str) -> bool {
    if word.starts_with('`') && word.len() > 2 {
        return true;
    }
    let w = word
        .trim_matches(|c: char| !c.is_alphanumeric() && !matches!(c, '/' | '#' | '_' | '-' | '.'));
    let w = w.trim_end_matches('.');
    if w.len() < 2 {
        return false;
    }
    let has_alpha = w.chars().any(char::is_alphabetic);
    let has_digit = w.chars().any(|c| c.is_ascii_digit());
    // A path: `src/lib.rs`, `/etc/hosts`.
    if w.contains('/') && has_alpha {
        return true;
    }
    // A file: `lib.rs`, `Cargo.toml`.
    if let Some((stem, ext)) = w.rsplit_once('.')
        && !stem.is_empty()
        && (1..=5).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return true;
    }
    // An id: `#123`, `DP-19`, `PR-42`.
    if w.starts_with('#') && w.len() > 1 && w[1..].chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    if has_digit && has_alpha && w.contains('-') {
        return true;
    }
    // A component: `snake_case`, `kebab-case`, `CamelCase`, `SQLite`.
    if w.contains('_') && has_alpha {
        return true;
    }
    if w.contains('-') && w.split('-').filter(|p| !p.is_empty()).count() >= 2 && has_alpha {
        return true;
    }
    w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase)
}

/// Makes a sentence one inert line: control characters and newlines become
/// single spaces, and nothing can open or close a wikilink (`[[`, `]]`), start a
/// markdown link target (`](`), open or close an HTML comment (so no block
/// marker), or split a ledger row (` | `, escaped as ` \\| `). Decisions look at what was already
/// emitted, so runs like `[[[` cannot re-form a pair.
pub fn neutralise(sentence: &str) -> String {
    let mut out = String::with_capacity(sentence.len() + 8);
    let mut space = false;
    for c in sentence.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            // A pipe that could read as a row separator (` | `, or opening
            // the field) keeps its byte behind Markdown's escape, which
            // Obsidian shows as `|`; `a|b` cannot split a row and stays.
            '|' if out.is_empty() || out.ends_with(' ') => out.push_str("\\|"),
            '[' | ']' if out.ends_with(c) => {
                out.push(' ');
                out.push(c);
            }
            '(' if out.ends_with(']') => out.push_str(" ("),
            '-' if out.ends_with("<!-") => out.push_str(" -"),
            '>' if out.ends_with("--") => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// The longest token a sentence keeps whole (a long path fits): a base64
/// paste or minified JSON in a request is cut to its start, so the sentence
/// (written into three artifacts' frontmatter) stays a line, whatever the
/// session held.
const MAX_TOKEN_CHARS: usize = 120;

/// `sentence` with every token over [`MAX_TOKEN_CHARS`] cut to its start and
/// `…`, its closing punctuation kept; the word count does not change.
pub fn bounded(sentence: &str) -> String {
    if sentence
        .split_whitespace()
        .all(|t| t.chars().count() <= MAX_TOKEN_CHARS)
    {
        return sentence.to_string();
    }
    sentence
        .split_whitespace()
        .map(|t| {
            if t.chars().count() <= MAX_TOKEN_CHARS {
                return t.to_string();
            }
            let stop: String = t
                .chars()
                .rev()
                .take_while(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？'))
                .collect();
            let head: String = t.chars().take(MAX_TOKEN_CHARS - 8).collect();
            format!("{head}…{stop}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The facts a fallback sentence is built from.
pub struct SessionFacts<'a> {
    pub harness: Option<&'a str>,
    pub identity: &'a str,
    pub project: Option<&'a str>,
    pub membership_ts: &'a str,
    pub token: &'a str,
    pub kinds: &'a [&'a str],
}

/// A deterministic sentence from metadata alone that passes the floor.
pub fn fallback(f: &SessionFacts<'_>) -> String {
    let harness = f
        .harness
        .filter(|h| !h.trim().is_empty())
        .unwrap_or("agent");
    let project = f
        .project
        .and_then(project_basename)
        .map(|b| format!("project {b}"))
        .unwrap_or_else(|| "no named project".to_string());
    let kinds = if f.kinds.is_empty() {
        "session".to_string()
    } else {
        f.kinds.join(" and ")
    };
    let identity: String = f.identity.chars().take(64).collect();
    let day = f.membership_ts.get(..10).unwrap_or(f.membership_ts);
    neutralise(&format!(
        "Recorded {harness} session {identity} for {project} on {day} with its {kinds} kept under memory/{token} for drill-down.",
        token = f.token
    ))
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_a_swap_is_one() {
        assert_eq!(edit_distance("backoff", "backoff"), 0);
        assert_eq!(edit_distance("bakcoff", "backoff"), 1);
        assert_eq!(edit_distance("backof", "backoff"), 1);
        assert_eq!(edit_distance("retyr", "retry"), 1);
        assert_eq!(edit_distance("daemon", "demon"), 1);
        assert_eq!(edit_distance("cache", "catch"), 2);
    }

    /// A mark inside an inline code span ends no sentence: a regex, a
    /// command with `?` or `!`, a path ending in a dot. A backtick that
    /// never closes on its line opens no span.
    #[test]
    fn a_mark_inside_inline_code_ends_no_sentence() {
        for (text, first) in [
            (
                "`^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$` matches it. Then more.",
                "`^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$` matches it.",
            ),
            (
                "Run `git stash pop! now` to restore. Then push.",
                "Run `git stash pop! now` to restore.",
            ),
            ("It's done. Then `x`.", "It's done."),
            ("A stray ` tick. Next one.", "A stray ` tick."),
        ] {
            assert_eq!(&text[..first_sentence_end(text)], first, "{text}");
        }
    }

    /// The class: a package manager's log line, its level marked `ERR!`
    /// (npm, node-gyp), pasted as the request: the mark ends no sentence,
    /// so the line says what failed. Any other `!` ("It works!", a word
    /// that only ends in ERR) still ends one.
    #[test]
    fn a_log_lines_err_mark_ends_no_sentence() {
        for (text, first) in [
            (
                "npm ERR! code ERESOLVE\nnpm ERR! more",
                "npm ERR! code ERESOLVE\nnpm ERR! more",
            ),
            (
                "gyp ERR! stack Error: not found. Then.",
                "gyp ERR! stack Error: not found.",
            ),
            (
                "ERR! missing script: build. Then.",
                "ERR! missing script: build.",
            ),
            ("It printed TERR! Then it quit.", "It printed TERR!"),
            ("It works! Then it quit.", "It works!"),
        ] {
            assert_eq!(&text[..first_sentence_end(text)], first, "{text}");
        }
    }

    fn cfg() -> SentenceConfig {
        SentenceConfig::default()
    }

    #[test]
    fn spec_example_sentence_passes() {
        let s = "Finalized DP-19 write-gate clamping decisions and queued scope-aware dedup parity validation before merge.";
        assert_eq!(
            check(s, Some("/home/nicholai/signet/signetai"), &cfg()),
            None
        );
    }

    #[test]
    fn low_signal_and_short_sentences_fail() {
        assert_eq!(
            check("Worked on task.", None, &cfg()),
            Some(FloorFailure::LowSignal)
        );
        assert_eq!(
            check("Fixed the bug in lib.rs today.", None, &cfg()),
            Some(FloorFailure::WordCount(6))
        );
        let no_anchor =
            "We talked for a long while about many things and then we went home after that.";
        assert_eq!(check(no_anchor, None, &cfg()), Some(FloorFailure::NoAnchor));
    }

    #[test]
    fn cjk_text_counts_two_characters_a_word() {
        assert_eq!(word_count("Fixed the bug."), 3);
        assert_eq!(word_count("修复了登录页面的错误"), 5);
        assert_eq!(word_count("用uv管理"), 3);
        assert_eq!(word_count("a — b"), 3);
        let s =
            "在 workspace-demo 中把 Codex 学习大纲写入飞书文档并补全了第二部分和第四部分的内容。";
        assert_eq!(
            check(s, Some("/home/h/.openclaw/workspace-demo"), &cfg()),
            None
        );
    }

    #[test]
    fn neutralised_text_cannot_form_links_comments_or_fields() {
        let hostile = "a [[[b]]] c\n## h <!-- memsync:end --> x](y) | z\t<!---->";
        let out = neutralise(hostile);
        for forbidden in ["[[", "]]", "](", "<!--", "-->", " | ", "\n", "\t"] {
            assert!(!out.contains(forbidden), "{forbidden:?} in {out:?}");
        }
        assert_eq!(neutralise("rg --files | rg x"), "rg --files \\| rg x");
        assert_eq!(neutralise("| a|b"), "\\| a|b");
        assert_eq!(neutralise("  plain   words here. "), "plain words here.");
    }

    #[test]
    fn a_long_token_is_cut_to_its_start_and_keeps_the_sentence_a_line() {
        let token = "QUJD".repeat(20_000);
        let s = bounded(&format!(
            "Decoded the {token} blob in shop/api.rs and found {token}."
        ));
        assert!(s.len() < 300, "{} bytes", s.len());
        assert!(s.ends_with("….") && s.contains("shop/api.rs"), "{s}");
        assert_eq!(word_count(&s), 9);
        assert_eq!(bounded("Fixed the bug."), "Fixed the bug.");
    }

    #[test]
    fn fallback_passes_the_floor() {
        for project in [Some("/home/u/code/memsync"), None] {
            let s = fallback(&SessionFacts {
                harness: Some("claude-code"),
                identity: "abc",
                project,
                membership_ts: "2026-03-28T22:34:06.792Z",
                token: "h7k3n4p9m2x1q8r5",
                kinds: &["summary", "transcript"],
            });
            assert_eq!(check(&s, project, &cfg()), None, "{s}");
        }
    }
}
