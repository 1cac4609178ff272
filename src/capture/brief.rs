//! What a long request hides its ask behind: a role-play preamble ("You
//! are a senior Rust engineer. …") and a brief's rules before the section
//! that names the task.
//!
//! Owns: finding where the ask starts. Must not: shorten it (the gist does).

/// The text after a role-play preamble ("You are a senior Rust engineer.
/// …"), when a paragraph follows it; the text itself otherwise.
pub(super) fn past_preamble(text: &str) -> &str {
    /// Lines that go on describing the role rather than asking.
    const RULES: &[&str] = &[
        "you ", "your ", "always ", "never ", "do not ", "don't ", "follow ",
    ];
    let start = text.trim_start().to_lowercase();
    if !ROLES.iter().any(|r| start.starts_with(r)) {
        return text;
    }
    let text = text.trim_start();
    if let Some((_, rest)) = text.split_once("\n\n")
        && prose_lines(rest).next().is_some()
    {
        return rest;
    }
    // No blank line: the ask is the first line that no longer describes the role.
    let mut rest = text;
    while let Some((line, after)) = rest.split_once('\n') {
        let lower = line.trim().to_lowercase();
        let describes = ROLES.iter().chain(RULES).any(|r| lower.starts_with(r));
        if !describes {
            break;
        }
        rest = after;
    }
    if rest == text || prose_lines(rest).next().is_none() {
        text
    } else {
        rest
    }
}

/// How a role-play preamble opens, in the languages the harnesses are used in.
const ROLES: &[&str] = &[
    "you are ",
    "you're ",
    "act as ",
    "act like ",
    "acting as ",
    "pretend ",
    "imagine you",
    "your role",
    "agis en tant qu",
    "agis comme ",
    "tu es un ",
    "tu es une ",
    "vous êtes un ",
    "actúa como ",
    "actua como ",
    "eres un ",
    "eres una ",
    "atue como ",
    "aja como ",
    "você é um ",
    "você é uma ",
    "du bist ein ",
    "du bist eine ",
    "handle als ",
    "agisci come ",
    "sei un ",
    "ты — ",
    "ты - ",
    "представь, что ты ",
    "действуй как ",
    "bạn là một ",
    "hãy đóng vai ",
    "你是一个",
    "你是一名",
    "你现在是",
    "请你扮演",
    "请扮演",
    "あなたは",
    "당신은 ",
];

/// Whether a sentence only gives the agent a role ("You are a senior Rust
/// engineer.", "Act as an SEO expert.", "Agis en tant qu'expert…", "你是一名
/// 资深前端工程师。"): a preamble's opening, not the ask after it.
pub(super) fn assigns_a_role(sentence: &str) -> bool {
    let lower = sentence.trim().to_lowercase();
    // "You are a good judge of this: should we …" asks; a long sentence
    // that opens so says more than a role.
    !lower.ends_with(['?', '？'])
        && crate::sentence::word_count(&lower) <= 24
        && ROLES.iter().any(|r| lower.starts_with(r))
}

/// Where a brief says in so many words what the agent is to do after
/// giving its context ("Canonical layer: … Active context: … Your task
/// appears to be: …", "背景：… 你的任务是…"): the text from that sentence.
/// The text itself when the opening sentence asks or asks a question (the
/// request is that; `opens_an_ask` tells an ask), or when no later
/// sentence states a task; the last paragraph when it asks at the end of a
/// long telling (`adds_an_ask` tells an ask added to an earlier one).
pub(super) fn stated_task(
    text: &str,
    opens_an_ask: fn(&str) -> bool,
    adds_an_ask: fn(&str) -> bool,
) -> &str {
    let mut starts = sentence_starts(text);
    let Some(opening) = starts.next() else {
        return text;
    };
    let first = &text[opening..];
    let first = &first[..crate::sentence::first_sentence_end(first)];
    // "Here is our README section:" before a paste presents it; the ask
    // comes after ("Can you rewrite it for Kubernetes?"), then maybe more.
    let line = first.lines().next().unwrap_or_default().trim_end();
    let presents = line.ends_with([':', '：'])
        && crate::sentence::word_count(line) <= 12
        && !opens_an_ask(line);
    if !presents && (first.trim_end().ends_with(['?', '？']) || opens_an_ask(first)) {
        return text;
    }
    let asks = |s: &str| {
        let s = s.lines().next().unwrap_or_default();
        let s = &s[..crate::sentence::first_sentence_end(s)];
        s.trim_end().ends_with(['?', '？']) || opens_an_ask(s)
    };
    starts
        .find(|&at| states_the_task(&text[at..]) || (presents && asks(&text[at..])))
        .or_else(|| closing_ask(text, |s| asks(s) && !adds_an_ask(s)))
        .map_or(text, |at| past_task_label(&text[at..]))
}

/// A stated task without the words that state it: "Task: add a retry"
/// and "Your task is to add a retry" ask "add a retry"; "任务：加上重试"
/// asks "加上重试". A label the task is not told after stays.
fn past_task_label(task: &str) -> &str {
    if let Some(label) = ENGLISH_TASK.find(task) {
        let rest = task[label.end()..].trim_start_matches([':', '：', ' ']);
        return if rest.is_empty() { task } else { rest };
    }
    let opening: String = task.chars().take(24).flat_map(char::to_lowercase).collect();
    let Some(label) = STATED_TASK.iter().find(|s| opening.starts_with(*s)) else {
        return task;
    };
    // The label's characters lower-case to as many of them.
    let at = task
        .char_indices()
        .nth(label.chars().count())
        .map_or(task.len(), |(at, _)| at);
    let rest = task[at..].trim_start();
    // "Ta tâche : …", "Твоя задача — …", "你的任务是…": what is told after
    // the label; "Tu tarea consiste en …" is left as it is.
    let told = [
        "：", ":", "—", "–", "- ", "是", "は", "est de ", "es ", "é ",
    ]
    .iter()
    .find_map(|joint| rest.strip_prefix(joint))
    .or_else(|| label.ends_with([':', '：']).then_some(rest))
    .map(str::trim_start);
    told.filter(|r| !r.is_empty()).unwrap_or(task)
}

/// Words of context before a closing ask that make it a problem told at
/// length, the ask at its end.
const TOLD_AT_LENGTH_WORDS: usize = 40;

/// "Our app has three services … Restarting it fixes it for a while.\n\n
/// Can you find out why the worker stalls and fix it?": where the last
/// paragraph starts, when it asks and a long telling came before it (one
/// that adds to an ask before it, "Can you also add tests?", does not).
fn closing_ask(text: &str, asks: impl Fn(&str) -> bool) -> Option<usize> {
    let (base, _) = unfenced_lines(text)
        .filter(|(_, l)| !l.trim().is_empty())
        .last()?;
    let paragraph = text[..base].rfind("\n\n").map_or(0, |at| at + 2);
    let told = crate::sentence::word_count(&text[..paragraph]);
    let start = paragraph + (text[paragraph..].len() - text[paragraph..].trim_start().len());
    (paragraph > 0 && told >= TOLD_AT_LENGTH_WORDS && asks(&text[start..])).then_some(start)
}

/// Where each sentence of a text's prose starts: every line outside code
/// fences, and every sentence after another on its line.
pub(super) fn sentence_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    unfenced_lines(text).flat_map(|(base, line)| {
        let mut starts = Vec::new();
        let mut rest = line;
        loop {
            let sentence = rest.trim_start();
            if sentence.is_empty() {
                break;
            }
            starts.push(base + line.len() - sentence.len());
            rest = &sentence[crate::sentence::first_sentence_end(sentence)..];
        }
        starts
    })
}

/// The words that state a task in English: "Your task is to", "Task:".
static ENGLISH_TASK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)^(?:your(?:\s+\S+){0,3}?\s+(?:task|job|mission|assignment|objective|goal)|the\s+(?:task|mission|assignment|objective)|task|mission|objective)s?(?:\s+(?:here|now|today|for you))?\s*(?:[:：]|(?:is|are|will be)\s+(?:to|as follows|the following)\b|appears to be\b)",
    )
    .expect("pattern compiles")
});

/// The words that state a task in the other languages the harnesses are
/// used in, lower-cased.
const STATED_TASK: &[&str] = &[
    "ta tâche",
    "votre tâche",
    "ta mission",
    "votre mission",
    "tâche :",
    "tu tarea",
    "su tarea",
    "tu misión",
    "tarea:",
    "sua tarefa",
    "tua tarefa",
    "sua missão",
    "tarefa:",
    "deine aufgabe",
    "ihre aufgabe",
    "aufgabe:",
    "il tuo compito",
    "compito:",
    "je taak",
    "jouw taak",
    "uw taak",
    "taak:",
    "твоя задача",
    "ваша задача",
    "задача:",
    "твоє завдання",
    "ваше завдання",
    "завдання:",
    "nhiệm vụ của bạn",
    "nhiệm vụ:",
    "你的任务",
    "您的任务",
    "你的任務",
    "您的任務",
    "任务：",
    "任务:",
    "任務：",
    "任務:",
    "你要做的是",
    "你需要做的是",
    "あなたのタスク",
    "あなたの仕事",
    "タスク：",
    "タスク:",
    "당신의 임무",
    "당신의 작업",
    "작업:",
    "과제:",
];

/// A sentence that states the agent's task: "Your task is to …", "The task
/// here: …", "Your “Cloud” parallel task appears to be …", "Task: …", in
/// the languages the harnesses are used in; not one that only says
/// something of it ("The task is urgent because …").
fn states_the_task(sentence: &str) -> bool {
    // Its opening words are enough, and reading no further keeps a long
    // paste's every sentence cheap.
    let opening: String = sentence.trim_start().chars().take(80).collect();
    let lower = opening.to_lowercase();
    ENGLISH_TASK.is_match(&lower) || STATED_TASK.iter().any(|s| lower.starts_with(s))
}

/// A brief written in sections (`NON-NEGOTIABLES`, `PROJECT CONTEXT (what
/// to fix)`, `## Deliverables`) asks in the section that names the task, not
/// in the rules that come first: the text from that section's first line, when
/// there is one; the text itself otherwise.
pub(super) fn brief_task(text: &str) -> &str {
    const TASK: &[&str] = &[
        "task",
        "goal",
        "objective",
        "problem",
        "issue",
        "fix",
        "bug",
        "what to",
        "request",
        "feature",
        "instruction",
        "prompt",
        "context",
        "background",
        "want",
        "todo",
        "to do",
        "ask",
    ];
    const RULES: &[&str] = &[
        "rule",
        "negotiable",
        "constraint",
        "requirement",
        "style",
        "format",
        "output",
        "guideline",
        "quality",
        "acceptance",
        "role",
        "persona",
        "tool",
    ];
    let headings: Vec<(usize, &str)> = text
        .lines()
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len() + 1;
            Some((start, line.trim()))
        })
        .filter(|(_, line)| is_section_heading(line))
        .collect();
    if headings.len() < 2 {
        return text;
    }
    // The heading with the word that most surely names the task: "<task>"
    // over "<context>" wherever each stands.
    let task = TASK.iter().find_map(|word| {
        headings.iter().find(|(_, h)| {
            let h = h.to_lowercase();
            h.contains(word) && !RULES.iter().any(|w| h.contains(w))
        })
    });
    let Some(&(at, heading)) = task else {
        return text;
    };
    // "# Feature: Dark mode" names the task itself: the section from it.
    let titled = heading
        .split_once([':', '：'])
        .is_some_and(|(_, title)| !title.trim().is_empty());
    if titled && heading.starts_with('#') {
        return &text[at..];
    }
    let body = text[at + heading.len()..].trim_start_matches(|c: char| c != '\n');
    match prose_lines(body).next() {
        Some(first) if !is_section_heading(first) => {
            let line = body.trim_start();
            // "A) Analytics mode: …" is an item of the section, its letter no word.
            let mut chars = line.chars();
            match (chars.next(), chars.next(), chars.next()) {
                (Some(c), Some(')' | '.'), Some(' ')) if c.is_ascii_uppercase() => {
                    line[3..].trim_start()
                }
                _ => line,
            }
        }
        _ => text,
    }
}

/// A section heading of a brief: a markdown heading, a short line in
/// capitals (`NON-NEGOTIABLES`, `PROJECT CONTEXT (what to fix)`), or a
/// tag that opens a part (`<task>`).
fn is_section_heading(line: &str) -> bool {
    if is_tag(line) {
        return !line.starts_with("</");
    }
    if let Some(rest) = line.strip_prefix('#') {
        return !rest.trim_start_matches('#').trim().is_empty();
    }
    let head = line
        .split('(')
        .next()
        .unwrap_or_default()
        .trim_end_matches([':', ' ']);
    let letters = head.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 4
        && head.split_whitespace().count() <= 5
        && head.chars().all(|c| !c.is_alphabetic() || c.is_uppercase())
        && !line.ends_with('.')
}

/// The non-empty lines of a text outside code fences, trimmed, without
/// the rules, banners and tags that frame its parts.
pub(super) fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    unfenced_lines(text)
        .map(|(_, l)| l.trim())
        .filter(|l| !l.is_empty() && !is_banner(l) && !is_tag(l))
}

/// A line that is only a tag (`<task>`, `</constraints>`, `<context
/// repo="shop">`): people frame a prompt's parts with them as with
/// headings, and the words are inside.
fn is_tag(line: &str) -> bool {
    static TAG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"^</?[A-Za-z][\w.:-]*(?:\s+[\w.:-]+(?:=(?:"[^"]*"|'[^']*'|[^\s>]+))?)*\s*/?>$"#,
        )
        .expect("pattern compiles")
    });
    TAG.is_match(line)
}

/// The lines of a text outside code fences (the fence lines too left out),
/// each with the byte offset it starts at and without its line end.
fn unfenced_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    let mut next = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let at = next;
        next += line.len();
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then(|| (at, line.trim_end_matches(['\n', '\r'])))
    })
}

/// Rule and ornament characters: box drawing, dingbats, `=`, `~`, dashes.
/// Markdown's own marks (`**`, `#`) are not ornaments.
fn is_ornament(c: char) -> bool {
    matches!(c, '=' | '~' | '_' | '—' | '–' | '·' | '•' | '-')
        || ('\u{2500}'..='\u{27BF}').contains(&c)
        || ('\u{2B00}'..='\u{2BFF}').contains(&c)
}

/// A line that only rules a text off (`─────`, `=====`, `─── ✦ ───`).
pub(super) fn is_banner(line: &str) -> bool {
    !line.chars().any(char::is_alphanumeric)
        && line.chars().filter(|c| is_ornament(*c)).count() >= 3
}

/// A title between ornaments (`─── ✦ 朝报 · 四月初七 ✦ ───`, `=== Results
/// ===`) without them: three or more rule or ornament characters before its
/// first word and after its last frame it. Any other line as it is.
pub(super) fn without_ornaments(line: &str) -> &str {
    let frame = |chars: &mut dyn Iterator<Item = char>| {
        chars
            .take_while(|c| !c.is_alphanumeric())
            .filter(|c| !c.is_whitespace())
            .try_fold(0usize, |n, c| is_ornament(c).then_some(n + 1))
            .unwrap_or(0)
    };
    if frame(&mut line.chars()) < 3 || frame(&mut line.chars().rev()) < 3 {
        return line;
    }
    line.trim_matches(|c: char| !c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::super::gist::request_gist;

    /// The class: a prompt whose parts are framed by tags (`<task>`,
    /// `<instructions>`, `<context repo="shop">`, closing tags), the ask
    /// first or after its context: the request is the ask's words, never a
    /// tag. A tag inside a sentence ("wrap it in <main>") stays.
    #[test]
    fn tags_that_frame_a_prompt_are_not_its_words() {
        let ask = "Migrate the user service from callbacks to async/await.";
        for (open, close) in [
            ("<task>", "</task>"),
            ("<instructions>", "</instructions>"),
            ("<goal id=\"1\">", "</goal>"),
        ] {
            for framed in [
                format!(
                    "{open}\n{ask}\n{close}\n<constraints>\n- keep the public API\n</constraints>"
                ),
                format!(
                    "<context repo=\"shop\">\nNode 20, Express.\n</context>\n\n{open}\n{ask}\n{close}"
                ),
            ] {
                let got = request_gist(&framed);
                assert!(
                    got.contains("Migrate the user service"),
                    "{framed:?}: {got:?}"
                );
                assert!(!got.contains('<'), "{framed:?}: {got:?}");
            }
        }
        let inline = "Wrap the page content in <main> for screen readers.";
        assert!(request_gist(inline).contains("<main>"));
    }
}
