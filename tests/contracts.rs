//! The pinned contracts of DESIGN.md: tokens, checksum scope, frontmatter styles, wikilinks.

mod common;

use common::{Workspace, has_rule, now, path_of, session, ts};
use memsync::contract;
use memsync::contract::TokenRule;
use memsync::validate::Severity;
use sha2::Digest;

/// Vectors computed outside memsync (Python hashlib + base64.b32encode).
#[test]
fn token_matches_independently_computed_vectors() {
    assert_eq!(
        contract::session_token("default", "signetai-dp19"),
        "gwar7autu3gbs32c"
    );
    assert_eq!(
        contract::session_token("default", "a245b4fc-b607-4c50-8566-ebe23264272f"),
        "ly63agshl7q5mxfi"
    );
    assert_eq!(
        contract::session_token("ops", "signetai-dp19"),
        "ordvtqqimusjsesc"
    );
}

#[test]
fn spec_rule_prefers_trimmed_session_key_and_legacy_rule_uses_session_id() {
    let spec = contract::token_for(
        TokenRule::Spec,
        "default",
        Some("  signetai-dp19 "),
        "a245b4fc-b607-4c50-8566-ebe23264272f",
    );
    assert_eq!(spec, "gwar7autu3gbs32c");
    let legacy = contract::token_for(
        TokenRule::SessionId,
        "default",
        Some("signetai-dp19"),
        " a245b4fc-b607-4c50-8566-ebe23264272f ",
    );
    assert_eq!(legacy, "ly63agshl7q5mxfi");
    // An empty key falls back to the session id under the spec rule too.
    assert_eq!(
        contract::token_for(TokenRule::Spec, "default", Some("  "), " padded-id "),
        "ovjpuucdgpile4xk"
    );
}

#[test]
fn files_named_with_either_token_rule_are_accepted() {
    let ws = Workspace::new();
    let mut s = session(
        "default",
        "a245b4fc-b607-4c50-8566-ebe23264272f",
        ts("2026-11-19T10:00:00Z"),
    );
    s.session_key = Some("signetai-dp19".into());
    let spec_paths = ws.add(&s);
    assert!(spec_paths[0].contains("gwar7autu3gbs32c"));

    let mut legacy = s.clone();
    legacy.session_id = "b-other".into();
    legacy.session_key = Some("other-key".into());
    let mut cfg = ws.settings.config.clone();
    cfg.token.write_rule = TokenRule::SessionId;
    for (rel, text) in legacy.files(&cfg) {
        ws.write(&rel, &text);
    }
    let report = ws.check();
    assert_eq!(report.errors, 0, "{:?}", report.problems);
    let indexed: i64 = ws
        .db()
        .query_row("SELECT COUNT(DISTINCT token) FROM artifacts", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(indexed, 2);
}

#[test]
fn a_token_matching_neither_rule_is_a_naming_problem() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "s-1", ts("2026-11-19T10:00:00Z")));
    let summary = path_of(&paths, "summary");
    let renamed = summary.replace(
        &contract::session_token("default", "s-1"),
        "aaaaaaaaaaaaaaaa",
    );
    std::fs::rename(ws.path(&summary), ws.path(&renamed)).unwrap();
    assert!(has_rule(
        &ws.problems_for(&renamed),
        "naming.token",
        Severity::Error
    ));
}

/// Spec validation test 6: the `body-normalized-v1` scope.
#[test]
fn checksum_scope_normalizes_line_endings_and_trailing_whitespace_only() {
    let body = "\r\nline one  \r\nline two\t\rthree\u{a0}\n  \n\n";
    let expected = "\nline one\nline two\nthree\u{a0}";
    assert_eq!(contract::normalize_body(body), expected);
    let independent = data_encoding::HEXLOWER.encode(&sha2::Sha256::digest(expected.as_bytes()));
    assert_eq!(
        independent,
        "80dd4aa6fee6f8f4ccd36a53909d37d774526d5892144fe8f76b05ad7868e204"
    );
    assert_eq!(contract::body_sha256(body), independent);
    // Leading blank lines and other Unicode spaces change the hash.
    assert_ne!(
        contract::body_sha256("line"),
        contract::body_sha256("\nline")
    );
    assert_ne!(
        contract::body_sha256("line"),
        contract::body_sha256("line\u{2003}")
    );
    // CRLF, lone CR, trailing spaces and blank lines do not.
    assert_eq!(
        contract::body_sha256("a\nb"),
        contract::body_sha256("a  \r\nb\t\r\n\r\n")
    );
    assert_eq!(
        contract::body_sha256("a\nb"),
        contract::body_sha256("a\rb\n\n")
    );
}

#[test]
fn a_crlf_artifact_with_a_normalized_checksum_is_valid() {
    let ws = Workspace::new();
    let paths = ws.add(&session("default", "s-crlf", ts("2026-11-19T10:00:00Z")));
    let summary = path_of(&paths, "summary");
    let crlf = ws.read(&summary).replace('\n', "\r\n");
    ws.write(&summary, &crlf);
    assert!(
        ws.problems_for(&summary).is_empty(),
        "{:?}",
        ws.problems_for(&summary)
    );
}

#[test]
fn plain_yaml_frontmatter_in_any_key_order_is_accepted() {
    let ws = Workspace::new();
    let ended = ts("2026-11-19T10:00:00Z");
    let token = contract::session_token("default", "plain-1");
    let name = |kind| {
        format!(
            "memory/{}",
            contract::canonical_file_name(ended, &token, kind)
        )
    };
    let body = "Plain style body.\n";
    let summary = format!(
        "---\nmemory_sentence: Rewrote the memsync parser in src/parse.rs so plain YAML frontmatter validates like JSON style.\n\
         kind: summary\nagent_id: default\nsession_id: plain-1\nsession_key: ~\nproject: /home/dev/code/memsync\n\
         harness: codex\ncaptured_at: 2026-11-19T10:00:00Z\nstarted_at: ~\nended_at: 2026-11-19T10:00:00.000Z\n\
         manifest_path: {}\nsource_node_id: ~\ncontent_sha256: {}\nhash_scope: body-normalized-v1\n\
         memory_sentence_version: 1\nmemory_sentence_quality: ok\nmemory_sentence_generated_at: 2026-11-19T10:00:00+00:00\n---\n{body}",
        name(contract::ArtifactKind::Manifest),
        contract::body_sha256(body)
    );
    let manifest = format!(
        "---\nkind: manifest\nagent_id: default\nsession_id: plain-1\nsession_key: ~\nproject: ~\nharness: codex\n\
         captured_at: 2026-11-19T10:00:00Z\nsummary_path: {}\ntranscript_path: {}\ncompaction_path: ~\nmemory_md_refs: []\n\
         updated_at: 2026-11-19T10:00:00Z\n---\n",
        name(contract::ArtifactKind::Summary),
        name(contract::ArtifactKind::Summary)
    );
    ws.write(&name(contract::ArtifactKind::Summary), &summary);
    ws.write(&name(contract::ArtifactKind::Manifest), &manifest);
    let report = ws.check();
    let summary_problems: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.path.ends_with("--summary.md"))
        .collect();
    assert!(summary_problems.is_empty(), "{summary_problems:?}");
    // The manifest's transcript_path names a summary: a graph error, proving the manifest was read.
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.rule == "link.graph" && p.reason.contains("transcript_path"))
    );
}

/// Spec validation test 3: wikilinks are workspace-root-relative.
#[test]
fn wikilinks_must_be_workspace_root_relative() {
    let ws = Workspace::new();
    let cases = [
        (
            "[[memory/2026-11-19T10-00-00.000Z--aaaaaaaaaaaaaaaa--summary.md|summary]]",
            None,
        ),
        (
            "[[2026-11-19T10-00-00.000Z--aaaaaaaaaaaaaaaa--summary.md]]",
            Some("link.not-root-relative"),
        ),
        ("[[../outside.md]]", Some("link.invalid")),
        ("[[/etc/passwd]]", Some("link.invalid")),
        ("[[file:///etc/passwd]]", Some("link.invalid")),
        ("`[[../in-code.md]]`", None),
    ];
    for (i, (link, rule)) in cases.iter().enumerate() {
        let mut s = session(
            "default",
            &format!("links-{i}"),
            ts("2026-11-19T10:00:00Z") + chrono::Duration::minutes(i as i64),
        );
        if let Some(summary) = s.summary.as_mut() {
            summary.body = format!("See {link} for details.\n");
        }
        let paths = ws.add(&s);
        let problems = ws.problems_for(&path_of(&paths, "summary"));
        let rules: Vec<&str> = problems.iter().map(|p| p.rule.as_str()).collect();
        match rule {
            Some(rule) => assert!(rules.contains(rule), "{link}: {rules:?}"),
            None => assert!(
                rules.iter().all(|r| !r.starts_with("link.")),
                "{link}: {rules:?}"
            ),
        }
    }
}

#[test]
fn manifest_paths_must_resolve_to_the_right_kind_and_session() {
    let ws = Workspace::new();
    let a = ws.add(&session("default", "graph-a", ts("2026-11-19T10:00:00Z")));
    let b = ws.add(&session("default", "graph-b", ts("2026-11-19T11:00:00Z")));
    let manifest = path_of(&a, "manifest");
    // The property alone: the body's links are the reader's, not the graph's.
    let key = |paths: &[String]| format!("summary_path: \"{}\"", path_of(paths, "summary"));
    let text = ws.read(&manifest).replace(&key(&a), &key(&b));
    ws.write(&manifest, &text);
    let problems = ws.problems_for(&manifest);
    assert!(
        problems
            .iter()
            .any(|p| p.rule == "link.graph" && p.reason.contains("names session")),
        "{problems:?}"
    );
    // A manifest naming an artifact that is not there is a warning: Signet's
    // names a summary and a transcript before either is written.
    ws.remove(&path_of(&b, "transcript"));
    let problems = ws.problems_for(&path_of(&b, "manifest"));
    assert!(
        problems.iter().any(|p| p.rule == "link.pending"
            && p.severity == Severity::Warning
            && p.reason.contains("does not exist")),
        "{problems:?}"
    );
    let _ = now();
}

/// A manifest as Signet writes it: no body, and the checksum of none.
fn without_body(text: &str) -> String {
    let end = text[4..].find("\n---\n").map(|i| i + 4 + 5).unwrap();
    let declared = text
        .lines()
        .find(|l| l.starts_with("content_sha256: "))
        .unwrap();
    let empty = format!("content_sha256: \"{}\"", contract::body_sha256(""));
    text[..end].replace(declared, &empty)
}

/// What Signet's Rust daemon writes: chrono's RFC 3339 names (nanoseconds,
/// `+00:00` made `+00-00`), `captured_at` in the same form, and a manifest
/// that names a summary before it exists.
#[test]
fn a_session_in_signets_rust_naming_and_manifest_style_indexes_with_no_error() {
    let ws = Workspace::new();
    let at = ts("2026-11-24T07:33:11.375Z");
    let paths = ws.add(&session("default", "signet-rs-1", at));
    let (ms_name, ns_name) = (
        "2026-11-24T07-33-11.375Z",
        "2026-11-24T07-33-11.375543000+00-00",
    );
    let (ms_ts, ns_ts) = (
        "2026-11-24T07:33:11.375Z",
        "2026-11-24T07:33:11.375543+00:00",
    );
    for rel in &paths {
        let mut text = ws.read(rel).replace(ms_name, ns_name).replace(ms_ts, ns_ts);
        if rel.ends_with("--manifest.md") {
            text = without_body(&text);
        }
        ws.remove(rel);
        ws.write(&rel.replace(ms_name, ns_name), &text);
    }
    // A transcript-only session: the manifest still names its summary.
    ws.remove(&path_of(&paths, "summary").replace(ms_name, ns_name));
    let report = ws.check();
    let errors: Vec<_> = report
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(
        report.problems.iter().any(|p| p.rule == "link.pending"),
        "{:?}",
        report.problems
    );
}
