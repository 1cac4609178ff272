// The properties the fuzz targets check. Shared by `include!` with
// `tests/fuzz_corpus.rs`, which replays the committed corpus (and any crash
// the fuzzer found) through the same checks on every `cargo test`.

use memsync::capture::sanitize::sanitize;
use memsync::contract::normalize_body;
use memsync::parse::{extract_wikilinks, parse_document, split_frontmatter};
use memsync::sentence::neutralise;

/// A planted key of each shape the sanitizer knows must never come out.
const PLANTED: &[&str] = &[
    "sk-ant-api03-Zq7Hh2Lx9PpWm4Rt8Ks1Vb6Nn3Jc5Yd0Ee2Ff4Gg6Hh8",
    "ghp_4Vt9Lq2Zx7Mb1Nc8Rk3Sd6Hf0Jg5Wp2Yy9Qe",
    "AKIAZQ7HH2LX9PPWM4RT",
];

pub fn frontmatter(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((yaml, body)) = split_frontmatter(text) {
        // The split never invents or loses bytes: both parts are slices of the input.
        assert!(yaml.len() + body.len() < text.len());
        assert!(text.ends_with(body));
    }
    let _ = parse_document(text);
}

pub fn normalize(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let once = normalize_body(&text);
    assert_eq!(normalize_body(&once), once, "normalisation is not idempotent");
    let crlf = text.replace("\r\n", "\n").replace('\r', "\n").replace('\n', "\r\n");
    assert_eq!(normalize_body(&crlf), once, "line endings changed the normalised body");
}

pub fn wikilinks(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for link in extract_wikilinks(&text) {
        assert!(!link.target.contains('\n'), "a link target spans lines: {link:?}");
        assert!(!link.target.contains("]]"), "a link target holds its own end: {link:?}");
    }
}

pub fn sanitizer(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let once = sanitize(&text);
    assert_eq!(sanitize(&once.text).text, once.text, "sanitizing twice changed the text");
    // Planted on a line of its own between two copies of the input; the
    // input may hold the same characters glued into a longer word, which is
    // not a key and rightly stays.
    for secret in PLANTED {
        let planted = format!("{text}\n{secret}\n{text}");
        let out = sanitize(&planted).text;
        assert!(!out.contains(&format!("\n{secret}\n")), "a planted secret came through: {secret}");
    }
}

pub fn sentence(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let line = neutralise(&text);
    for forbidden in ["\n", "\r", "[[", "]]", "<!--", "-->", " | ", "]("] {
        assert!(!line.contains(forbidden), "{forbidden:?} in a neutralised sentence {line:?}");
    }
    assert!(!line.starts_with('|'), "a row field opened by a pipe: {line:?}");
    assert_eq!(neutralise(&line), line);
}
