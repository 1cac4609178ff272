//! The HTTP providers: Ollama's chat API, any OpenAI-compatible chat
//! completions endpoint, and Anthropic's Messages API. One blocking request
//! per call inside the capture job, with the call's timeout.
//!
//! The API key is read from the environment variable the config *names*, at
//! the call, and goes only into the request's header: never into a file, a
//! log line or an error (every error is scrubbed of it).
//!
//! Owns: the three request and reply shapes. Must not: judge the reply.

use std::time::Duration;

use serde_json::{Value, json};

use crate::config::{SentenceConfig, SentenceProvider};

/// Where each provider listens unless `sentence.base_url` says otherwise.
const OLLAMA_URL: &str = "http://127.0.0.1:11434";
const ANTHROPIC_URL: &str = "https://api.anthropic.com";
/// The variable Anthropic's key is in unless `sentence.api_key_env` names another.
const ANTHROPIC_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// A sentence is short: the reply needs no more.
const MAX_OUTPUT_TOKENS: u32 = 200;

/// Asks `provider` (an HTTP one) for a completion of `prompt`.
pub fn complete(
    provider: SentenceProvider,
    cfg: &SentenceConfig,
    prompt: &str,
    timeout: Duration,
) -> Result<String, String> {
    let key_env = cfg
        .api_key_env
        .as_deref()
        .or((provider == SentenceProvider::Anthropic).then_some(ANTHROPIC_KEY_ENV));
    let key = match key_env {
        Some(var) => match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Some(v),
            _ => return Err(format!("the environment variable {var} holds no API key")),
        },
        None => None,
    };
    let model = cfg.model.as_deref().unwrap_or_default();
    let base = cfg.base_url.as_deref().map(|u| u.trim_end_matches('/'));
    let (url, body, headers) = match provider {
        SentenceProvider::Ollama => (
            format!("{}/api/chat", base.unwrap_or(OLLAMA_URL)),
            json!({
                "model": model,
                "stream": false,
                "messages": [{ "role": "user", "content": prompt }],
                "options": { "num_predict": MAX_OUTPUT_TOKENS },
            }),
            bearer(key.as_deref()),
        ),
        SentenceProvider::OpenaiCompatible => (
            format!("{}/chat/completions", base.unwrap_or_default()),
            json!({
                "model": model,
                "stream": false,
                "max_tokens": MAX_OUTPUT_TOKENS,
                "messages": [{ "role": "user", "content": prompt }],
            }),
            bearer(key.as_deref()),
        ),
        SentenceProvider::Anthropic => {
            let mut headers = vec![("anthropic-version", "2023-06-01".to_string())];
            headers.extend(key.clone().map(|k| ("x-api-key", k)));
            (
                format!("{}/v1/messages", base.unwrap_or(ANTHROPIC_URL)),
                json!({
                    "model": model,
                    "max_tokens": MAX_OUTPUT_TOKENS,
                    "messages": [{ "role": "user", "content": prompt }],
                }),
                headers,
            )
        }
        other => return Err(format!("{} is not an HTTP provider", other.name())),
    };
    let scrub = |e: String| match &key {
        Some(k) if k.len() >= 4 => e.replace(k.as_str(), "[REDACTED]"),
        _ => e,
    };
    let reply = post(&url, &body, &headers, timeout).map_err(scrub)?;
    text_of(provider, &reply).ok_or_else(|| format!("{url}: the reply holds no text"))
}

fn bearer(key: Option<&str>) -> Vec<(&'static str, String)> {
    key.map(|k| ("authorization", format!("Bearer {k}")))
        .into_iter()
        .collect()
}

/// One JSON POST; the reply's JSON, or why there is none (status and the
/// start of the server's own error text, the URL without its query).
fn post(
    url: &str,
    body: &Value,
    headers: &[(&'static str, String)],
    timeout: Duration,
) -> Result<Value, String> {
    let shown = url.split('?').next().unwrap_or(url);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.post(url).header("content-type", "application/json");
    for (name, value) in headers {
        req = req.header(*name, value.as_str());
    }
    let mut resp = req.send(body.to_string()).map_err(|e| match e {
        ureq::Error::Timeout(_) => format!("{shown}: no answer within {} s", timeout.as_secs()),
        e => format!("{shown}: {}", e.to_string().replace(url, shown)),
    })?;
    let status = resp.status();
    let text = resp
        .body_mut()
        .read_to_string()
        .map_err(|e| format!("{shown}: reading the reply: {e}"))?;
    if !status.is_success() {
        let said: String = text.chars().take(200).collect();
        return Err(format!("{shown}: HTTP {status}: {said}"));
    }
    serde_json::from_str(&text).map_err(|e| format!("{shown}: the reply is not JSON: {e}"))
}

/// The model's text in each provider's reply shape.
fn text_of(provider: SentenceProvider, reply: &Value) -> Option<String> {
    let text = match provider {
        SentenceProvider::Ollama => reply.pointer("/message/content")?.as_str()?.to_string(),
        SentenceProvider::OpenaiCompatible => reply
            .pointer("/choices/0/message/content")?
            .as_str()?
            .to_string(),
        SentenceProvider::Anthropic => reply
            .get("content")?
            .as_array()?
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reply_shape_gives_its_text() {
        let ollama = json!({ "message": { "role": "assistant", "content": "A." } });
        let openai = json!({ "choices": [{ "message": { "content": "B." } }] });
        let anthropic =
            json!({ "content": [{ "type": "thinking" }, { "type": "text", "text": "C." }] });
        assert_eq!(
            text_of(SentenceProvider::Ollama, &ollama).as_deref(),
            Some("A.")
        );
        assert_eq!(
            text_of(SentenceProvider::OpenaiCompatible, &openai).as_deref(),
            Some("B.")
        );
        assert_eq!(
            text_of(SentenceProvider::Anthropic, &anthropic).as_deref(),
            Some("C.")
        );
        assert_eq!(text_of(SentenceProvider::Ollama, &openai), None);
    }

    #[test]
    fn a_missing_key_is_named_by_its_variable_never_by_a_value() {
        let cfg = SentenceConfig {
            provider: Some(SentenceProvider::OpenaiCompatible),
            model: Some("m".into()),
            base_url: Some("http://127.0.0.1:9".into()),
            api_key_env: Some("MEMSYNC_TEST_SURELY_UNSET_KEY".into()),
            ..SentenceConfig::default()
        };
        let e = complete(
            SentenceProvider::OpenaiCompatible,
            &cfg,
            "p",
            Duration::from_secs(1),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "the environment variable MEMSYNC_TEST_SURELY_UNSET_KEY holds no API key"
        );
    }
}
