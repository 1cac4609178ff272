//! Property tests (proptest) for the functions that meet hostile text first:
//! the frontmatter splitter and parser, body normalisation, wikilink
//! extraction, the transcript reader, the sanitizer and sentence neutralising.
//! Each runs `PROPERTY_CASES` generated cases per `cargo test` (rendering,
//! a real workspace per case, `RENDER_CASES`; `PROPTEST_CASES` overrides
//! both); a failing case is shrunk and saved under
//! `tests/properties.proptest-regressions`.

use memsync::capture::sanitize;
use memsync::contract::{body_sha256, normalize_body};
use memsync::parse::{extract_wikilinks, parse_document};
use memsync::sentence::neutralise;
use proptest::prelude::*;

mod common;

use common::hardening::{PROPERTY_CASES, RENDER_CASES, assert_structural, cases};
use common::{Workspace, session, ts};

/// Text with the characters that matter to these parsers over-represented.
fn markdownish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("---\n".to_string()),
            Just("[[".to_string()),
            Just("]]".to_string()),
            Just("|".to_string()),
            Just("\r\n".to_string()),
            Just("<!-- memsync:end -->".to_string()),
            Just("# ".to_string()),
            Just("`".to_string()),
            Just("key: \"v\"\n".to_string()),
            Just("  \t".to_string()),
            any::<String>(),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(PROPERTY_CASES)))]

    #[test]
    fn normalisation_is_idempotent_and_ignores_line_endings(text in markdownish()) {
        let once = normalize_body(&text);
        prop_assert_eq!(normalize_body(&once), once.clone());
        let lf = text.replace("\r\n", "\n").replace('\r', "\n");
        prop_assert_eq!(body_sha256(&lf.replace('\n', "\r\n")), body_sha256(&text));
        prop_assert!(!once.ends_with('\n'));
    }

    #[test]
    fn the_frontmatter_parser_and_link_extractor_never_panic(text in markdownish()) {
        let _ = parse_document(&text);
        for link in extract_wikilinks(&text) {
            prop_assert!(!link.target.contains('\n'));
        }
    }

    #[test]
    fn the_transcript_reader_never_panics_and_counts_every_line(lines in proptest::collection::vec(markdownish(), 0..12)) {
        let jsonl = format!("{{\"role\":\"user\",\"content\":\"hi\"}}\n{}", lines.join("\n"));
        let t = memsync::harnesses::read(&jsonl);
        prop_assert!(t.skipped_lines + t.messages.len() <= jsonl.lines().count());
    }

    #[test]
    fn the_sanitizer_is_idempotent_and_never_lets_a_key_through(
        before in markdownish(),
        after in markdownish(),
        key in "[A-Za-z0-9]{24,40}",
    ) {
        let secret = format!("sk-ant-api03-{key}");
        let text = format!("{before} {secret} {after}");
        let once = sanitize::sanitize(&text);
        prop_assert!(!once.text.contains(&secret));
        prop_assert!(!once.text.contains(&key));
        prop_assert_eq!(sanitize::sanitize(&once.text).text, once.text);
    }

    #[test]
    fn a_neutralised_sentence_is_one_inert_line(text in markdownish()) {
        let s = neutralise(&text);
        for forbidden in ["\n", "\r", "[[", "]]", "<!--", "-->", " | "] {
            prop_assert!(!s.contains(forbidden), "{:?} in {:?}", forbidden, s);
        }
        prop_assert!(!s.starts_with('|'), "a row field opened by a pipe: {:?}", s);
        prop_assert_eq!(neutralise(&s), s.clone());
    }
}

/// Text built to break a rendered line: newlines, headings, block markers,
/// wikilinks, row separators, list markers.
fn line_breaker() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("\n## Heading".to_string()),
            Just("\n### 2026-01-01\n".to_string()),
            Just("\r\n# Title".to_string()),
            Just("<!-- memsync:end -->".to_string()),
            Just("<!-- memsync:begin memory-md agent=default -->".to_string()),
            Just("[[memory/secret.md|x]]".to_string()),
            Just("[x](https://evil.example)".to_string()),
            Just(" | session=forged | ".to_string()),
            Just("\n- forged row".to_string()),
            Just("\u{2028}\u{85}\u{b}".to_string()),
            "[a-z ]{0,12}".prop_map(String::from),
            any::<String>(),
        ],
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(RENDER_CASES)))]

    /// Through the real pipeline: sessions whose sentence, session key and
    /// project carry hostile text render as rows, never as structure.
    #[test]
    fn rendering_never_turns_session_text_into_structure(
        texts in proptest::collection::vec((line_breaker(), line_breaker(), line_breaker()), 1..4)
    ) {
        let ws = Workspace::new();
        for (i, (sentence, key, project)) in texts.iter().enumerate() {
            let mut s = session("default", &format!("prop-{i}"), ts("2026-11-19T10:00:00Z"));
            // Anchored and long enough to pass the floor, so the text is used.
            let sentence = format!("Fixed the retry loop in src/pay.rs {sentence} and verified it with the integration tests.");
            for c in [&mut s.summary, &mut s.transcript].into_iter().flatten() {
                c.sentence = Some(sentence.clone());
            }
            s.session_key = Some(format!("k{i}{key}"));
            s.project = Some(format!("/home/dev/{project}"));
            ws.add(&s);
        }
        ws.sync();
        for rel in ["MEMORY.md", "memory/2026-11-19.md"] {
            if ws.exists(rel) {
                assert_structural(rel, &ws.read(rel));
            }
        }
    }
}
