//! The summary body and the memory sentence of a capture: the configured
//! commands (an LLM, usually) with a timeout, else deterministic extraction.
//!
//! Owns: running `summary.command` and `sentence.command`, and the extractive
//! summary. Must not: write files; judge sentences (that is `sentence`).

use std::time::Duration;

use super::greetings;
use super::outcome::{self, Commit};
use super::remarks;
use crate::transcript::{Role, Transcript, clean};

mod chosen;
use chosen::{Reply, asked_before, in_series, lead, replaced, work_went_later};

/// How many files and commands the extractive summary lists.
const LIST_LIMIT: usize = 10;
/// How much of the first request and the last answer it quotes.
const REQUEST_CHARS: usize = 600;
const OUTCOME_CHARS: usize = 600;
/// How much of each later request it quotes.
const LATER_CHARS: usize = 160;
/// How many later requests it lists.
const LATER_LIMIT: usize = 8;

pub use super::model::process::CommandFailure;

/// Runs `command` with `sh -c` as one of memsync's own model calls (see
/// [`super::model::process`]): `stdin` on its standard input, its trimmed
/// standard output back, killed with whatever it started at the timeout.
pub fn run_command(
    command: &str,
    stdin: &str,
    timeout: Duration,
) -> Result<String, CommandFailure> {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c").arg(command);
    super::model::process::run(cmd, command, stdin, timeout)
}

/// A deterministic summary: the person's request (and later ones), the files
/// the session read or changed and the commands it ran through tool calls, the
/// compactions it went through, and the outcome (the agent's last answer, cut
/// to a paragraph).
pub fn extractive(t: &Transcript) -> String {
    let mut out = String::new();
    if let Some(text) = &t.plain {
        section(
            &mut out,
            "Request",
            &clip(&first_paragraph(text), REQUEST_CHARS),
        );
        section(
            &mut out,
            "Outcome",
            &clip(&last_paragraph(text), OUTCOME_CHARS),
        );
        return if out.is_empty() {
            "(empty transcript)".into()
        } else {
            out
        };
    }
    let requests = requests(t);
    if let Some(first) = requests.first() {
        section(&mut out, "Request", &clip(first, REQUEST_CHARS));
    } else if let Some(reported) = (t.compactions.first())
        .and_then(|c| crate::transcript::compaction::reported_request(&c.text))
    {
        let reported = clip(&reported, REQUEST_CHARS);
        let line = format!("{reported} (as the summary this session continues from reports it)");
        section(&mut out, "Request", &line);
    }
    let later: Vec<String> = requests
        .iter()
        .skip(1)
        .filter(|r| r.chars().count() > 3)
        .map(|r| clip(&r.replace('\n', " "), LATER_CHARS))
        .collect();
    section(&mut out, "Later requests", &plain_bullets(&later));
    if let Some(title) = &t.title {
        let who = if title.by_model {
            "written by the harness's model, not the person"
        } else {
            "named by the person"
        };
        section(
            &mut out,
            "Title",
            &format!("{} ({who})", clip(&title.text, LATER_CHARS)),
        );
    }
    if let Some(parent) = &t.forked_from {
        let note = format!(
            "session {parent}; the conversation before the fork is that session's and is left out here"
        );
        section(&mut out, "Forked from", &note);
    }
    section(&mut out, "Files", &bullets(&t.files()));
    section(&mut out, "Commands", &bullets(&t.commands()));
    if !t.compactions.is_empty() {
        let n = t.compactions.len();
        let line = format!(
            "The harness compacted this session {n} time{}; each compaction is kept as its own artifact.",
            if n == 1 { "" } else { "s" }
        );
        section(&mut out, "Compactions", &line);
    }
    // The sentence's decision: a commit the session ended with leads.
    let decided = outcome::decide(t);
    let report = clip(&decided.report, OUTCOME_CHARS);
    let sealed = match &decided.commit {
        Some(Commit::Made(subject)) => format!("Committed \"{subject}\"."),
        Some(Commit::Proposed(subject)) => format!("Proposed commit message \"{subject}\"."),
        None => String::new(),
    };
    let errand = decided.errand.as_ref().map(|e| {
        format!(
            "Then, asked \"{}\": {}",
            clip(&e.ask, LATER_CHARS),
            clip(&e.reply, OUTCOME_CHARS)
        )
    });
    let first = decided
        .first
        .as_ref()
        .map(|f| format!("For the first request: {}", clip(f, OUTCOME_CHARS)));
    let outcome = [Some(sealed), Some(report), errand, first]
        .into_iter()
        .flatten()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    section(&mut out, "Outcome", &outcome);
    if out.is_empty() {
        out.push_str("(no request from a person in this session)");
    }
    out
}

/// The person's requests in order, templates replaced by what was typed into
/// them; the first is the one the session's work followed ([`lead`]).
pub fn requests(t: &Transcript) -> Vec<String> {
    asked_and_requests(t).requests
}

/// What the person asked in a session, as the sentence names it.
#[derive(Debug, Default)]
pub struct Asked {
    /// What the person asked before the lead when the lead's work followed
    /// it: a question ("what does this repo do?", answered without changing
    /// anything, then "add a Dockerfile for it"), or an ask they stopped or
    /// took back ("rewrite checkout in React", then "actually, just fix the
    /// button colour"). The sentence names both.
    pub before: Option<String>,
    /// The requests as [`requests`] orders them.
    pub requests: Vec<String>,
    /// The requests were a series of separate asks, each done in turn:
    /// the sentence names them in order, none as the lead.
    pub series: bool,
}

/// The session's requests, what was asked before the lead, and whether the
/// requests were a series ([`Asked`]).
pub fn asked_and_requests(t: &Transcript) -> Asked {
    let mut out: Vec<String> = Vec::new();
    // What the agent did answering each request in `out`.
    let mut replies: Vec<Reply> = Vec::new();
    let mut answering: Option<usize> = None;
    // The request no agent message has followed yet.
    let mut unanswered: Option<usize> = None;
    let owner = owner(t);
    for (at, m) in t.messages.iter().enumerate() {
        // A request the person stopped is not told on by the next one.
        if t.stopped_before(at) {
            unanswered = None;
            if let Some(i) = answering {
                replies[i].stopped = true;
            }
        }
        if m.role != Role::User {
            if let Some(i) = answering {
                replies[i].take(m);
            }
            unanswered = None;
            continue;
        }
        answering = None;
        // In a chat where others write too (OpenClaw's one session for every
        // direct message), their words are not the person's requests.
        if owner.is_some() && m.sender.is_some() && m.sender.as_deref() != owner {
            continue;
        }
        let text = match clean::template_input(&m.text) {
            Some(typed) if typed.is_empty() => continue,
            Some(typed) => typed,
            // A command's arguments may be a whole pasted document
            // (`/plan # Phase 3: …`): the person typed the command.
            None if m.text.starts_with('/') => m.text.trim().to_string(),
            None if clean::looks_like_template(&m.text) => match clean::closing_question(&m.text) {
                Some(question) => question,
                None => continue,
            },
            None => clean::after_paste(&m.text).unwrap_or_else(|| m.text.trim().to_string()),
        };
        // "the login page" / "it crashes when I click submit" / "only on
        // firefox": short messages sent before the agent said or did
        // anything are one request told in parts.
        if let Some(i) = unanswered
            && told_in_parts(&out[i], &text)
        {
            out[i] = format!("{}\n{text}", out[i]);
            answering = Some(i);
            continue;
        }
        let i = out.iter().position(|r| *r == text).unwrap_or_else(|| {
            out.push(text);
            replies.push(Reply::default());
            out.len() - 1
        });
        answering = Some(i);
        unanswered = Some(i);
    }
    let first = lead(&out, &replies);
    // What the person asked before the lead and is named with it: a
    // question the work followed, or an ask they took back.
    let before = asked_before(&out, &replies)
        .or_else(|| first.and_then(|f| Some((f, replaced(&out, &replies, f)?))));
    let lead = match before {
        Some((_, later)) => Some(later),
        None => first.map(|f| work_went_later(&out, &replies, f).unwrap_or(f)),
    };
    let before = before.map(|(asked, _)| out[asked].clone());
    let series = before.is_none() && lead == Some(0) && in_series(&out, &replies);
    if let Some(i) = lead
        && i > 0
    {
        let first = out.remove(i);
        out.insert(0, first);
    }
    Asked {
        before,
        requests: out,
        series,
    }
}

/// Words a request told in parts stays within: short messages sent one
/// after another, never a paste and the ask typed after it.
const PARTS_WORDS: usize = 40;

/// Whether `next`, sent before any answer to `so_far`, goes on telling the
/// same request: both short words about work (a greeting repeated while the
/// agent was down, or a command typed at it, is no part of one), and `next`
/// not the same words again.
fn told_in_parts(so_far: &str, next: &str) -> bool {
    let words = |t: &str| crate::sentence::word_count(t);
    let a_part =
        |t: &str| !t.starts_with('/') && !says_nothing_of_work(t) && !remarks::is_typed_command(t);
    so_far != next
        && a_part(so_far)
        && a_part(next)
        && words(next) <= PARTS_WORDS / 2
        && words(so_far) + words(next) <= PARTS_WORDS
}

/// Who the person is in a chat several people wrote into: the sender of most
/// messages (the one the agent works for); `None` when one or none wrote.
fn owner(t: &Transcript) -> Option<&str> {
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for s in t.messages.iter().filter_map(|m| m.sender.as_deref()) {
        *counts.entry(s).or_default() += 1;
    }
    let most = counts.iter().max_by_key(|(_, n)| **n).map(|(s, _)| *s);
    if counts.len() > 1 { most } else { None }
}

/// A message without its fenced blocks: what the person wrote around a paste.
fn typed_words(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Whether a request says something on its own (three words, six CJK
/// characters, or a slash command).
pub fn substantive(text: &str) -> bool {
    let text = text.trim();
    // A slash command with an argument or a namespace (`/erk:plan-implement
    // 8107`) is a request in itself; a bare one (`/effort`) steers the harness.
    if text.starts_with('/') {
        return text.contains([' ', ':', '\n']);
    }
    crate::sentence::word_count(text) >= 3
        && !greetings::is_greeting(text)
        && !remarks::only_carries_on(text)
        && !remarks::is_small_talk(text)
}

/// A message that says nothing of any work: a greeting, small talk, thanks,
/// an acknowledgement, a go-ahead ("yes, go ahead", "sounds good, do it") or
/// a redirection that names nothing ("no, the other one", "undo that").
pub fn says_nothing_of_work(text: &str) -> bool {
    const REDIRECT: &[&str] = &[
        "no", "nope", "nah", "not", "the", "a", "other", "one", "ones", "that", "this", "it",
        "instead", "wrong", "again", "try", "first", "second", "last", "previous", "next", "same",
        "way", "use", "do", "undo", "revert", "back", "go", "please", "oops", "wait",
    ];
    const GO_AHEAD: &[&str] = &[
        "yes",
        "yeah",
        "yep",
        "yup",
        "ok",
        "okay",
        "sure",
        "go",
        "ahead",
        "do",
        "it",
        "that",
        "please",
        "proceed",
        "continue",
        "sounds",
        "good",
        "great",
        "fine",
        "perfect",
        "right",
        "correct",
        "exactly",
        "lgtm",
        "ship",
        "works",
        "for",
        "me",
        "then",
        "now",
        "and",
        "y",
        "all",
        "of",
        "everything",
        "with",
        "both",
    ];
    let text = text.trim();
    greetings::is_greeting(text)
        || remarks::is_small_talk(text)
        || remarks::only_carries_on(text)
        || outcome::is_courtesy(text)
        || outcome::is_acknowledgement(text)
        || outcome::only_words(text, GO_AHEAD, 6)
        || outcome::only_words(text, REDIRECT, 6)
}

fn section(out: &mut String, title: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str("## ");
    out.push_str(title);
    out.push_str("\n\n");
    out.push_str(text.trim());
}

fn bullets(items: &[String]) -> String {
    items
        .iter()
        .take(LIST_LIMIT)
        .map(|i| format!("- `{}`", i.replace('`', "'").replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn plain_bullets(items: &[String]) -> String {
    items
        .iter()
        .take(LATER_LIMIT)
        .map(|i| format!("- {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn paragraphs(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('#'))
        .collect()
}

fn first_paragraph(text: &str) -> String {
    paragraphs(text)
        .first()
        .copied()
        .unwrap_or_default()
        .to_string()
}

fn last_paragraph(text: &str) -> String {
    paragraphs(text)
        .last()
        .copied()
        .unwrap_or_default()
        .to_string()
}

/// At most `max` characters, cut at a word boundary with an ellipsis.
pub fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let cut = cut
        .rsplit_once(char::is_whitespace)
        .map_or(cut.as_str(), |(a, _)| a);
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line of a Claude Code chat.
    pub(super) enum Line<'a> {
        /// The person's message.
        Person(&'a str),
        /// The agent's answer, after `calls` calls of `tool`.
        Agent {
            text: String,
            tool: &'a str,
            calls: usize,
        },
        /// The person stopping the agent's run.
        Stop,
    }

    /// The answer `text`, with no tool calls.
    pub(super) fn says(text: &str) -> Line<'_> {
        let text = text.to_string();
        Line::Agent {
            text,
            tool: "Read",
            calls: 0,
        }
    }

    /// A Claude Code session of these lines, read as capture reads one.
    pub(super) fn chat(lines: &[Line]) -> Transcript {
        let json = |i: usize, line: &Line| {
            let (role, content) = match line {
                Line::Person(text) => ("user", serde_json::json!(text)),
                Line::Stop => ("user", serde_json::json!("[Request interrupted by user]")),
                Line::Agent { text, tool, calls } => {
                    let mut content: Vec<serde_json::Value> = (0..*calls)
                        .map(|c| serde_json::json!({"type": "tool_use", "id": format!("t{i}-{c}"), "name": tool,
                            "input": {"file_path": format!("/srv/app/src/m{c}.rs"), "old_string": "a", "new_string": "b"}}))
                        .collect();
                    content.push(serde_json::json!({"type": "text", "text": text}));
                    ("assistant", serde_json::json!(content))
                }
            };
            serde_json::json!({"type": role, "sessionId": "s", "uuid": format!("m{i}"),
                "message": {"id": format!("m{i}"), "role": role, "content": content}})
            .to_string()
        };
        let text: Vec<String> = lines.iter().enumerate().map(|(i, l)| json(i, l)).collect();
        crate::harnesses::read(&text.join("\n"))
    }

    /// A session of `(ask, tool calls)` turns: the person's message and the
    /// agent's answer with that many `Read` calls, then a report.
    fn session(turns: &[(&str, usize)]) -> Transcript {
        let lines: Vec<Line> = (turns.iter())
            .flat_map(|&(ask, calls)| {
                let text = "Here is what I found.".to_string();
                [
                    Line::Person(ask),
                    Line::Agent {
                        text,
                        tool: "Read",
                        calls,
                    },
                ]
            })
            .collect();
        chat(&lines)
    }

    /// Sixty lines of a program, pasted in a fence.
    fn long_paste() -> String {
        let body: String = (0..60)
            .map(|i| format!("    let v{i} = compute({i});\n"))
            .collect();
        format!("\n```rust\nfn main() {{\n{body}}}\n```\n")
    }

    #[test]
    fn a_short_remark_nothing_was_done_for_gives_way_to_the_ask_the_work_followed() {
        let ask = "install the product manager skills from skillhub";
        for remark in [
            "what can you do?",
            "你有什么能力",
            "Anna tu es la ?",
            "have you seen this code?",
            "Bạn thấy đoạn code này chưa?",
            "are you awake now?",
        ] {
            // Whether the remark came first or after another one, and
            // alone or over a pasted block of any length.
            let pastes = [
                "",
                "\n\n```python\ndef f(x):\n    return x * 2\n```",
                &long_paste(),
            ];
            for paste in pastes {
                let remark = format!("{remark}{paste}");
                for before in [&[][..], &[("你是哪个公司的模型", 0)][..]] {
                    let mut turns: Vec<(&str, usize)> = before.to_vec();
                    turns.extend([(remark.as_str(), 0), ("ok", 0), (ask, 4)]);
                    let t = session(&turns);
                    assert_eq!(requests(&t)[0], ask, "{remark}");
                }
            }
        }
    }

    /// A session of `(ask, tool, calls, answer words)` turns: the person's
    /// message and the agent's answer with that many `tool` calls.
    fn session_with(turns: &[(&str, &str, usize, usize)]) -> Transcript {
        let lines: Vec<Line> = (turns.iter())
            .flat_map(|&(ask, tool, calls, words)| {
                let text = vec!["word"; words].join(" ");
                [Line::Person(ask), Line::Agent { text, tool, calls }]
            })
            .collect();
        chat(&lines)
    }

    /// The class: a short message to the agent about itself (its model, its
    /// name, which agent it is, its workspace), in any language, asked or
    /// not, answered at any length after only looking, before the ask the
    /// work followed. The same words about a version or a model the agent
    /// then changed are work, and stay the request.
    #[test]
    fn a_question_to_the_agent_about_itself_gives_way_to_the_ask_the_work_followed() {
        let ask = "list all n8n workflows and export them to workflows.json";
        for about in [
            "hi bạn dang dùng model nào v?",
            "你是哪个agent，你的workspace，你现在的模型",
            "@demo 你的workspace 和 使用的模型，以及对应的agent",
            "which model are you running on today",
            "c'est quoi ton modèle ?",
            "¿cuál es tu nombre y tu versión?",
            "какая у тебя модель?",
            "あなたのモデルは何ですか",
            "너는 어떤 모델이야?",
            "welches Modell bist du?",
        ] {
            for (looks, words) in [(0, 30), (3, 12), (2, 90)] {
                let t = session_with(&[(about, "Read", looks, words), (ask, "Edit", 3, 20)]);
                assert_eq!(
                    requests(&t)[0],
                    ask,
                    "{about} ({looks} looks, {words} words)"
                );
            }
        }
        for work in [
            "can you bump the version",
            "your model class needs a name field",
            "bạn đổi model sang gpt-5 giúp mình",
        ] {
            let t = session_with(&[(work, "Edit", 2, 20), (ask, "Edit", 3, 20)]);
            assert_eq!(requests(&t)[0], work);
        }
    }

    /// The class: a first message that sets the session up (rules, a role,
    /// context), in any language, that the agent only acknowledged without
    /// a tool ("Understood.", "明白了。"), before the ask it worked on: the
    /// ask is the request. A first message the agent worked on stays, and
    /// so does one answered at length.
    #[test]
    fn a_set_up_the_agent_only_acknowledged_gives_way_to_the_ask_it_worked_on() {
        let ask = "build a CLI that converts CSV to JSON";
        let rules =
            "Rules for this session: always use TypeScript, never commit, keep functions short.";
        for ack in [
            "Understood. I will follow these rules.",
            "Got it!",
            "明白了。",
            "了解しました。",
            "Entendido.",
            "Compris !",
            "Понял.",
        ] {
            let lines = [
                Line::Person(rules),
                Line::Agent {
                    text: ack.to_string(),
                    tool: "Read",
                    calls: 0,
                },
                Line::Person(ask),
                Line::Agent {
                    text: "Built it.".to_string(),
                    tool: "Edit",
                    calls: 2,
                },
            ];
            assert_eq!(requests(&chat(&lines))[0], ask, "{ack}");
        }
        let answered = "These rules conflict: short functions and one-file CLIs rarely mix, so I would split the parser into its own module and keep the entry point thin.";
        for (text, calls) in [("Understood.", 2), (answered, 0)] {
            let lines = [
                Line::Person(rules),
                Line::Agent {
                    text: text.to_string(),
                    tool: "Edit",
                    calls,
                },
                Line::Person(ask),
                Line::Agent {
                    text: "Built it.".to_string(),
                    tool: "Edit",
                    calls: 2,
                },
            ];
            assert_eq!(requests(&chat(&lines))[0], rules, "{text}");
        }
    }

    #[test]
    fn in_a_chat_others_write_into_the_request_is_the_persons_who_sent_most() {
        let line = |id: &str, role: &str, text: &str| {
            serde_json::json!({"type": "message", "id": id, "message": {"role": role,
                "content": [{"type": "text", "text": text}]}})
            .to_string()
        };
        let boss = |at: &str, text: &str| format!("[WhatsApp +5193 {at} UTC] {text}");
        let lines = [
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-02-03T17:00:00.000Z","cwd":"/w"}"#.to_string(),
            line("u1", "user", "[WhatsApp +5916 +36s 2026-02-03 17:25 UTC] Buenas tardes, soy Anabel del hospedaje, en qué les puedo ayudar"),
            line("a1", "assistant", "Soy Anna de NeuraWeb."),
            line("u2", "user", &boss("2026-02-03 17:26", "mets à jour les statuts des contacts dans la base")),
            line("a2", "assistant", "Statuts mis à jour."),
            line("u3", "user", &boss("2026-02-03 17:40", "puis fais une image promotionnelle")),
            line("a3", "assistant", "Image faite."),
        ];
        let t = crate::harnesses::read(&lines.join("\n"));
        let asks = requests(&t);
        assert_eq!(asks[0], "mets à jour les statuts des contacts dans la base");
        assert!(!asks.iter().any(|a| a.contains("Anabel")), "{asks:?}");
        // One sender alone is the person, whatever the envelope says.
        let alone = crate::harnesses::read(&[lines[0].clone(), lines[1].clone()].join("\n"));
        assert!(requests(&alone)[0].contains("Anabel"));
    }

    #[test]
    fn a_command_whose_arguments_are_a_pasted_document_is_the_request() {
        let section = "Every run records its hit rate and rank quality.\n".repeat(20);
        let plan = format!(
            "/zibe-plan # Phase 3 Code Prompt: Evaluation and Calibration\n\n## Purpose\n{section}\n## Scope\n{section}\n## Success condition\nPhase 3 succeeds when the evaluation beats chance."
        );
        let t = session(&[
            ("/zibe-check", 0),
            (&plan, 5),
            ("before we decide, examine how this happened", 2),
        ]);
        assert_eq!(requests(&t)[0], plan.trim());
    }

    /// The class: a shell command typed as it is (after `sudo` or `$`, with
    /// a pipe, flags, a path or a few arguments), then a request in words
    /// in any language; the request leads. A command with no later request
    /// in words stays, and a sentence that opens with a command's name
    /// ("cd into src and …") is a request.
    #[test]
    fn a_typed_shell_command_gives_way_to_the_request_in_words_after_it() {
        let ran = Reply {
            tools: 1,
            acting: 1,
            ..Reply::default()
        };
        let worked = Reply {
            tools: 2,
            acting: 1,
            changes: 1,
            answer_words: 40,
            ..Reply::default()
        };
        let asks = [
            "Write me a song about doppelgangers and old friends",
            "écris-moi une chanson sur les sosies",
            "帮我写一首关于分身和老朋友的歌",
            "add a dark mode toggle to the settings page",
        ];
        for command in [
            "sudo dmidecode -t system | grep -E \"Manufacturer|Version\"",
            "docker ps -a --no-trunc",
            "$ ls -la /var/log/nginx",
            "kubectl get pods -n prod",
            "npm run build",
        ] {
            for ask in asks {
                let requests = [command.to_string(), "df -h /".to_string(), ask.to_string()];
                assert_eq!(
                    lead(&requests, &[ran, ran, worked]),
                    Some(2),
                    "{command} / {ask}"
                );
            }
            let requests = [command.to_string(), "df -h /".to_string()];
            assert_eq!(lead(&requests, &[ran, ran]), Some(0), "{command}");
        }
        let sentence = [
            "cd into src and fix the failing tests".to_string(),
            "add a dark mode toggle".to_string(),
        ];
        assert_eq!(lead(&sentence, &[worked, worked]), Some(0));
    }

    /// The class: a few words that only answer the agent's question ("our
    /// vps project" to "Which app?"), in any language, then the ask that
    /// says what to do; the ask leads. With no later ask the answer stays,
    /// and a short first request nobody asked for is the request.
    #[test]
    fn a_short_answer_to_the_agents_question_gives_way_to_the_ask_after_it() {
        let asked = Reply {
            asked: true,
            answer_words: 8,
            ..Reply::default()
        };
        let worked = Reply {
            tools: 4,
            acting: 3,
            changes: 2,
            answer_words: 30,
            ..Reply::default()
        };
        let ask = "backend - our supabase replacement with postgres";
        for answer in [
            "our vps project",
            "the mobile app",
            "наш проект на VPS",
            "le site vitrine",
        ] {
            let requests = [
                "continue our app".to_string(),
                answer.to_string(),
                ask.to_string(),
            ];
            assert_eq!(
                lead(&requests, &[asked, asked, worked]),
                Some(2),
                "{answer}"
            );
            let requests = ["continue our app".to_string(), answer.to_string()];
            assert_eq!(lead(&requests, &[asked, worked]), Some(1), "{answer}");
            let requests = [answer.to_string(), ask.to_string()];
            assert_eq!(lead(&requests, &[worked, worked]), Some(0), "{answer}");
        }
    }

    /// The class: a short opening question the agent answered without
    /// changing a file, in any language, then an ask whose work changed
    /// files; the sentence names both, the question first. A long question
    /// (a problem told at length), one whose answer changed files, or a
    /// later go-ahead, remark or question leaves the first request alone.
    #[test]
    fn a_short_question_answered_before_the_work_is_named_with_the_ask_that_set_it_going() {
        let answered = Reply {
            tools: 2,
            acting: 1,
            answer_words: 30,
            ..Reply::default()
        };
        let worked = Reply {
            tools: 3,
            acting: 3,
            changes: 2,
            answer_words: 20,
            ..Reply::default()
        };
        let asks = [
            "add a Dockerfile for it",
            "upgrade the project to node 22 and fix the CI matrix",
            "добавь Dockerfile для этого проекта",
            "ajoute un Dockerfile pour ce projet",
        ];
        for question in [
            "what does this repo do?",
            "what's the node version here?",
            "который тут Node?",
            "c'est quoi ce projet ?",
            "这个项目是做什么的？",
            // A question of its own length, not only an orientation.
            "how does the auth middleware decide if a token is expired?",
            "¿cómo decide el middleware de autenticación si un token ha caducado?",
        ] {
            for ask in asks {
                let requests = [question.to_string(), ask.to_string()];
                assert_eq!(
                    asked_before(&requests, &[answered, worked]),
                    Some((0, 1)),
                    "{question} / {ask}"
                );
                // The question itself set the agent changing files.
                assert_eq!(asked_before(&requests, &[worked, worked]), None);
            }
            for not_an_ask in [
                "yes do it",
                "ok sounds good, go ahead",
                "why is it so slow?",
                "I like Nox",
            ] {
                let requests = [question.to_string(), not_an_ask.to_string()];
                assert_eq!(
                    asked_before(&requests, &[answered, worked]),
                    None,
                    "{not_an_ask}"
                );
            }
        }
        let long = "In previous projects I've always used a readable random string as the primary key, could we do the same here?";
        let requests = [long.to_string(), asks[0].to_string()];
        assert_eq!(asked_before(&requests, &[answered, worked]), None);
    }

    #[test]
    fn a_remark_answered_in_a_word_after_only_looking_is_still_a_remark() {
        let requests = ["Anna tu es la ?".to_string(), "make the promo image".into()];
        let looked = Reply {
            tools: 5,
            acting: 0,
            answer_words: 2,
            ..Reply::default()
        };
        let worked = Reply {
            tools: 3,
            acting: 2,
            answer_words: 40,
            ..Reply::default()
        };
        assert_eq!(lead(&requests, &[looked, worked]), Some(1));
        // Something changed or ran, or a real answer: the first ask was the work.
        let ran = Reply {
            acting: 1,
            ..looked
        };
        let explained = Reply {
            answer_words: 30,
            ..looked
        };
        for first in [ran, explained] {
            assert_eq!(lead(&requests, &[first, worked]), Some(0));
        }
        // A slash command the agent looked into is work, however short the
        // answer; a plain "check the logs" it answered in a few words only
        // prepared the work a later request did.
        let requests = ["/shop:fix 412".to_string(), "make the promo image".into()];
        assert_eq!(lead(&requests, &[looked, worked]), Some(0));
        let requests = ["check the logs".to_string(), "make the promo image".into()];
        assert_eq!(lead(&requests, &[looked, worked]), Some(1));
        // Unless the agent asked something back: the next words answer it.
        let asked = Reply {
            asked: true,
            ..looked
        };
        assert_eq!(lead(&requests, &[asked, worked]), Some(0));
        // Or only announced more before the person stepped in: they corrected
        // the first ask, and it stays the request.
        let announced = Reply {
            announced: true,
            ..looked
        };
        assert_eq!(lead(&requests, &[announced, worked]), Some(0));
    }

    /// The class: a small ask done first (a change or two), then a later
    /// ask, in any language and however introduced, that did most of the
    /// session's changes: the later ask is the request. A go-ahead, an ask
    /// that did not do most of the work, and a first ask that changed
    /// nothing (a question the work followed) leave the lead where it was.
    #[test]
    fn a_later_ask_the_work_went_into_is_the_request() {
        let small = [
            "fix the typo in the README",
            "修一下 README 里的错别字",
            "arregla la errata del README por favor",
        ];
        let big = [
            "now implement OAuth login with GitHub",
            "接下来实现 GitHub OAuth 登录功能",
            "ahora implementa el login con GitHub OAuth",
            "next, add a rate limiter to every public route",
        ];
        for first in small {
            for later in big {
                for (one, two) in [(1, 3), (1, 6), (2, 5)] {
                    let t = session_with(&[(first, "Edit", one, 8), (later, "Edit", two, 20)]);
                    assert_eq!(requests(&t)[0], later, "{first} / {later}");
                    // Thanks after it changes nothing.
                    let t = session_with(&[
                        (first, "Edit", one, 8),
                        (later, "Edit", two, 20),
                        ("thanks, great work", "Read", 0, 4),
                    ]);
                    assert_eq!(requests(&t)[0], later, "{first} / {later}");
                }
            }
        }
        let first = small[0];
        for go_ahead in [
            "yes, do all of it",
            "ok go ahead with everything",
            "yes all of it",
        ] {
            let t = session_with(&[(first, "Edit", 1, 8), (go_ahead, "Edit", 6, 20)]);
            assert_eq!(requests(&t)[0], first, "{go_ahead}");
        }
        // Not most of the work: other asks did as much.
        let t = session_with(&[
            (first, "Edit", 1, 8),
            (big[0], "Edit", 3, 20),
            ("add tests for the login flow", "Edit", 2, 10),
            ("and document it in docs/auth.md", "Edit", 2, 10),
        ]);
        assert_eq!(requests(&t)[0], first);
        // A first ask that only looked and answered at length changed
        // nothing itself: the work it led to does not move it.
        let t = session_with(&[(first, "Read", 2, 60), (big[0], "Edit", 6, 20)]);
        assert_eq!(requests(&t)[0], first);
    }

    /// The class: separate short asks typed one after another, each done
    /// with its own changes, in any language, thanks between them or not:
    /// a series, named in turn. A word back at the ask before ("it still
    /// fails", "also the compose file"), a question, a long ask, an ask
    /// that changed nothing or more asks than a series holds make none.
    #[test]
    fn short_asks_each_done_in_turn_are_a_series() {
        let asks = [
            [
                "add a /health endpoint",
                "add request logging",
                "add rate limiting",
            ],
            [
                "加一个 /health 接口",
                "加上请求日志记录",
                "再加上接口限流功能",
            ],
            [
                "ajoute un endpoint /health",
                "ajoute les logs des requêtes",
                "ajoute une limite de débit",
            ],
        ];
        let series =
            |turns: &[(&str, &str, usize, usize)]| asked_and_requests(&session_with(turns)).series;
        for [one, two, three] in asks {
            assert!(series(&[(one, "Edit", 1, 5), (two, "Edit", 2, 5)]), "{one}");
            assert!(series(&[
                (one, "Edit", 1, 5),
                ("thanks", "Read", 0, 3),
                (two, "Edit", 1, 5),
                (three, "Edit", 1, 5),
            ]));
        }
        let [one, two, three] = asks[0];
        let t = session_with(&[
            (one, "Edit", 1, 5),
            (two, "Edit", 1, 5),
            (three, "Edit", 1, 5),
        ]);
        let said = super::super::gist::compose(&t, None).unwrap_or_default();
        let named = format!("{one}; {two}; {three}; changed");
        assert!(said.starts_with(&named), "{said}");
        for back in [
            "it still fails on startup",
            "also the docker compose file",
            "why does it return 500 now?",
            "and now also add structured request logging with pino, rotating files every day and a level per module",
        ] {
            let turns = [(one, "Edit", 1, 5), (back, "Edit", 1, 5)];
            assert!(!series(&turns), "{back}");
        }
        assert!(!series(&[(one, "Edit", 1, 5), (two, "Read", 2, 30)]));
        let six: Vec<String> = (1..=6)
            .map(|n| format!("add the route number {n}"))
            .collect();
        let turns: Vec<(&str, &str, usize, usize)> =
            six.iter().map(|a| (a.as_str(), "Edit", 1, 5)).collect();
        assert!(!series(&turns));
        assert!(!series(&[(one, "Edit", 1, 5)]));
    }

    #[test]
    fn a_real_question_first_stays_the_request_even_when_the_work_came_later() {
        for first in [
            "What is this project about and how far along is the RAG part?",
            "Про что проект мозгослав и на каком этапе сейчас RAG?",
            "把那 4 個沒抓下來的套件跑 fetch_source 補齊",
        ] {
            let t = session(&[(first, 0), ("now fix the hotkey bug in dictation", 6)]);
            assert_eq!(requests(&t)[0], first);
        }
        // The first ask the agent worked on is where the work began.
        let t = session(&[
            ("Anna tu es la ?", 0),
            ("regarde le site de Potosi", 3),
            ("corrige les statuts maintenant", 9),
        ]);
        assert_eq!(requests(&t)[0], "regarde le site de Potosi");
    }

    #[test]
    fn greetings_bare_slash_commands_and_carry_on_words_are_not_the_request() {
        for opener in [
            "hi",
            "Hello Pi, nice to meet you!",
            "你好",
            "/effort",
            "/model",
            "continue our app",
            "let's keep going with the project",
            "Please continue where you left off",
            "what model are you?",
            "hey, who are you?",
        ] {
            assert!(!substantive(opener), "{opener}");
        }
        for ask in [
            "Hi, can you fix the failing test in src/pay.rs?",
            "continue the migration to PostgreSQL",
            "/erk:plan-implement 8107",
            "/review src/pay.rs",
            "hello.py should print goodbye too",
        ] {
            assert!(substantive(ask), "{ask}");
        }
    }

    #[test]
    fn extractive_summary_lists_request_files_commands_and_outcome() {
        let t = crate::harnesses::read(
            "{\"role\":\"user\",\"content\":\"1\"}\n{\"role\":\"user\",\"content\":\"Fix the retry in src/pay.rs please\"}\n{\"role\":\"assistant\",\"content\":\"Done: backoff added.\\n\\nTests pass.\"}\n",
        );
        assert_eq!(
            extractive(&t),
            "## Request\n\nFix the retry in src/pay.rs please\n\n## Outcome\n\nDone: backoff added."
        );
    }

    #[test]
    fn the_summary_and_the_sentence_name_the_same_closing_commit() {
        let t = crate::harnesses::read(
            "# aider chat started at 2026-04-22 22:40:12\n\n#### Write the dictation report\n\nThe report is in report.md.\n\n> Applied edit to report.md\n> Commit f8bf6e6 docs: add the dictation duplication report\n",
        );
        let summary = extractive(&t);
        let outcome = summary.split("## Outcome\n\n").nth(1).unwrap_or_default();
        assert!(
            outcome.starts_with("Committed \"docs: add the dictation duplication report\"."),
            "{summary}"
        );
        let sentence =
            super::super::gist::compose(&t, Some("/home/ana/dictation")).unwrap_or_default();
        assert!(
            sentence.contains("committed \"docs: add the dictation"),
            "{sentence}"
        );
    }

    #[test]
    fn the_summary_and_the_sentence_name_the_same_proposed_commit_message() {
        let t = crate::harnesses::read(
            "{\"role\":\"user\",\"content\":\"add pagination to the /orders endpoint\"}\n{\"role\":\"assistant\",\"content\":\"Here's the commit message:\\n\\nfeat(orders): paginate /orders with limit and cursor\"}\n",
        );
        let summary = extractive(&t);
        let outcome = summary.split("## Outcome\n\n").nth(1).unwrap_or_default();
        assert!(
            outcome.starts_with(
                "Proposed commit message \"feat(orders): paginate /orders with limit and cursor\"."
            ),
            "{summary}"
        );
        let sentence = super::super::gist::compose(&t, None).unwrap_or_default();
        assert!(
            sentence.contains("commit message \"feat(orders): paginate"),
            "{sentence}"
        );
    }

    #[test]
    fn commands_time_out_fail_or_answer() {
        let t = Duration::from_secs(5);
        assert_eq!(run_command("tr a-z A-Z", "hello", t), Ok("HELLO".into()));
        assert!(matches!(
            run_command("exit 3", "", t),
            Err(CommandFailure::Exit(..))
        ));
        assert!(matches!(
            run_command("true", "", t),
            Err(CommandFailure::Empty(_))
        ));
        let started = std::time::Instant::now();
        let hung = run_command("sleep 30; echo late", "", Duration::from_millis(300));
        assert!(matches!(hung, Err(CommandFailure::Timeout(..))));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_redirection_that_names_nothing_says_nothing_of_work() {
        for text in [
            "no, the other one",
            "undo that",
            "wait, not that one",
            "nope, try again",
            "use the first one instead",
        ] {
            assert!(says_nothing_of_work(text), "{text}");
        }
        for text in [
            "no, the other cache layer",
            "undo the migration",
            "use the first one instead of the retry queue in worker.ts",
        ] {
            assert!(!says_nothing_of_work(text), "{text}");
        }
    }
}

#[cfg(test)]
mod told_in_parts {
    use super::tests::{Line, chat, says};
    use super::*;

    #[test]
    fn short_messages_sent_before_any_answer_are_one_request() {
        let told = [
            &[
                "the login page",
                "it crashes when I click submit",
                "only on firefox",
            ][..],
            &[
                "la page de connexion",
                "elle plante quand je clique sur envoyer",
            ],
            &["el formulario de pago", "no guarda la dirección"],
            &["登录页面", "点提交就崩溃"],
            &["check the nightly backup job", "it failed twice this week"],
        ];
        for parts in told {
            let mut lines: Vec<Line> = parts.iter().map(|p| Line::Person(p)).collect();
            lines.push(says("Fixed it; the form works again."));
            let request = requests(&chat(&lines)).remove(0);
            assert_eq!(request, parts.join("\n"), "{parts:?}");
        }
    }

    #[test]
    fn greetings_a_stopped_request_and_a_paste_are_no_parts_of_the_next() {
        let ask = "the csv import drops rows with accents";
        let paste = "Traceback (most recent call last): ".to_string()
            + &"File \"app.py\", line 12, in main ".repeat(8);
        let apart = [
            vec![Line::Person("hi"), Line::Person("hi"), Line::Person(ask)],
            vec![
                Line::Person("rewrite the importer in go"),
                Line::Stop,
                Line::Person(ask),
            ],
            vec![Line::Person(paste.as_str()), Line::Person(ask)],
            vec![Line::Person(ask), Line::Person(ask)],
        ];
        for (case, mut lines) in apart.into_iter().enumerate() {
            lines.push(says("The import keeps accented names now."));
            let asks = requests(&chat(&lines));
            assert!(asks.iter().any(|r| r == ask), "case {case}: {asks:?}");
        }
    }
}
