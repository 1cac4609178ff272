//! `cargo bench --bench recall`: whether a question, passed as an agent types
//! it, finds the session that answers it. The reference workspace (~1,750
//! filler sessions) gets 160 story sessions and ~850 questions about them
//! (`memsync::generate::generate_with_questions`: other inflections,
//! possessives, dates, Chinese and Japanese, and words whose porter stem a
//! newer look-alike session holds as another word: `organization` and
//! `organ`, `status` and `statue`; and chats where the person said the
//! words a question asks the assistant about); each question is searched as
//! `memsync search` and MCP `memory_search` do, and the bench reports R@1,
//! R@5, R@10 and the share of questions with no hit, overall and by form.
//! "every word required" reruns the questions with every word joined by AND,
//! as memsync read them before free-text queries: the before and after.
//! The per-prompt hook is measured twice: `recall::relevant` per threshold,
//! and `recall::offer` at the shipped one from the project's folder and from
//! another, with small talk and unrelated prompts that must get nothing and
//! echo sessions (a later session that asked a story's question again) that
//! must not come before the work.

use std::collections::BTreeMap;
use std::time::Instant;

use memsync::config::{Env, Settings};
use memsync::generate::{self, Question, Shape};
use memsync::search::{self, Query};

#[derive(Default)]
struct Tally {
    n: usize,
    at: [usize; 3],
    zero: usize,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>, hits: usize) {
        self.n += 1;
        for (i, k) in [1, 5, 10].iter().enumerate() {
            if rank.is_some_and(|r| r < *k) {
                self.at[i] += 1;
            }
        }
        if hits == 0 {
            self.zero += 1;
        }
    }

    fn line(&self, label: &str) -> String {
        let pct = |x: usize| 100.0 * x as f64 / self.n.max(1) as f64;
        format!(
            "{label:<22} {:>5} {:>7.1} {:>7.1} {:>7.1} {:>7.1}",
            self.n,
            pct(self.at[0]),
            pct(self.at[1]),
            pct(self.at[2]),
            pct(self.zero)
        )
    }
}

/// Prompts about nothing the workspace holds, for the per-prompt recall's
/// threshold: what is offered for them is noise.
const UNRELATED: &[&str] = &[
    "write a haiku about autumn leaves",
    "explain the difference between TCP and UDP",
    "add type hints to this function",
    "what is the capital of Australia?",
    "translate the README into German",
    "bump the version to 2.0 and tag it",
    "create a Dockerfile for this app",
    "set up eslint with prettier",
    "how do I center a div?",
    "summarise this article for me",
    "run the tests",
    "please continue",
    "refactor this into smaller functions",
    "why is the sky blue?",
    "generate a random password",
    "convert this JSON to YAML",
    "what does this regex do?",
    "rename the variable x to count",
    "list the files in this folder",
    "draft an email to the team about the offsite",
];

/// What people type that asks for nothing from memory: greetings, thanks,
/// go-aheads and small talk, with the dates and names small talk carries.
const SMALL_TALK: &[&str] = &[
    "hi, how are you today?",
    "hello!",
    "good morning",
    "yes, go ahead",
    "great job, thank you so much",
    "thanks!",
    "ok",
    "sounds good, do it",
    "are you there?",
    "what can you do?",
    "what model are you?",
    "lol nice",
    "perfect, that works now",
    "how was your weekend?",
    "happy friday!",
    "no, the other one",
    "continue",
    "you're the best",
    "good night, talk tomorrow",
    "hey Maria, welcome back",
    "Oi, tudo bem?",
    "Salut, ça va ?",
    "你好，最近怎么样？",
];

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    let mut settings = Settings::load(Some(&root), None, &Env::default()).expect("settings");
    settings.config.daily_logs.timezone = "UTC".into();
    let now = chrono::Utc::now();
    let (g, questions) =
        generate::generate_with_questions(&root, now, Shape::default(), &settings.config)
            .expect("generate");
    memsync::pipeline::sync(&settings, now, memsync::pipeline::SyncOptions::RENDER).expect("sync");
    let index = memsync::store::Index::open(&settings.index_path()).expect("index");
    println!(
        "workspace: {} sessions, {} questions",
        g.sessions,
        questions.len()
    );
    println!(
        "{:<22} {:>5} {:>7} {:>7} {:>7} {:>7}",
        "", "n", "R@1 %", "R@5 %", "R@10 %", "0 hit %"
    );
    calibrate(&index, &settings, &questions, now);
    println!("per-prompt offers at the shipped threshold, from the project / from elsewhere:");
    prompt_offers(&index, &settings, &questions, now);
    hook_process(&root, &questions);
    stories_alone(&tmp.path().join("stories"), now);
    for (label, as_typed) in [("as typed", true), ("every word required", false)] {
        let started = Instant::now();
        let mut all = Tally::default();
        let mut by_form: BTreeMap<&str, Tally> = BTreeMap::new();
        for q in &questions {
            let text = if as_typed {
                q.question.clone()
            } else {
                every_word(q)
            };
            let (rank, hits) = ask(&index, &settings, &text, q, now);
            all.add(rank, hits);
            by_form.entry(q.form).or_default().add(rank, hits);
        }
        println!("{}", all.line(label));
        if as_typed {
            for (form, t) in &by_form {
                println!("{}", t.line(&format!("  {form}")));
            }
        }
        println!(
            "{:<22} {:.2} ms a question",
            "",
            started.elapsed().as_secs_f64() * 1000.0 / questions.len() as f64
        );
    }
}

/// What the per-prompt recall would offer: for each threshold, the share of
/// questions whose answer is offered and of unrelated prompts offered anything.
fn calibrate(
    index: &memsync::store::Index,
    settings: &Settings,
    questions: &[Question],
    now: chrono::DateTime<chrono::Utc>,
) {
    let offered = |text: &str, floor: f64| -> Vec<String> {
        memsync::recall::relevant(index, &settings.config.search, text, floor, now)
            .map(|hits| hits.into_iter().map(|h| h.session_id).collect())
            .unwrap_or_default()
    };
    println!(
        "per-prompt recall: threshold, questions answered, unrelated prompts offered something"
    );
    for floor in [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.6] {
        let answered = questions
            .iter()
            .filter(|q| offered(&q.question, floor).contains(&q.session_id))
            .count();
        let noisy = UNRELATED
            .iter()
            .filter(|p| !offered(p, floor).is_empty())
            .count();
        println!(
            "  {floor:>5.1} {:>6.1} % {:>6.1} %",
            100.0 * answered as f64 / questions.len() as f64,
            100.0 * noisy as f64 / UNRELATED.len() as f64
        );
    }
}

/// The whole `capture --hook claude-code` process for a UserPromptSubmit
/// payload, as Claude Code runs it: every fourteenth question (60) from the
/// project's folder, each in a session of its own; p50 and p95.
fn hook_process(root: &std::path::Path, questions: &[Question]) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut times: Vec<f64> = (questions.iter().step_by(14).enumerate())
        .map(|(i, q)| {
            let payload = serde_json::json!({
                "hook_event_name": "UserPromptSubmit",
                "session_id": format!("bench-{i}"),
                "cwd": "/home/dev/code/webshop",
                "prompt": q.question,
                "transcript_path": "/nonexistent.jsonl",
            });
            let started = Instant::now();
            let mut child = Command::new(env!("CARGO_BIN_EXE_memsync"))
                .arg("--workspace")
                .arg(root)
                .args(["capture", "--hook", "claude-code"])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("run memsync capture --hook");
            if let Some(mut stdin) = child.stdin.take() {
                stdin
                    .write_all(payload.to_string().as_bytes())
                    .expect("payload");
            }
            assert!(child.wait().expect("wait").success(), "the hook failed");
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    println!(
        "  the hook as a whole process, {} prompts: p50 {:.1} ms, p95 {:.1} ms",
        times.len(),
        at(0.5),
        at(0.95)
    );
}

/// The per-prompt offers in a workspace of the stories alone, all of one
/// project: from its folder the start-up digest lists the newest of them,
/// as it does for a person whose every session is in one project.
fn stories_alone(root: &std::path::Path, now: chrono::DateTime<chrono::Utc>) {
    let mut settings = Settings::load(Some(root), None, &Env::default()).expect("settings");
    settings.config.daily_logs.timezone = "UTC".into();
    let none = Shape {
        days: 0,
        per_day: 0,
        older: 0,
        ..Shape::default()
    };
    let (g, questions) =
        generate::generate_with_questions(root, now, none, &settings.config).expect("generate");
    memsync::pipeline::sync(&settings, now, memsync::pipeline::SyncOptions::RENDER).expect("sync");
    let index = memsync::store::Index::open(&settings.index_path()).expect("index");
    println!(
        "the same, in a workspace of the {} story and echo sessions alone:",
        g.sessions
    );
    prompt_offers(&index, &settings, &questions, now);
}

/// What the per-prompt hook offers at the shipped threshold, from the
/// project's folder (where the start-up digest lists its newest sessions)
/// and from another: the share of questions whose session is offered (by
/// form, and for echoed questions whether the echo is offered before the
/// work), and the share of small talk and unrelated prompts offered anything.
fn prompt_offers(
    index: &memsync::store::Index,
    settings: &Settings,
    questions: &[Question],
    now: chrono::DateTime<chrono::Utc>,
) {
    let offered = |text: &str, cwd: &str| -> Vec<String> {
        let req = memsync::recall::PromptRequest {
            prompt: text.to_string(),
            session_id: None,
            cwd: cwd.into(),
            agent: "default".into(),
        };
        memsync::recall::offer(index, settings, &req, now)
            .map(|o| o.tokens)
            .unwrap_or_default()
    };
    let token = |id: &str| memsync::contract::session_token("default", id);
    let pct = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    for cwd in ["/home/dev/code/webshop", "/home/dev/elsewhere"] {
        let mut by_form: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut echo_first = 0;
        for q in questions {
            let got = offered(&q.question, cwd);
            let at = got.iter().position(|t| *t == token(&q.session_id));
            let e = by_form.entry(q.form).or_default();
            e.0 += 1;
            e.1 += usize::from(at.is_some());
            if q.form == "echoed" {
                let echo = token(&q.session_id.replace("story-", "echo-"));
                let echo_at = got.iter().position(|t| *t == echo);
                echo_first += usize::from(echo_at.is_some_and(|e| at.is_none_or(|a| e < a)));
            }
        }
        let (n, hit) = by_form
            .values()
            .fold((0, 0), |(n, h), (a, b)| (n + a, h + b));
        println!("  cwd {cwd}: past work offered {:.1} % of {n}", pct(hit, n));
        for (form, (n, hit)) in &by_form {
            println!("    {form:<12} {:>6.1} % of {n}", pct(*hit, *n));
        }
        let echoed = by_form.get("echoed").map_or(0, |e| e.0);
        println!(
            "    echo offered before the work {:.1} % of {echoed}",
            pct(echo_first, echoed)
        );
        for (label, prompts) in [("small talk", SMALL_TALK), ("unrelated", UNRELATED)] {
            let noisy = prompts
                .iter()
                .filter(|p| !offered(p, cwd).is_empty())
                .count();
            println!(
                "    {label:<12} offered something {:.1} % of {}",
                pct(noisy, prompts.len()),
                prompts.len()
            );
        }
    }
}

/// Where the answering session ranks among the first ten, and how many hits came back.
fn ask(
    index: &memsync::store::Index,
    settings: &Settings,
    text: &str,
    q: &Question,
    now: chrono::DateTime<chrono::Utc>,
) -> (Option<usize>, usize) {
    let query = Query {
        text: text.to_string(),
        limit: 10,
        ..Query::default()
    };
    match search::search(index, &settings.config.search, &query, now) {
        Ok(found) => (
            found.hits.iter().position(|h| h.session_id == q.session_id),
            found.hits.len(),
        ),
        Err(_) => (None, 0),
    }
}

/// The question as the old reading took it: every word, quoted, required.
fn every_word(q: &Question) -> String {
    q.question
        .split_whitespace()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" AND ")
}
