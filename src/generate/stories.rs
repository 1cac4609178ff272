//! Sessions with a story, and the questions an agent would ask about them:
//! the recall benchmark's ground truth (`memsync generate --questions FILE`,
//! `cargo bench --bench recall`).
//!
//! Each story is one session that fixes one problem of one component, told
//! in a request, the agent's work and a summary. Every component has several
//! stories (other problems, other months), and the filler sessions share
//! words with them (`retry`, `cache`, `fix`), so a question must find its
//! session among look-alikes. Questions are phrased as agents phrase them:
//! whole questions with stopwords and a question mark, other inflections than
//! the text (`fix` for `fixed`, `timing out` for `times out`), possessives,
//! a month and year instead of words, and Chinese or Japanese about the
//! stories told in those languages. A quarter of the stories have an echo: a
//! later session that asked the same question and found nothing, which the
//! question (form `echoed`) must not find before the story.
//!
//! Owns: story text and questions. Must not: be used but for generated workspaces.

use chrono::{DateTime, Datelike, Duration, Utc};
use serde::Serialize;

use crate::compose::{Content, NewSession};
use crate::config::Config;

/// A question and the session whose text answers it.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    pub question: String,
    /// The `session_id` of the session that holds the answer.
    pub session_id: String,
    /// What kind of phrasing it tests.
    pub form: &'static str,
}

/// (English, Chinese, Japanese)
const COMPONENTS: &[(&str, &str, &str)] = &[
    ("retry logic", "重试逻辑", "リトライ処理"),
    ("login page", "登录页面", "ログイン画面"),
    ("payment webhook", "支付回调", "決済フック"),
    ("cache layer", "缓存层", "キャッシュ層"),
    ("CSV export", "导出功能", "エクスポート機能"),
    ("rate limiter", "限流器", "レート制限"),
    ("image upload", "图片上传", "画像アップロード"),
    ("search index", "搜索索引", "検索インデックス"),
    ("signup form", "注册表单", "登録フォーム"),
    ("dark mode", "深色模式", "ダークモード"),
    ("email queue", "邮件队列", "メールキュー"),
    ("audit log", "审计日志", "監査ログ"),
    ("database migration", "数据库迁移", "データベース移行"),
    ("billing report", "账单报表", "請求レポート"),
    ("feature flags", "功能开关", "機能フラグ"),
    ("health check", "健康检查", "ヘルスチェック"),
    ("PDF renderer", "文档渲染", "文書レンダラー"),
    ("notification service", "通知服务", "通知サービス"),
    ("user avatar", "用户头像", "ユーザーアイコン"),
    ("websocket reconnect", "长连接重连", "再接続処理"),
];

/// (the text's form, the question's form, cause, a Chinese and a Japanese symptom)
const PROBLEMS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "times out under load",
        "timing out",
        "a missing database index",
        "超时",
        "タイムアウト",
    ),
    (
        "drops requests",
        "dropping requests",
        "a race condition between two workers",
        "丢请求",
        "リクエスト消失",
    ),
    (
        "leaks memory",
        "leaking memory",
        "an unclosed file handle",
        "内存泄漏",
        "メモリリーク",
    ),
    (
        "shows stale data",
        "showing stale data",
        "a cache key without the tenant id",
        "数据过期",
        "古いデータ",
    ),
    (
        "crashes on empty input",
        "crashing on empty input",
        "a null pointer dereference",
        "崩溃",
        "クラッシュ",
    ),
    (
        "double charges customers",
        "double charging customers",
        "a retry without an idempotency key",
        "重复扣款",
        "二重請求",
    ),
    (
        "renders a blank screen",
        "rendering a blank screen",
        "a broken z-index in the stylesheet",
        "白屏",
        "画面が真っ白",
    ),
    (
        "mangles unicode names",
        "mangling unicode names",
        "a latin-1 decode of utf-8 bytes",
        "乱码",
        "文字化け",
    ),
];

/// (base, past, gerund)
const ACTIONS: &[(&str, &str, &str)] = &[
    ("fix", "fixed", "fixing"),
    ("patch", "patched", "patching"),
    ("repair", "repaired", "repairing"),
    ("rewrite", "rewrote", "rewriting"),
];

const PEOPLE: &[&str] = &[
    "Maria", "Kenji", "Priya", "Tomas", "Ana", "Lukas", "Sofia", "Omar",
];
const TOOLS: &[&str] = &[
    "vitest",
    "pytest",
    "playwright",
    "cargo nextest",
    "k6",
    "sentry",
];
const FILES: &[&str] = &[
    "src/worker/queue.ts",
    "app/models/order.rb",
    "internal/http/handler.go",
    "src/cache/keys.rs",
    "web/components/Form.tsx",
    "services/billing/export.py",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// How many stories: every (component, problem) pair once.
pub fn count() -> usize {
    COMPONENTS.len() * PROBLEMS.len()
}

/// Story `i`'s session (ended at `ended`) and its questions.
pub fn story(
    i: usize,
    ended: DateTime<Utc>,
    config: &Config,
) -> (Vec<(String, String)>, Vec<Question>) {
    let (component, zh, ja) = COMPONENTS[i % COMPONENTS.len()];
    let (symptom, symptom_q, cause, zh_symptom, ja_symptom) =
        PROBLEMS[(i / COMPONENTS.len()) % PROBLEMS.len()];
    let (base, past, gerund) = ACTIONS[i % ACTIONS.len()];
    let person = PEOPLE[(i * 7 / 3) % PEOPLE.len()];
    let tool = TOOLS[i % TOOLS.len()];
    let file = FILES[(i / 3) % FILES.len()];
    let session_id = format!("story-{i:04}");
    let language = match i % 8 {
        2 => "zh",
        5 => "ja",
        _ => "en",
    };
    let request = match language {
        "zh" => format!("user: {person}说{zh}{zh_symptom}了，请帮我修复一下，测试用{tool}\n"),
        "ja" => format!(
            "user: {person}さんから{ja}が{ja_symptom}になると報告がありました。修正をお願いします（{tool}で確認）\n"
        ),
        _ => format!(
            "user: {person}'s report says the {component} {symptom}. Can you {base} it? We test with {tool}.\n"
        ),
    };
    let transcript = format!(
        "{request}assistant: Reading {file} and the logs first.\n\
         assistant: Found it: {cause} in {file}. I {past} the {component} and added a regression test with {tool}.\n\
         user: thanks, ship it\n\
         assistant: Merged; the {component} no longer {symptom}.\n"
    );
    let sentence = format!(
        "{} the {component} in webshop: it {symptom} because of {cause} in {file}; {person} reported it and a {tool} test covers it.",
        capitalised(past)
    );
    let summary = format!(
        "## Summary\n\n{} the {component}: it {symptom} because of {cause} in `{file}`. \
         {person} reported it; a regression test with {tool} covers it.\n",
        capitalised(past)
    );
    let month = format!("{} {}", MONTHS[ended.month0() as usize], ended.year());
    let mut questions = vec![
        (
            format!("When did we {base} the {component} that kept {symptom_q}?"),
            "inflection",
        ),
        (
            asked_again(i),
            if is_echoed(i) { "echoed" } else { "question" },
        ),
        (
            format!("What did {person}'s report about the {component} say?"),
            "possessive",
        ),
        (
            format!("What happened to the {component} in {month}?"),
            "date",
        ),
        (
            format!("Who found {cause} in the {component}? I remember we were {gerund} something"),
            "paraphrase",
        ),
    ];
    match language {
        "zh" => questions.push((
            format!("我们什么时候修复了{zh}{zh_symptom}的问题？"),
            "chinese",
        )),
        "ja" => questions.push((
            format!("{ja}の{ja_symptom}はいつ直しましたか？"),
            "japanese",
        )),
        _ => {}
    }
    let told = Told {
        id: session_id.clone(),
        ended,
        minutes: 40,
        sentence,
        summary,
        transcript,
    };
    let questions = questions
        .into_iter()
        .map(|(question, form)| Question {
            question,
            session_id: session_id.clone(),
            form,
        })
        .collect();
    (told.files(config), questions)
}

/// A webshop session of the benchmark, as its files.
pub(super) struct Told {
    pub id: String,
    pub ended: DateTime<Utc>,
    pub minutes: i64,
    pub sentence: String,
    pub summary: String,
    pub transcript: String,
}

impl Told {
    pub fn files(self, config: &Config) -> Vec<(String, String)> {
        let content = |body: String| Content {
            body,
            sentence: Some(self.sentence.clone()),
            captured_at: self.ended,
        };
        NewSession {
            agent_id: "default".into(),
            session_id: self.id.clone(),
            session_key: None,
            project: Some("/home/dev/code/webshop".into()),
            harness: "claude-code".into(),
            started_at: Some(self.ended - Duration::minutes(self.minutes)),
            ended_at: Some(self.ended),
            captured_at: self.ended,
            summary: Some(content(self.summary.clone())),
            transcript: Some(content(self.transcript.clone())),
            compaction: None,
            private: false,
            sentence_version: "memory_sentence_v1".into(),
            sanitizer_version: "sanitize_transcript_v1".into(),
        }
        .files(config)
    }
}

/// Whether a later session asked story `i`'s question again and found
/// nothing (a quarter of the stories): the echo that must not outrank the
/// session that did the work.
pub fn is_echoed(i: usize) -> bool {
    i % 4 == 1
}

/// The question about story `i` that its echo asked again.
fn asked_again(i: usize) -> String {
    let (component, ..) = COMPONENTS[i % COMPONENTS.len()];
    let (_, symptom_q, ..) = PROBLEMS[(i / COMPONENTS.len()) % PROBLEMS.len()];
    format!("What was causing the {component} to be {symptom_q}?")
}

/// The session that asked story `i`'s question again two days after it
/// ended, changed nothing and found no answer, as a session does that
/// asked before memsync was connected.
pub fn echo(i: usize, story_ended: DateTime<Utc>, config: &Config) -> Vec<(String, String)> {
    let question = asked_again(i);
    Told {
        id: format!("echo-{i:04}"),
        ended: story_ended + Duration::days(2),
        minutes: 5,
        sentence: format!("webshop: {question}; outcome: no record of it in the code or the notes."),
        summary: format!(
            "## Summary\n\nAsked: {question} No record of it in the code or the notes.\n"
        ),
        transcript: format!(
            "user: {question}\nassistant: I looked through the code and the notes and found no record of that.\n"
        ),
    }
    .files(config)
}

/// When story `i` ended: the stories of one component lie in different
/// months, so a month tells them apart.
pub fn ended(i: usize, now: DateTime<Utc>) -> DateTime<Utc> {
    let round = (i / COMPONENTS.len()) as i64;
    now - Duration::days(3 + round * 45 + (i % COMPONENTS.len()) as i64)
        - Duration::minutes(i as i64 * 7 % 600)
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
