//! Codex as the end-to-end tests run it: the user's config with a provider
//! on the fake model, the command that runs it in a temporary home, and what
//! its tool calls returned to the model.

use super::home::Home;

/// A secret in the user's own config, which no file memsync writes may hold.
pub const TOKEN: &str = "sk-proj-FAKETOKENFORE2ETESTS0123456789";

/// The user's own Codex config: a model provider on the fake server, with a
/// secret in an MCP server's `env` beside it.
pub fn config_toml(port: u16) -> String {
    format!(
        "# my codex setup\nmodel = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n\
         [model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\n\
         wire_api = \"responses\"\nenv_key = \"FAKE_OPENAI_KEY\"\n\n\
         [mcp_servers.notes]\ncommand = \"true\"\nenabled = false\nenv = {{ NOTES_TOKEN = \"{TOKEN}\" }}\n"
    )
}

/// The output of every tool call the model was sent (Responses API
/// `function_call_output` items), as it arrived.
pub fn tool_outputs(requests: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in requests.lines() {
        let Ok(req) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        for item in req["input"].as_array().into_iter().flatten() {
            if item["type"] == "function_call_output" {
                out.push(match &item["output"] {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
        }
    }
    out.dedup();
    out
}

/// The real `codex` in the temp home and `project`, with no key of the user's.
pub fn codex_in(
    codex: &std::path::Path,
    home: &Home,
    project: &std::path::Path,
) -> std::process::Command {
    let mut cmd = std::process::Command::new(codex);
    cmd.current_dir(project)
        .stdin(std::process::Stdio::null())
        .env("HOME", home.dir.path())
        .env("XDG_CONFIG_HOME", home.path(".config"))
        .env("XDG_STATE_HOME", home.path(".local/state"))
        .env("FAKE_OPENAI_KEY", "sk-fake")
        .env_remove("CODEX_HOME")
        .env_remove("OPENAI_API_KEY");
    cmd
}
