//! Every problem rule: plant it in a real workspace and see `check` report it
//! with the file and the right severity. Hostile inputs (bombs, conflicts,
//! symlinks, …) and what they may not touch are in `tests/hardening.rs`.

mod common;

use common::{Workspace, good, now, path_of, session, ts};
use memsync::contract;
use memsync::validate::Severity;

/// Rewrites a file's text with `f`.
fn edit(ws: &Workspace, rel: &str, f: impl Fn(&str) -> String) {
    let text = ws.read(rel);
    ws.write(rel, &f(&text));
}

fn replace_key(text: &str, key: &str, line: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with(&format!("{key}:")) {
                line.to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

type Plant = fn(&Workspace) -> String;

const CASES: &[(&str, Severity, Plant)] = &[
    ("frontmatter.missing", Severity::Error, |ws| {
        let s = path_of(&good(ws, "fm-missing"), "summary");
        edit(ws, &s, |t| format!("\n{t}"));
        s
    }),
    ("frontmatter.unterminated", Severity::Error, |ws| {
        let s = path_of(&good(ws, "fm-open"), "summary");
        edit(ws, &s, |t| t.replacen("\n---\n", "\n", 1));
        s
    }),
    ("frontmatter.yaml", Severity::Error, |ws| {
        let s = path_of(&good(ws, "fm-yaml"), "summary");
        edit(ws, &s, |t| {
            t.replacen("kind: \"summary\"", "kind: [unclosed", 1)
        });
        s
    }),
    ("frontmatter.yaml", Severity::Error, |ws| {
        // Duplicate keys are a YAML error, not a silent override.
        let s = path_of(&good(ws, "fm-dup"), "summary");
        edit(ws, &s, |t| {
            t.replacen(
                "kind: \"summary\"",
                "kind: \"summary\"\nkind: \"summary\"",
                1,
            )
        });
        s
    }),
    ("frontmatter.not-mapping", Severity::Error, |ws| {
        let s = path_of(&good(ws, "fm-list"), "summary");
        ws.write(&s, "---\n- a\n- b\n---\nbody\n");
        s
    }),
    ("frontmatter.too-large", Severity::Error, |ws| {
        let s = path_of(&good(ws, "fm-big"), "summary");
        edit(ws, &s, |t| {
            t.replacen(
                "---\n",
                &format!("---\npad: \"{}\"\n", "x".repeat(70_000)),
                1,
            )
        });
        s
    }),
    ("key.missing", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-missing"), "summary");
        edit(ws, &s, |t| replace_key(t, "harness", ""));
        s
    }),
    ("key.type", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-type"), "summary");
        edit(ws, &s, |t| replace_key(t, "project", "project:\n  - \"a\""));
        s
    }),
    ("key.type", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-num"), "summary");
        edit(ws, &s, |t| replace_key(t, "harness", "harness: 42"));
        s
    }),
    ("key.value", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-scope"), "summary");
        edit(ws, &s, |t| {
            replace_key(t, "hash_scope", "hash_scope: \"raw\"")
        });
        s
    }),
    ("key.value", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-quality"), "summary");
        edit(ws, &s, |t| {
            replace_key(
                t,
                "memory_sentence_quality",
                "memory_sentence_quality: \"great\"",
            )
        });
        s
    }),
    ("key.missing", Severity::Error, |ws| {
        // sanitizer_version is required on transcripts.
        let s = path_of(&good(ws, "k-sanitizer"), "transcript");
        edit(ws, &s, |t| replace_key(t, "sanitizer_version", ""));
        s
    }),
    ("key.timestamp", Severity::Error, |ws| {
        let s = path_of(&good(ws, "k-zone"), "summary");
        edit(ws, &s, |t| {
            replace_key(t, "ended_at", "ended_at: \"2026-11-19T10:00:00\"")
        });
        s
    }),
    ("key.unknown", Severity::Warning, |ws| {
        let s = path_of(&good(ws, "k-extra"), "summary");
        edit(ws, &s, |t| t.replacen("---\n", "---\nmood: \"happy\"\n", 1));
        s
    }),
    ("naming.kind", Severity::Error, |ws| {
        let s = path_of(&good(ws, "n-kind"), "summary");
        edit(ws, &s, |t| replace_key(t, "kind", "kind: \"compaction\""));
        s
    }),
    ("naming.captured-at", Severity::Error, |ws| {
        let s = path_of(&good(ws, "n-time"), "summary");
        edit(ws, &s, |t| {
            replace_key(
                t,
                "captured_at",
                "captured_at: \"2026-11-19T09:00:00.000Z\"",
            )
        });
        s
    }),
    ("naming.timestamp", Severity::Error, |ws| {
        let s = path_of(&good(ws, "n-ts"), "summary");
        let bad = s.replace("2026-11-19T10-00-00.000Z", "yesterday");
        std::fs::rename(ws.path(&s), ws.path(&bad)).unwrap();
        bad
    }),
    ("naming.token", Severity::Error, |ws| {
        let s = path_of(&good(ws, "n-token"), "summary");
        let bad = s.replace(
            &contract::session_token("default", "n-token"),
            "NOT-A-TOKEN",
        );
        std::fs::rename(ws.path(&s), ws.path(&bad)).unwrap();
        bad
    }),
    ("naming.misnamed", Severity::Warning, |ws| {
        ws.write(
            "memory/archive/2026-01-01-session-summary.md",
            "old notes\n",
        );
        "memory/archive/2026-01-01-session-summary.md".into()
    }),
    ("checksum.mismatch", Severity::Error, |ws| {
        let s = path_of(&good(ws, "c-body"), "summary");
        edit(ws, &s, |t| format!("{t}Edited in Obsidian.\n"));
        s
    }),
    ("link.invalid", Severity::Error, |ws| {
        let s = path_of(&good(ws, "l-abs"), "summary");
        edit(ws, &s, |t| {
            replace_key(t, "manifest_path", "manifest_path: \"/etc/passwd\"")
        });
        s
    }),
    ("link.not-root-relative", Severity::Error, |ws| {
        let paths = good(ws, "l-rel");
        let s = path_of(&paths, "summary");
        let file = path_of(&paths, "transcript").replace("memory/", "");
        let mut with_link = session("default", "l-rel", ts("2026-11-19T10:00:00Z"));
        with_link.summary.as_mut().unwrap().body = format!("See [[{file}]].\n");
        ws.add(&with_link);
        s
    }),
    ("link.graph", Severity::Error, |ws| {
        let a = good(ws, "l-graph");
        let b = good(ws, "l-graph-other");
        let manifest = path_of(&a, "manifest");
        let key = |paths: &[String]| format!("summary_path: \"{}\"", path_of(paths, "summary"));
        let text = ws.read(&manifest).replace(&key(&a), &key(&b));
        ws.write(&manifest, &text);
        manifest
    }),
    ("link.pending", Severity::Warning, |ws| {
        let paths = good(ws, "l-pending");
        ws.remove(&path_of(&paths, "summary"));
        path_of(&paths, "manifest")
    }),
    ("tombstone.resurrected", Severity::Error, |ws| {
        let paths = good(ws, "t-back");
        let token = contract::session_token("default", "t-back");
        let (rel, text) = memsync::compose::tombstone("default", &token, now(), "privacy", &paths);
        ws.write(&rel, &text);
        path_of(&paths, "summary")
    }),
    ("tombstone.invalid", Severity::Error, |ws| {
        ws.write(
            "memory/tombstones/default--aaaaaaaaaaaaaaaa.md",
            "---\nkind: \"tombstone\"\n---\n",
        );
        "memory/tombstones/default--aaaaaaaaaaaaaaaa.md".into()
    }),
    ("sentence.floor", Severity::Warning, |ws| {
        let s = path_of(&good(ws, "s-weak"), "summary");
        edit(ws, &s, |t| {
            replace_key(t, "memory_sentence", "memory_sentence: \"Reviewed code.\"")
        });
        s
    }),
    ("session.duplicate-kind", Severity::Warning, |ws| {
        let paths = good(ws, "dup-kind");
        let mut again = session("default", "dup-kind", ts("2026-11-19T11:00:00Z"));
        again.transcript = None;
        let s = path_of(&ws.add(&again), "summary");
        let _ = paths;
        s
    }),
    ("encoding.utf8", Severity::Error, |ws| {
        let s = path_of(&good(ws, "e-utf8"), "summary");
        std::fs::write(ws.path(&s), b"---\nkind: \"summary\xff\"\n---\n").unwrap();
        common::age(&ws.path(&s));
        s
    }),
    ("encoding.nul", Severity::Error, |ws| {
        let s = path_of(&good(ws, "e-nul"), "summary");
        std::fs::write(ws.path(&s), b"---\nkind: \"summary\"\n---\n\0\0").unwrap();
        common::age(&ws.path(&s));
        s
    }),
    ("path.symlink", Severity::Warning, |ws| {
        let target = ws.path("outside.txt");
        std::fs::write(&target, "secret").unwrap();
        let link = "memory/2026-11-19T10-00-00.000Z--aaaaaaaaaaaaaaaa--summary.md";
        std::fs::create_dir_all(ws.path("memory")).unwrap();
        std::os::unix::fs::symlink(&target, ws.path(link)).unwrap();
        link.into()
    }),
];

#[test]
fn every_rule_is_reported_with_its_file_and_severity() {
    for (rule, severity, plant) in CASES {
        let ws = Workspace::new();
        let path = plant(&ws);
        let problems = ws.problems_for(&path);
        assert!(
            problems
                .iter()
                .any(|p| p.rule == *rule && p.severity == *severity),
            "{rule} ({severity:?}) not reported for {path}: {problems:?}"
        );
        assert!(problems.iter().all(|p| !p.reason.is_empty()));
    }
}

#[test]
fn a_file_over_the_size_limit_is_reported_and_not_read() {
    let mut ws = Workspace::new();
    ws.settings.config.scan.max_file_bytes = 1024;
    let mut s = session("default", "huge", ts("2026-11-19T10:00:00Z"));
    s.transcript.as_mut().unwrap().body = "x".repeat(4096);
    let transcript = path_of(&ws.add(&s), "transcript");
    let problems = ws.problems_for(&transcript);
    assert!(
        problems.iter().any(|p| p.rule == "file.too-large"),
        "{problems:?}"
    );
}

#[test]
fn warnings_do_not_fail_check_but_errors_do() {
    let ws = Workspace::new();
    let s = path_of(&good(&ws, "warn-only"), "summary");
    edit(&ws, &s, |t| {
        replace_key(t, "memory_sentence", "memory_sentence: \"Worked on task.\"")
    });
    let report = ws.check();
    assert_eq!((report.errors, report.warnings), (0, 1));
    assert_eq!(report.exit_status(), memsync::ExitStatus::Ok);
    edit(&ws, &s, |t| format!("{t}tampered\n"));
    let report = ws.check();
    assert_eq!(report.exit_status(), memsync::ExitStatus::Problems);
}

#[test]
fn fixing_a_file_clears_its_problems() {
    let ws = Workspace::new();
    let s = path_of(&good(&ws, "fixable"), "summary");
    let original = ws.read(&s);
    ws.write(&s, &format!("{original}tampered\n"));
    assert_eq!(ws.check().errors, 1);
    ws.write(&s, &original);
    let report = ws.check();
    assert_eq!(report.errors, 0, "{:?}", report.problems);
}

#[test]
fn a_non_utf8_file_name_is_reported_and_skipped() {
    use std::os::unix::ffi::OsStrExt;
    let ws = Workspace::new();
    good(&ws, "fine");
    std::fs::create_dir_all(ws.path("memory")).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"memory/bad-\xff-name.md");
    std::fs::write(ws.root().join(name), "x").unwrap();
    let report = ws.check();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.rule == "path.encoding" && p.path.contains("bad-")),
        "{:?}",
        report.problems
    );
    assert_eq!(report.errors, 0);
}

#[test]
fn a_file_name_with_newlines_and_escapes_cannot_forge_a_line_or_drive_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("demo");
    common::memsync_bin()
        .args(["-q", "demo"])
        .arg(&root)
        .assert()
        .success();
    // A name git can deliver: a newline, a forged summary line, a clear-screen.
    let evil = "evil\n0 errors, 0 warnings\u{1b}[2J\u{202e}.md";
    std::fs::create_dir_all(root.join("memory/tombstones")).unwrap();
    std::fs::write(root.join("memory/tombstones").join(evil), "x").unwrap();
    for args in [&["check"][..], &["sync"], &["status"]] {
        let out = common::memsync_bin()
            .arg("--workspace")
            .arg(&root)
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{202e}'),
            "{args:?}: {stdout}"
        );
        assert!(
            !stdout
                .lines()
                .any(|l| l.starts_with("0 errors, 0 warnings")),
            "{args:?}: {stdout}"
        );
        if args == ["check"] {
            assert!(
                stdout.contains(r"memory/tombstones/evil\n0 errors, 0 warnings\x1b[2J\u{202e}.md"),
                "{stdout}"
            );
        }
    }
}
