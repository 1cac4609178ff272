//! `memsync search` and `memsync open`: finding sessions again, the access
//! telemetry that ranks them, and what an operator sees.

mod common;

use chrono::Duration;
use common::{Workspace, now, session, told};

fn search_json(ws: &Workspace, args: &[&str]) -> Vec<serde_json::Value> {
    ws.search_json(args)
}

fn ids(hits: &[serde_json::Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["session_id"].as_str().unwrap().to_string())
        .collect()
}

/// Six sessions; `s-2` alone mentions a quokka; `ops` has one session.
fn workspace() -> Workspace {
    let ws = Workspace::new();
    for i in 0..5 {
        let mut s = session("default", &format!("s-{i}"), now() - Duration::days(i * 10));
        if i == 2 {
            s.transcript.as_mut().unwrap().body =
                "user: where did the quokka go?\nassistant: into src/zoo.rs\n".into();
        }
        if i == 4 {
            s.project = Some("/home/dev/code/other".into());
        }
        ws.add(&s);
    }
    ws.add(&session("ops", "o-1", now() - Duration::days(1)));
    ws.sync();
    ws
}

fn access_count(ws: &Workspace, session_id: &str) -> i64 {
    ws.db()
        .query_row(
            "SELECT COALESCE(SUM(t.access_count), 0) FROM telemetry_access t
             WHERE t.token IN (SELECT token FROM artifacts WHERE session_id = ?1)",
            [session_id],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn search_finds_a_word_planted_in_one_session_and_not_in_others() {
    let ws = workspace();
    let hits = search_json(&ws, &["quokka"]);
    assert_eq!(ids(&hits), ["s-2"]);
    assert_eq!(hits[0]["kind"], "transcript");
    assert!(hits[0]["snippet"].as_str().unwrap().contains("«quokka»"));
    let links: Vec<&str> = hits[0]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        links[0].starts_with("[[memory/") && links[0].ends_with("--summary.md|summary]]"),
        "{links:?}"
    );
    // Text output marks the match with ** when it is not a terminal.
    ws.cli(&["search", "quokka"])
        .success()
        .stdout(predicates::str::contains("**quokka**"))
        .stdout(predicates::str::contains("session=s-2"));
    // Words that are FTS5 syntax on their own still just work.
    assert_eq!(ids(&search_json(&ws, &["src/zoo.rs"])), ["s-2"]);
}

#[test]
fn filters_narrow_the_results() {
    let ws = workspace();
    let all = ids(&search_json(&ws, &["scan"]));
    assert_eq!(all.len(), 6, "{all:?}");
    assert_eq!(ids(&search_json(&ws, &["scan", "--agent", "ops"])), ["o-1"]);
    assert_eq!(
        ids(&search_json(&ws, &["scan", "--project", "other"])),
        ["s-4"]
    );
    assert_eq!(
        ids(&search_json(
            &ws,
            &["scan", "--project", "/home/dev/code/o*"]
        )),
        ["s-4"]
    );
    let recent = ids(&search_json(&ws, &["scan", "--since", "15d"]));
    assert_eq!(recent.len(), 3, "s-0, s-1 and o-1: {recent:?}");
    let summaries = search_json(&ws, &["session", "--kind", "summary"]);
    assert!(summaries.iter().all(|h| h["kind"] == "summary"));
    assert_eq!(search_json(&ws, &["scan", "--limit", "2"]).len(), 2);
}

#[test]
fn a_forgotten_session_is_never_returned() {
    let ws = workspace();
    ws.cli(&["forget", "s-2", "--reason", "test"]).success();
    assert!(search_json(&ws, &["quokka"]).is_empty());
    ws.cli(&["search", "quokka"])
        .success()
        .stdout(predicates::str::contains("no session matches"));
}

#[test]
fn malformed_syntax_is_answered_as_words_with_a_note_never_exit_2() {
    let ws = workspace();
    for q in [
        "\"unbalanced quokka",
        "(quokka",
        "quokka AND",
        "NEAR(quokka",
        "quokka OR OR",
    ] {
        let out = ws
            .cli(&["--json", "search", q])
            .success()
            .get_output()
            .clone();
        let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(ids(&hits), ["s-2"], "{q}");
        let _ = String::from_utf8_lossy(&out.stderr);
    }
    ws.cli(&["search", "quokka AND"])
        .success()
        .stderr(predicates::str::contains("read as words"));
    ws.cli(&["search", "x", "--since", "soon"])
        .code(2)
        .stderr(predicates::str::contains("--since"));
}

#[test]
fn prefixes_no_session_holds_all_of_find_the_sessions_holding_some_with_a_note() {
    let ws = workspace();
    // `zoo*` and `quokk*` are in s-2; `giraffe*` is in no session.
    assert_eq!(ids(&search_json(&ws, &["quokk* zoo*"])), ["s-2"]);
    let hits = search_json(&ws, &["quokk* giraffe*"]);
    assert_eq!(ids(&hits), ["s-2"]);
    ws.cli(&["search", "quokk* giraffe*"])
        .success()
        .stderr(predicates::str::contains("no session holds every word"));
    // What the person wrote as an operator or phrase is kept as written.
    assert!(search_json(&ws, &["quokk* AND giraffe*"]).is_empty());
    assert!(search_json(&ws, &["\"quokka giraffe\""]).is_empty());
}

#[test]
fn a_query_with_no_word_in_it_is_a_usage_error_never_an_index_error() {
    let ws = workspace();
    for q in ["🔥", "\"", "*", "-", "()", "^", "\"\""] {
        ws.cli(&["search", q])
            .code(2)
            .stderr(predicates::str::contains("holds no word to search for"));
    }
}

#[test]
fn telemetry_counts_opens_not_results_and_survives_reindex() {
    let ws = workspace();
    search_json(&ws, &["quokka"]);
    search_json(&ws, &["quokka"]);
    assert_eq!(
        access_count(&ws, "s-2"),
        0,
        "appearing in a result is not use"
    );
    ws.cli(&["open", "s-2"]).success();
    ws.cli(&["open", "s-2"])
        .success()
        .stdout(predicates::str::contains("opened    2 times"));
    assert_eq!(access_count(&ws, "s-0"), 0);
    ws.cli(&["reindex"]).success();
    assert_eq!(access_count(&ws, "s-2"), 2);
    ws.cli(&["reindex", "--reset-telemetry"]).success();
    assert_eq!(access_count(&ws, "s-2"), 0);
}

#[test]
fn relevance_comes_first_and_recency_and_use_break_near_ties() {
    let ws = workspace();
    // Equal text: the newest session first.
    let order = ids(&search_json(&ws, &["scan", "--agent", "default"]));
    let equal: Vec<&String> = order.iter().filter(|id| *id != "s-2").collect();
    assert_eq!(equal, ["s-0", "s-1", "s-3", "s-4"]);
    // The one session holding both words comes first, older as it is.
    let order = ids(&search_json(&ws, &["quokka scan", "--agent", "default"]));
    assert_eq!(order[0], "s-2", "{order:?}");
    assert_eq!(order.len(), 5, "any of the words matches: {order:?}");
    // A session that keeps being opened climbs past newer ones.
    for _ in 0..6 {
        ws.cli(&["open", "s-3"]).success();
    }
    let order = ids(&search_json(&ws, &["scan", "--agent", "default"]));
    assert_eq!(order[0], "s-3", "{order:?}");
}

#[test]
fn open_shows_the_artifacts_their_state_and_prints_bodies() {
    let ws = workspace();
    let out = ws
        .cli(&["--json", "open", "s-2"])
        .success()
        .get_output()
        .stdout
        .clone();
    let view: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let kinds: Vec<&str> = view["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["summary", "transcript", "manifest"]);
    assert!(
        view["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["state"] == "ok")
    );
    ws.cli(&["open", "s-2", "--print", "transcript"])
        .success()
        .stdout("user: where did the quokka go?\nassistant: into src/zoo.rs\n");
    ws.cli(&["open", "s-2", "--print", "compaction"])
        .code(2)
        .stderr(predicates::str::contains("has no compaction"));
    ws.cli(&["open", "nobody"]).code(2);
    // A hand edit shows as stale, with its problem.
    let summary = view["artifacts"][0]["path"].as_str().unwrap().to_string();
    let edited = ws
        .read(&summary)
        .replace("Work on session", "Edited by hand:");
    ws.write(&summary, &edited);
    ws.cli(&["sync"]).success();
    ws.cli(&["open", "s-2"])
        .success()
        .stdout(predicates::str::is_match(r"summary\s+stale").unwrap())
        .stdout(predicates::str::contains("checksum.mismatch"));
}

#[test]
fn status_json_reflects_planted_problems_and_jobs() {
    let ws = workspace();
    ws.write(
        "memory/2026-11-20T10-00-00.000Z--aaaaaaaaaaaaaaaa--summary.md",
        "no frontmatter\n",
    );
    ws.cli(&["sync"]).success();
    let out = ws
        .cli(&["--json", "status"])
        .success()
        .get_output()
        .stdout
        .clone();
    let status: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(status["errors"], 1);
    assert_eq!(status["health"], "1 error (memsync check lists them)");
    assert_eq!(status["problems"][0]["rule"], "frontmatter.missing");
    assert!(status["jobs"].is_null(), "no hook has run");
    let agents: Vec<&str> = status["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent_id"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["default", "ops"]);
}

#[test]
fn progress_is_drawn_on_a_terminal_and_never_when_piped() {
    let ws = Workspace::new();
    for i in 0..200 {
        ws.add(&session(
            "default",
            &format!("p-{i}"),
            now() - Duration::hours(i),
        ));
    }
    // Piped: nothing but the report.
    ws.cli(&["reindex"]).success().stderr("");
    // A pseudo-terminal (util-linux `script`): the bar is drawn.
    let has_script = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !has_script {
        eprintln!("skipped the terminal half: `script` is not installed");
        return;
    }
    let log = ws
        .dir
        .path()
        .join("..")
        .join(format!("tty-{}.log", std::process::id()));
    let cmd = format!(
        "{} --workspace {} reindex",
        assert_cmd::cargo::cargo_bin("memsync").display(),
        ws.root().display()
    );
    let status = std::process::Command::new("script")
        .args(["-qec", &cmd])
        .arg(&log)
        .env_remove("CI")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let drawn = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert!(drawn.contains("indexing"), "{drawn}");
}

/// The hit points at the first artifact (summary, compaction, transcript)
/// that holds the whole query on its own, and its snippet marks the match.
#[test]
fn a_hit_points_at_the_artifact_that_holds_the_whole_query() {
    let ws = Workspace::new();
    let mut s = session("default", "split", now() - Duration::days(1));
    s.summary.as_mut().unwrap().body = "## Summary\n\nThe wombat escaped again.\n".into();
    s.transcript.as_mut().unwrap().body =
        "user: the wombat and the numbat share a burrow\nassistant: noted\n".into();
    ws.add(&s);
    ws.sync();
    let kind_and_snippet = |query: &str| {
        let hits = search_json(&ws, &[query]);
        assert_eq!(ids(&hits), ["split"], "{query}");
        let snippet = hits[0]["snippet"].as_str().unwrap().to_string();
        (hits[0]["kind"].as_str().unwrap().to_string(), snippet)
    };
    // One word, in both: the summary comes first.
    let (kind, snippet) = kind_and_snippet("wombat");
    assert_eq!(kind, "summary");
    assert!(snippet.contains("«wombat» escaped"), "{snippet}");
    // Two words, both only in the transcript; the summary holds one of them.
    let (kind, snippet) = kind_and_snippet("wombat numbat");
    assert_eq!(kind, "transcript");
    assert!(snippet.contains("«numbat»"), "{snippet}");
    // A phrase only the transcript holds.
    let (kind, _) = kind_and_snippet("\"wombat and the numbat\"");
    assert_eq!(kind, "transcript");
    // A phrase only the summary holds.
    let (kind, snippet) = kind_and_snippet("\"wombat escaped\"");
    assert_eq!(kind, "summary");
    assert!(snippet.contains("«wombat escaped»"), "{snippet}");
}

/// Issue 64: the more memsync is used, the more sessions there are that
/// asked a question again and found nothing. They hold every word of it in
/// their sentence, and must not rank above the session that did the work.
#[test]
fn the_session_that_did_the_work_ranks_above_newer_ones_that_only_asked_the_question() {
    let ws = Workspace::new();
    ws.add(&told(
        "work-1",
        20,
        "hello: make the greeting in hello.py say good night after ten; changed hello.py; outcome: the night greeting works.",
        "user: make the greeting in hello.py say good night after ten\nassistant: changed the greeting in hello.py\n",
    ));
    for (i, days) in [(0, 6), (1, 2)] {
        ws.add(&told(
            &format!("echo-{i}"),
            days,
            "hello: what did we change in the greeting of hello.py last time?; outcome: no record of it.",
            "user: what did we change in the greeting of hello.py last time?\nassistant: I found no record of it.\n",
        ));
    }
    // Same subject, another request: ranked on its words, not moved.
    ws.add(&told(
        "chat-1",
        1,
        "hello: explain how the greeting in hello.py picks its words and why it changed; outcome: it reads the hour.",
        "user: explain how the greeting in hello.py picks its words and why it changed\nassistant: it reads the hour.\n",
    ));
    for i in 0..6 {
        ws.add(&session(
            "default",
            &format!("s-{i}"),
            now() - Duration::days(i + 3),
        ));
    }
    ws.sync();
    let hits = ids(&search_json(
        &ws,
        &["what did we change in the greeting of hello.py last time?"],
    ));
    let at = |id: &str| hits.iter().position(|h| h == id).expect(id);
    assert!(
        at("work-1") < at("echo-0") && at("work-1") < at("echo-1"),
        "{hits:?}"
    );
    assert!(at("chat-1") < at("echo-0"), "{hits:?}");
}

/// Issue 64: a question that names a time ("10 days ago") finds that time's
/// session even when it shares no word with the question, below the
/// sessions that hold the words; a question naming no time does not.
#[test]
fn a_named_time_brings_its_session_even_without_a_shared_word() {
    let ws = Workspace::new();
    ws.add(&told(
        "smoker-1",
        10,
        "home: got a smoker today and seasoned it for the weekend.",
        "user: got a smoker today, how do I season it?\nassistant: oil it and run it hot for two hours.\n",
    ));
    for (id, days) in [("dishwasher-1", 40), ("fridge-1", 70)] {
        ws.add(&told(
            id,
            days,
            &format!("home: which appliance to buy: the {id} broke; outcome: ordered a new one."),
            &format!(
                "user: the {id} appliance broke, which one should I buy?\nassistant: this one.\n"
            ),
        ));
    }
    for i in 0..6 {
        ws.add(&session(
            "default",
            &format!("s-{i}"),
            now() - Duration::days(i * 3 + 12),
        ));
    }
    ws.sync();
    let hits = ids(&search_json(
        &ws,
        &["which appliance did I buy 10 days ago?"],
    ));
    assert!(hits.iter().take(3).any(|h| h == "smoker-1"), "{hits:?}");
    assert!(hits.contains(&"dishwasher-1".to_string()), "{hits:?}");
    let hits = ids(&search_json(&ws, &["which appliance did I buy?"]));
    assert!(!hits.contains(&"smoker-1".to_string()), "{hits:?}");
}

/// Issue 64: a hit's relevance is a share of the best hit's score and of
/// the words that hit holds, so one word of a long question is never 100 %.
#[test]
fn relevance_counts_the_words_the_best_hit_holds() {
    let ws = workspace();
    let hits = search_json(
        &ws,
        &["how should we feed the quokka during the winter holidays"],
    );
    let top = &hits[0];
    assert_eq!(top["session_id"], "s-2");
    let (held, asked) = (
        top["matched_words"].as_f64().unwrap(),
        top["query_words"].as_f64().unwrap(),
    );
    assert!(held < asked, "{top}");
    assert!(
        (top["score"].as_f64().unwrap() - held / asked).abs() < 0.01,
        "{top}"
    );
    let hits = search_json(&ws, &["where did the quokka go?"]);
    assert_eq!(hits[0]["score"].as_f64(), Some(1.0), "{}", hits[0]);
    let out = ws
        .cli(&[
            "search",
            "how should we feed the quokka during the winter holidays",
        ])
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(!text.contains("relevance 100%"), "{text}");
}

/// Issue 64: the index folds words to their stems, so `status` also finds
/// `statue`. Between sessions equal but for that word, the one holding the
/// word as asked comes first, though the other is newer; one holding it
/// only under another form (`painted` for `paint`) is still found.
#[test]
fn a_word_held_as_written_ranks_above_another_word_of_the_same_stem() {
    // (asked, another word of its stem)
    let pairs = [
        ("status", "statue"),
        ("organization", "organ"),
        ("university", "universe"),
        ("generate", "general"),
        ("animation", "animal"),
        ("hi", "his"),
    ];
    let ws = Workspace::new();
    for (i, (asked, other)) in pairs.iter().enumerate() {
        for (id, word, days) in [("asked", asked, 30), ("other", other, 2)] {
            let line = format!("the {word} of ticket{i} was checked");
            ws.add(&told(
                &format!("{id}-{i}"),
                days + i as i64,
                &format!("ops: {line}."),
                &format!("user: {line}\nassistant: done.\n"),
            ));
        }
    }
    ws.add(&told(
        "fence-1",
        5,
        "home: painted the fence.",
        "user: we painted the fence\n",
    ));
    ws.sync();
    for (i, (asked, _)) in pairs.iter().enumerate() {
        let hits = ids(&search_json(&ws, &[&format!("{asked} of ticket{i}")]));
        let at = |id: &str| hits.iter().position(|h| *h == format!("{id}-{i}"));
        assert!(
            at("other").is_some(),
            "{asked}: a stem match is found: {hits:?}"
        );
        assert!(at("asked") < at("other"), "{asked}: {hits:?}");
    }
    let hits = ids(&search_json(&ws, &["paint fence"]));
    assert_eq!(
        hits.first().map(String::as_str),
        Some("fence-1"),
        "{hits:?}"
    );
}

/// Issue 64: explicit syntax that finds nothing (a prefix, a phrase, an
/// operator) gets the suggestions plain text gets, made of its words, and
/// a respelled word is shown as sessions wrote it (`retry`), never as the
/// index's stem (`retri`).
#[test]
fn syntax_that_finds_nothing_is_offered_its_words_respelled_as_written() {
    let ws = Workspace::new();
    ws.add(&told(
        "pay-1",
        3,
        "pay: the retry policy of the payment client.",
        "user: give the payment client a retry policy\nassistant: added retries with backoff\n",
    ));
    ws.sync();
    let said = |query: &str| {
        let out = ws.cli(&["search", query]).success();
        String::from_utf8_lossy(&out.get_output().stdout).to_string()
    };
    for query in ["retyr", "retyr*", "\"retyr polcy\"", "retyr AND polcy"] {
        let text = said(query);
        assert!(text.contains("no session matches"), "{query}: {text}");
        assert!(text.contains("try: memsync search"), "{query}: {text}");
        assert!(text.contains("retry"), "{query}: {text}");
        assert!(!text.contains("retri"), "{query}: {text}");
    }
    assert!(said("\"retyr polcy\"").contains("'retry policy'"));
}

/// Issue 64: a chat's summary repeats the person's turns (and the replies
/// it quotes), which the transcript holds already. Counted once, the words
/// the assistant said in a chat's middle outrank the same words the person
/// said in a newer chat; both captured from Claude Code transcripts.
#[test]
fn words_the_assistant_said_rank_with_the_persons_counted_once() {
    // (question, the person's problem, the assistant's answer, the look-alike's person)
    let chats = [
        (
            "what pot size did you recommend for the basil",
            "My basil keeps wilting on the windowsill.",
            "Repot the basil: the pot size that suits it is 20 cm, terracotta.",
            "I picked a pot size of 20 cm for the basil, terracotta.",
        ),
        (
            "which hydration did you advise for the sourdough loaf",
            "I want to bake my first sourdough bread.",
            "A first sourdough loaf is easier to shape at 70 % hydration.",
            "I went with 70 % hydration for my sourdough loaf.",
        ),
        (
            "what schedule did you give for watering the tomato seedlings",
            "I started tomato seedlings under a grow light.",
            "A good schedule for watering tomato seedlings: every second morning, from below.",
            "My schedule for watering the tomato seedlings is every second morning.",
        ),
    ];
    let ws = Workspace::new();
    let inputs = tempfile::tempdir().unwrap();
    let capture = |id: &str, at: &str, middle: (&str, &str)| {
        let turns = [
            (
                "I need help with my garden and kitchen this spring.",
                "Happy to help.",
            ),
            middle,
            (
                "And how often should I check on it?",
                "Once a week is plenty.",
            ),
        ];
        let text = common::chats::claude_code_chat(id, "/home/ana/garden", at, &turns);
        let path = inputs.path().join(format!("{id}.jsonl"));
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        ws.cli(&[
            "-q",
            "capture",
            "session-end",
            "--transcript",
            path,
            "--session-id",
            id,
        ])
        .success();
    };
    for (i, (_, person, answer, look_alike)) in chats.iter().enumerate() {
        capture(
            &format!("said-{i}"),
            "2026-10-01T10:00:00Z",
            (person, answer),
        );
        let other = (*look_alike, "Sounds good.");
        capture(&format!("other-{i}"), "2026-10-02T10:00:00Z", other);
    }
    ws.sync();
    for (i, (question, ..)) in chats.iter().enumerate() {
        let hits = ids(&search_json(&ws, &[question]));
        let at = |id: &str| hits.iter().position(|h| *h == format!("{id}-{i}"));
        assert!(at("other").is_some(), "{question}: {hits:?}");
        assert!(at("said") < at("other"), "{question}: {hits:?}");
    }
}
