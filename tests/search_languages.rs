//! Search in every language: a Chinese or Japanese word inside a clause is
//! found (the bigram columns of `store::cjk`), alone, as one character, beside
//! a Latin word, and within one artifact kind; the snippet shows the text as
//! written. The real CJK sessions of `../shared/realdata/` pin it on text
//! nobody wrote for the test.

mod common;

use chrono::Duration;
use common::{Workspace, now, run_at, session};

fn search(ws: &Workspace, args: &[&str]) -> Vec<serde_json::Value> {
    ws.search_json(args)
}

fn ids(hits: &[serde_json::Value]) -> Vec<&str> {
    hits.iter()
        .map(|h| h["session_id"].as_str().unwrap())
        .collect()
}

/// A Chinese, a Japanese and an English session, their words in transcripts.
fn workspace() -> Workspace {
    let ws = Workspace::new();
    let bodies = [
        (
            "zh",
            "user: 失败后自动重试三次，然后退避。修复代码lint问题，资源调度很慢\nassistant: 好的\n",
        ),
        (
            "ja",
            "user: パッケージ管理はuvを利用し、リトライ処理を追加してください\nassistant: はい\n",
        ),
        ("en", "user: retry the job with backoff\nassistant: done\n"),
    ];
    for (i, (id, body)) in bodies.iter().enumerate() {
        let mut s = session("default", id, now() - Duration::days(i as i64));
        s.transcript.as_mut().unwrap().body = body.to_string();
        ws.add(&s);
    }
    ws.sync();
    ws
}

#[test]
fn a_chinese_or_japanese_word_inside_a_clause_is_found_and_shown_as_written() {
    let ws = workspace();
    for (query, want) in [
        ("重试", "zh"),
        ("退避", "zh"),
        ("资源调度", "zh"),
        ("修复", "zh"),
        ("lint", "zh"),
        ("リトライ", "ja"),
        ("パッケージ管理", "ja"),
        ("管理", "ja"),
    ] {
        let hits = search(&ws, &[query]);
        assert_eq!(ids(&hits), [want], "{query}");
        let snippet = hits[0]["snippet"].as_str().unwrap();
        assert!(snippet.contains(query), "{query}: {snippet}");
    }
    assert_eq!(ids(&search(&ws, &["retry"])), ["en"]);
    assert!(
        search(&ws, &["重试失败"]).is_empty(),
        "characters not written together do not match"
    );
}

#[test]
fn one_character_a_mixed_query_and_a_kind_filter_work_on_chinese_words() {
    let ws = workspace();
    assert_eq!(ids(&search(&ws, &["试"])), ["zh"], "the middle of a run");
    assert_eq!(ids(&search(&ws, &["慢"])), ["zh"], "the end of a run");
    assert_eq!(ids(&search(&ws, &["修复", "lint"])), ["zh"]);
    assert!(search(&ws, &["\"修复\" AND backoff"]).is_empty());
    let hits = search(&ws, &["修复", "backoff"]);
    let mut either = ids(&hits);
    either.sort();
    assert_eq!(either, ["en", "zh"], "any word matches");
    assert_eq!(ids(&search(&ws, &["重试", "--kind", "transcript"])), ["zh"]);
    assert!(search(&ws, &["重试", "--kind", "compaction"]).is_empty());
}

#[test]
fn every_labelled_word_of_the_real_chinese_and_japanese_sessions_is_found() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata");
    let files = [
        ("codex-0h-ja-019b55c1.jsonl", "codex"),
        ("openclaw-hochoy-feishu-71c363f0.jsonl", "openclaw"),
        ("openclaw-hochoy-compact-d5e20cf0.cut.jsonl", "openclaw"),
    ];
    if !dir.join(files[0].0).exists() {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    }
    let ws = Workspace::new();
    for (file, harness) in files {
        let path = dir.join(file);
        let out = run_at(
            ws.root(),
            "2026-11-24T00:00:00Z",
            &[
                "capture",
                "session-end",
                "--harness",
                harness,
                "--transcript",
                path.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{file}: {out:?}");
    }
    // Words a person would look for, each inside a longer run in its session.
    let labelled = [
        ("パッケージ管理", "019b55c1"),
        ("ブランチ", "019b55c1"),
        ("退避", "019b55c1"),
        ("似乎", "71c363f0"),
        ("命令", "71c363f0"),
        ("大纲", "d5e20cf0"),
        ("渲染", "d5e20cf0"),
        ("学习", "d5e20cf0"),
        ("卡片", "d5e20cf0"),
        ("补充", "d5e20cf0"),
    ];
    let mut missed = Vec::new();
    for (word, session) in labelled {
        for query in [word.to_string(), format!("\"{word}\"")] {
            let hits = search(&ws, &[&query, "--limit", "5"]);
            if !ids(&hits).iter().any(|id| id.starts_with(session)) {
                missed.push(query);
            }
        }
    }
    assert!(missed.is_empty(), "not found: {missed:?}");
    every_run_piece_is_found_quoted(&ws);
}

/// Every piece of 2 to 6 characters of the Han and kana runs in the stored
/// transcripts (one per run and length, from its middle), quoted, finds its
/// session, as it does unquoted: searched in-process, so all of them fit in
/// a test.
fn every_run_piece_is_found_quoted(ws: &Workspace) {
    let is_cjk = |c: char| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF);
    let mut pieces: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(ws.root().join("memory")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with("--transcript.md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let session = text
            .lines()
            .find_map(|l| l.strip_prefix("session_id: "))
            .unwrap()
            .trim_matches('"')
            .to_string();
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            for len in 2..=6 {
                if i - start >= len {
                    let at = start + (i - start - len) / 2;
                    let piece: String = chars[at..at + len].iter().collect();
                    pieces.push((piece, session.clone()));
                }
            }
            i += 1;
        }
    }
    pieces.sort();
    pieces.dedup();
    let settings =
        memsync::config::Settings::load(Some(ws.root()), None, &memsync::config::Env::default())
            .unwrap();
    let index = memsync::store::Index::open(&settings.index_path()).unwrap();
    let mut missed = Vec::new();
    let mut tried = 0;
    for (piece, session) in &pieces {
        tried += 1;
        for text in [piece.clone(), format!("\"{piece}\"")] {
            let q = memsync::search::Query {
                text: text.clone(),
                limit: 100,
                ..Default::default()
            };
            let found =
                memsync::search::search(&index, &settings.config.search, &q, now()).unwrap();
            if !found.hits.iter().any(|h| &h.session_id == session) {
                missed.push(text);
            }
        }
    }
    assert!(tried >= 50, "only {tried} pieces");
    assert!(missed.is_empty(), "not found: {missed:?}");
}

#[test]
fn quoted_and_unquoted_cjk_find_the_same_sessions_and_korean_stems_find_their_words() {
    let ws = workspace();
    for word in ["自动重试", "パッケージ管理", "重试", "管理"] {
        let quoted = format!("\"{word}\"");
        assert_eq!(
            ids(&search(&ws, &[word])),
            ids(&search(&ws, &[&quoted])),
            "{word}"
        );
        assert!(!search(&ws, &[&quoted]).is_empty(), "{word}");
    }
    assert_eq!(ids(&search(&ws, &["\"自动重试\" OR backoff"])).len(), 2);

    let ko = Workspace::new();
    let mut s = session("default", "ko", now());
    s.transcript.as_mut().unwrap().body =
        "user: 배포를 롤백한다 그리고 로그를 확인\nassistant: 완료\n".into();
    ko.add(&s);
    ko.sync();
    for query in ["롤백", "\"롤백\"", "롤백했다", "배포"] {
        assert_eq!(ids(&search(&ko, &[query])), ["ko"], "{query}");
    }
}
