//! The memory sentence written by the person's own model (the spec's
//! "generate one-sentence memory_sentence via LLM"): one versioned prompt
//! fed the sanitized digest, one call to the configured provider within the
//! per-minute limit and the timeout, and the gate; any failure leaves the
//! capture its deterministic sentence with the reason.
//!
//! memsync never captures its own calls: each runs in memsync's model-call
//! folder with the model-call marker in its environment (every hook answers
//! it with nothing), and its prompt opens with a marker line that the
//! session readers recognise, so neither hook nor harvest takes it.
//!
//! Owns: choosing the provider, the limit, and the call ledger's rows. Must
//! not: write canonical files (the writer does).

pub mod gate;
pub mod harness;
pub mod http;
pub mod process;
pub mod prompt;

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::config::{SentenceProvider, Settings};
use crate::store::model_calls::{ModelCall, ModelCallLedger};

pub use prompt::{SENTENCE_PROMPT, Subject};

/// What the model gave for a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A sentence that passed the gate.
    Sentence(String),
    /// No sentence; why, in words for the capture's notes.
    Fallback(String),
}

/// Asks the configured provider for the sentence about `digest` (sanitized).
/// `None` when no provider is configured: the deterministic sentence is the
/// sentence then, not a fallback.
pub fn sentence(
    settings: &Settings,
    now: DateTime<Utc>,
    digest: &str,
    subject: Subject,
    project: Option<&str>,
) -> Option<Answer> {
    let cfg = &settings.config.sentence;
    let provider = cfg.provider()?;
    let name = provider.name();
    // A ledger that cannot be opened must not cost the capture its sentence;
    // without it there is no limit to keep, so no call is made either.
    let ledger = match ModelCallLedger::open(&settings.state_dir()) {
        Ok(l) => l,
        Err(e) => return Some(Answer::Fallback(format!("sentence provider {name}: {e}"))),
    };
    let made = ledger
        .calls_since(now - chrono::Duration::minutes(1))
        .unwrap_or(u64::MAX);
    if made >= cfg.per_minute {
        return Some(Answer::Fallback(format!(
            "sentence provider {name}: not called, {made} calls in the last minute reach sentence.per_minute ({})",
            cfg.per_minute
        )));
    }
    let prompt = prompt::sentence_prompt(digest, subject, project);
    let started = Instant::now();
    let timeout = Duration::from_secs(cfg.timeout_seconds);
    let answer = call(provider, settings, &prompt, timeout)
        .and_then(|out| gate::judge(&out, project, cfg).map_err(|why| why.to_string()));
    let refused = answer.as_ref().err().map(String::as_str);
    let row = ModelCall {
        provider: name,
        refused,
        millis: started.elapsed().as_millis() as u64,
        input_tokens: prompt::tokens(&prompt),
    };
    if let Err(e) = ledger.record(&row, now) {
        tracing::warn!(error = %e, "the model call was not recorded");
    }
    Some(match answer {
        Ok(s) => Answer::Sentence(s),
        Err(why) => Answer::Fallback(format!("sentence provider {name}: {why}")),
    })
}

/// One call to `provider` with `prompt`: its raw answer, or why none.
fn call(
    provider: SentenceProvider,
    settings: &Settings,
    prompt: &str,
    timeout: Duration,
) -> Result<String, String> {
    let cfg = &settings.config.sentence;
    match provider {
        SentenceProvider::Harness(h) => {
            harness::complete(h, cfg, prompt, timeout).map_err(|e| e.to_string())
        }
        SentenceProvider::Ollama
        | SentenceProvider::OpenaiCompatible
        | SentenceProvider::Anthropic => http::complete(provider, cfg, prompt, timeout),
        SentenceProvider::Command => {
            let command = cfg.command.as_deref().unwrap_or_default();
            super::summarize::run_command(command, prompt, timeout).map_err(|e| e.to_string())
        }
    }
}
