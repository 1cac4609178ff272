//! How a line of a message reads as words: markdown links by their words,
//! long paths and web addresses shortened, list markers, check marks and
//! headings taken off, a reply read past the words it quotes, and a request
//! without the screenshot dropped into it.
//!
//! Owns: those readings of one line or text. Must not: choose which line
//! or sentence is the request or outcome (the gist does).

/// Markdown links as their words: "[src/export.py:88](/home/dev/shop/src/export.py:88)"
/// says "src/export.py:88" (Codex links every file it names), and "[the
/// docs](https://…)" says "the docs".
pub(super) fn unlinked(text: &str) -> std::borrow::Cow<'_, str> {
    static LINK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\[\s*([^\[\]\n]*?[^\[\]\s])\s*\]\([^()\s]+(?:\([^()\s]*\)[^()\s]*)*\)")
            .expect("pattern compiles")
    });
    LINK.replace_all(text, "$1")
}

/// Absolute paths with their last two parts (`…/docs/architecture.md`), and
/// web addresses without their scheme, a long one with its host and last two
/// parts (`github.com/acme/shop/issues/42`, `github.com/…/button/index.ts`),
/// so a request keeps its words when it is clipped.
pub(super) fn short_paths(text: &str) -> String {
    static URL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\bhttps?://([^\s/()<>]+)((?:/[^\s/()<>]+)*)/?")
            .expect("pattern compiles")
    });
    let text = URL.replace_all(text, |c: &regex::Captures<'_>| {
        let parts: Vec<&str> = c[2].split('/').skip(1).collect();
        match parts.len() {
            0..=4 => format!("{}{}", &c[1], &c[2]),
            n => format!("{}/…/{}/{}", &c[1], parts[n - 2], parts[n - 1]),
        }
    });
    static PATH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(^|[^A-Za-z0-9_.~/-])((?:~|/)[A-Za-z0-9_.~-]*(?:/[A-Za-z0-9_.~@+-]+){3,})",
        )
        .expect("pattern compiles")
    });
    PATH.replace_all(&text, |c: &regex::Captures<'_>| {
        let parts: Vec<&str> = c[2].rsplitn(3, '/').collect();
        format!("{}…/{}/{}", &c[1], parts[1], parts[0])
    })
    .into_owned()
}

/// A path or file name (`src/fetch.rs`, `@docs/plan.md`, `Cargo.toml`).
pub(super) fn is_path_token(word: &str) -> bool {
    let w = word.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ':'));
    w.contains('/')
        || w.starts_with('@')
        || w.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// A line without its heading, quote or list marker (`1.`, `2)`, `-`, `•`,
/// the check marks agents list what they did with: `✅`, `✔️`, `☑`, and a
/// task list's boxes: `- [ ]`, `- [x]`, `☐`).
pub(super) fn unmarked(line: &str) -> &str {
    let line = super::super::brief::without_ornaments(line);
    let line = line.trim_start_matches([
        '#', '>', '-', '*', '•', '◦', '▪', '‣', ' ', '✅', '✔', '✓', '☑', '☐', '\u{FE0F}',
    ]);
    let line = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| line.strip_prefix(b))
        .map_or(line, str::trim_start);
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    match line[digits..].strip_prefix(['.', ')']) {
        Some(rest) if (1..=3).contains(&digits) && rest.starts_with(' ') => rest.trim_start(),
        _ => line,
    }
}

/// A reply past the words it quotes: "> I added a retry with a fixed
/// delay.\nNo, use exponential backoff." answers the quote; the person's
/// own words after it are the ask. A quote with nothing after it stays.
pub(super) fn past_quote(text: &str) -> &str {
    if !text.trim_start().starts_with('>') {
        return text;
    }
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let l = line.trim();
        if !l.is_empty() && !l.starts_with('>') {
            return &text[at..];
        }
        at += line.len();
    }
    text
}

/// A request without the path of an image dropped into the terminal before
/// or after its words ("/home/dana/Pictures/Screenshot_1.png the button is
/// misaligned", a macOS path with `\ ` escapes, a quoted one, a Windows
/// one): the image is what the words are about, like Claude Code's `[Image
/// #1]`, and its path asks nothing; so does a markdown image pasted with an
/// issue, and an HTML comment, which no one sees. A path inside the words
/// stays.
pub(super) fn without_dropped_images(text: &str) -> std::borrow::Cow<'_, str> {
    static DROPPED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let ext = r"\.(?:png|jpe?g|gif|webp|heic|bmp|tiff?)";
        let path = format!(
            r#"(?:'[^'\n]+{ext}'|"[^"\n]+{ext}"|(?:~|/|[A-Za-z]:\\)(?:[^\s\\]|\\[ \\]|\\[^\s\\])*?{ext})"#
        );
        // A file name may hold bare spaces before a date or time, or a
        // short word ("Screenshot 2026-11-20 at 10.12.03.png"), not prose.
        let spaced = format!(
            r"(?:~|/)(?:[^\s/]+/)+[^\s/]+(?: (?:[^\s/]{{1,3}}|[^\s/]*\d[^\s/]*?))+?{ext}\b"
        );
        // A markdown image pasted from an issue: "![screenshot](https://…)".
        let markdown = r"!\[[^\]\n]*\]\([^)\s]+\)";
        regex::Regex::new(&format!(
            r"(?i)^(?:\s*(?:{path}|{spaced}|{markdown}))+\s*|\s*(?:(?:{path}|{spaced}|{markdown})\s*)+$"
        ))
        .expect("pattern compiles")
    });
    // An HTML comment ("<!-- template v2 -->", an issue template's hints)
    // is never shown, so never asked.
    static COMMENT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?s)<!--.*?-->").expect("pattern compiles")
    });
    match COMMENT.replace_all(text, "") {
        std::borrow::Cow::Borrowed(text) => DROPPED.replace_all(text, ""),
        std::borrow::Cow::Owned(text) => DROPPED.replace_all(&text, "").into_owned().into(),
    }
}

/// A numbered list that lost its line breaks ("OBJECTIFS :1. Analyse le
/// fichier `index.astro`.2. Repère le lien mort …3. Vérifie …", pasted from
/// a page or a form that keeps one line) with its items on lines again: an
/// item number counts only after the end of the one before it (a stop, a
/// colon, a closing mark) and in order from 1, so "version 2. Then" or
/// "Chapter 3. of the book" stays as it is.
pub(super) fn with_list_breaks(text: &str) -> std::borrow::Cow<'_, str> {
    static ITEM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[.!?:;。！？：；)`'’\x22»])[ \t]?(\d{1,2})[.)][ \t]+\S")
            .expect("pattern compiles")
    });
    let mut breaks: Vec<usize> = Vec::new();
    for line in text.lines() {
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        let mut next = 1;
        let mut found = Vec::new();
        for c in ITEM.captures_iter(line) {
            let number = &c[1];
            if number.parse::<usize>() == Ok(next) {
                found.push(start + c.get(1).map_or(0, |m| m.start()));
                next += 1;
            }
        }
        // Items glued one after another; a list already on its lines, or
        // one item, is left alone.
        if found.len() >= MIN_GLUED_ITEMS {
            breaks.extend(found.into_iter().filter(|&at| at > start));
        }
    }
    if breaks.is_empty() {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + breaks.len());
    let mut from = 0;
    for at in breaks {
        out.push_str(text[from..at].trim_end_matches([' ', '\t']));
        out.push('\n');
        from = at;
    }
    out.push_str(&text[from..]);
    out.into()
}

/// Items on one line that read as a list that lost its breaks.
const MIN_GLUED_ITEMS: usize = 3;
