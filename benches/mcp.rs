//! `cargo bench --bench mcp`: `memory_search` over MCP stdio, from a real MCP
//! client (the official Rust SDK's) to a warm `memsync mcp` on the generated
//! ~1,750-session workspace: p50, p95 and max of 50 queries (target p50
//! ≤ 10 ms), plus `memory_recent` and `memory_get`.

use std::time::{Duration, Instant};

mod common;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

const WORDS: &[&str] = &[
    "daemon", "index", "writer", "refactor", "config", "parser", "cache", "query", "retry",
    "signetai",
];

fn main() {
    let (_tmp, settings, g) = common::reference_workspace();
    let root = settings.root.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_memsync"));
        cmd.arg("--workspace")
            .arg(&root)
            .args(["mcp", "--no-sync"])
            .stderr(std::process::Stdio::null());
        let client =
            ().serve(TokioChildProcess::new(cmd).expect("spawn"))
                .await
                .expect("handshake");
        let call = |tool: &'static str, args: serde_json::Value| {
            CallToolRequestParams::new(tool)
                .with_arguments(args.as_object().expect("object").clone())
        };
        // Warm: the first calls load pages and prepare statements.
        for w in WORDS {
            client
                .call_tool(call("memory_search", json!({ "query": w })))
                .await
                .expect("warm");
        }
        let mut search = Vec::new();
        for i in 0..50 {
            let query = if i % 2 == 0 {
                WORDS[i % WORDS.len()].to_string()
            } else {
                format!(
                    "{} {}",
                    WORDS[i % WORDS.len()],
                    WORDS[(i + 3) % WORDS.len()]
                )
            };
            let started = Instant::now();
            let r = client
                .call_tool(call("memory_search", json!({ "query": query })))
                .await
                .expect("search");
            search.push(started.elapsed());
            assert_ne!(r.is_error, Some(true));
        }
        let mut recent = Vec::new();
        for _ in 0..20 {
            let started = Instant::now();
            client
                .call_tool(call("memory_recent", json!({})))
                .await
                .expect("recent");
            recent.push(started.elapsed());
        }
        search.sort();
        recent.sort();
        let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1000.0);
        println!("\nworkspace: {} sessions, {} files", g.sessions, g.files);
        println!("| measure (MCP over stdio, warm server) | p50 | p95 | max | target |");
        println!("|---|---|---|---|---|");
        println!(
            "| memory_search, 50 queries of 1-2 words | {} | {} | {} | p50 ≤ 10 ms |",
            ms(search[24]),
            ms(search[47]),
            ms(search[49])
        );
        println!(
            "| memory_recent, default agent, 30 days, 20 calls | {} | {} | {} | |",
            ms(recent[9]),
            ms(recent[18]),
            ms(recent[19])
        );
        client.cancel().await.expect("close");
    });
}
