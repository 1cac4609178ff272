//! A real MCP client (the official Rust SDK's) over `memsync mcp`'s stdio.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

pub const NOW: &str = "2026-11-20T12:00:00Z";

pub async fn connect(root: &Path) -> RunningService<RoleClient, ()> {
    connect_in(root, root).await
}

/// The server as a harness starts it in its project folder `cwd`.
pub async fn connect_in(root: &Path, cwd: &Path) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memsync"));
    cmd.current_dir(cwd);
    cmd.arg("--workspace")
        .arg(root)
        .args(["--now", NOW, "mcp"])
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env_remove("MEMSYNC_CONFIG")
        .stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(cmd).expect("spawn memsync mcp");
    ().serve(transport).await.expect("MCP handshake")
}

pub async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string())
        .with_arguments(args.as_object().expect("object").clone());
    client
        .call_tool(params)
        .await
        .expect("a tool answer, not a protocol error")
}

pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// A successful answer, parsed.
pub fn answer(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    serde_json::from_str(&text(result)).expect("JSON answer")
}
