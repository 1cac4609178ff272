//! `memsync mcp`: the agent asks its memory directly, over the Model Context
//! Protocol on stdio, with the official Rust SDK (`rmcp`). Three read-only
//! tools ([`tools`]): `memory_search`, `memory_get` and `memory_recent`, and
//! two that write a note ([`write`]): `memory_store` and `memory_correct`.
//!
//! It syncs the index once at start (unless `--no-sync`), then answers from
//! the index as it is at each call, so a daemon's or a capture's later
//! changes show without a restart. Tombstoned sessions are gone from the
//! index, so they never appear. Bad arguments come back as tool errors
//! (`isError`) that say what to send; the server stays up.
//!
//! Owns: the protocol glue. Must not: write a canonical file (notes go
//! through `remember`), or print to
//! stdout anything but protocol messages (logs go to stderr).

mod framing;
pub mod tools;
pub mod write;

use std::sync::Mutex;

use chrono::{DateTime, Utc};
use rmcp::handler::server::common::schema_for_type;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::de::DeserializeOwned;

use crate::config::Settings;
use crate::error::{Error, Result};
use crate::pipeline::{self, SyncOptions};
use crate::store::Index;
use tools::{GetArgs, RecentArgs, SearchArgs, ToolResult};
use write::{CorrectArgs, StoreArgs};

const INSTRUCTIONS: &str = "This server is the agent's long-term memory: past sessions (summaries, transcripts, compactions) and notes kept as markdown by memsync. Use memory_recent for what happened lately (the same ledger as MEMORY.md), memory_search to find a past session or note by its words, memory_get to read one session's summary and transcript, memory_store to keep a fact for later sessions, and memory_correct to replace a wrong note.";

const READ_ONLY_INSTRUCTIONS: &str = "This server is the agent's long-term memory: past sessions (summaries, transcripts, compactions) and notes kept as markdown by memsync. Use memory_recent for what happened lately (the same ledger as MEMORY.md), memory_search to find a past session or note by its words, and memory_get to read one session's summary and transcript. It writes nothing: here the person has not granted the tools that write notes.";

/// The server: the workspace's settings and one index connection.
#[derive(Clone)]
pub struct MemoryServer {
    settings: std::sync::Arc<Settings>,
    index: std::sync::Arc<Mutex<Index>>,
    /// `--now`, for reproducible answers; else each call reads the clock.
    fixed_now: Option<DateTime<Utc>>,
    /// Notes this server may still write (`write::MAX_WRITES`); none when
    /// it answers from a scratch index of a read-only workspace.
    writes_left: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    tool_router: ToolRouter<Self>,
    /// Started with `--read-only`: no write tool, and the instructions say so.
    read_only: bool,
    /// The folder the harness started the server in, when it is a project
    /// (not the workspace, the home folder or `/`): a note written without
    /// a `project` is about it, as a session there is.
    project: Option<String>,
}

/// The tools that write a note.
pub const WRITE_TOOLS: [&str; 2] = ["memory_store", "memory_correct"];

impl MemoryServer {
    pub fn new(settings: Settings, fixed_now: Option<DateTime<Utc>>) -> Result<MemoryServer> {
        let index = Index::open(&settings.index_path())?;
        let server = Self::with_index(settings, index, fixed_now);
        server
            .writes_left
            .store(write::MAX_WRITES, std::sync::atomic::Ordering::SeqCst);
        Ok(server)
    }

    /// A server answering from `index` (a scratch index for a read-only workspace).
    pub fn with_index(
        settings: Settings,
        index: Index,
        fixed_now: Option<DateTime<Utc>>,
    ) -> MemoryServer {
        MemoryServer {
            settings: std::sync::Arc::new(settings),
            index: std::sync::Arc::new(Mutex::new(index)),
            fixed_now,
            writes_left: Default::default(),
            tool_router: Self::tool_router(),
            read_only: false,
            project: None,
        }
    }

    /// The server without `memory_store` and `memory_correct`: they are
    /// neither listed nor callable.
    pub fn without_writes(mut self) -> MemoryServer {
        for tool in WRITE_TOOLS {
            self.tool_router.remove_route(tool);
        }
        self.writes_left
            .store(0, std::sync::atomic::Ordering::SeqCst);
        self.read_only = true;
        self
    }

    /// The server for a harness that started it in `cwd`.
    pub fn started_in(mut self, cwd: Option<std::path::PathBuf>) -> MemoryServer {
        let cwd = cwd.map(|c| crate::context::resolve_cwd(&c));
        let home = std::env::var_os("HOME").map(|h| crate::context::resolve_cwd(h.as_ref()));
        let root = crate::context::resolve_cwd(&self.settings.root);
        self.project = cwd
            .filter(|c| c.parent().is_some() && Some(c) != home.as_ref() && *c != root)
            .map(|c| c.display().to_string());
        self
    }

    /// `args` with the server's project when the agent named none.
    fn in_project(&self, mut args: JsonObject) -> JsonObject {
        if let Some(p) = &self.project
            && args.get("project").is_none_or(serde_json::Value::is_null)
        {
            args.insert("project".into(), serde_json::Value::String(p.clone()));
        }
        args
    }

    /// Runs a tool that writes a note, within the server's write budget.
    fn call_writing<A: DeserializeOwned>(
        &self,
        args: JsonObject,
        tool: impl FnOnce(&mut Index, &Settings, A, DateTime<Utc>) -> ToolResult,
    ) -> CallToolResult {
        use std::sync::atomic::Ordering;
        let args: A = match serde_json::from_value(serde_json::Value::Object(args)) {
            Ok(a) => a,
            Err(e) => return failure(format!("arguments: {e}; see the tool's input schema")),
        };
        let taken = self
            .writes_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        if taken.is_err() {
            return failure(format!(
                "no note written: this session has written {} notes, the most one session may (or the workspace is read-only)",
                write::MAX_WRITES
            ));
        }
        let Ok(mut index) = self.index.lock() else {
            return failure("the index connection was poisoned by an earlier panic".into());
        };
        let now = self.fixed_now.unwrap_or_else(Utc::now);
        match tool(&mut index, &self.settings, args, now) {
            Ok(value) => CallToolResult::success(vec![ContentBlock::text(value.to_string())]),
            Err(message) => {
                self.writes_left.fetch_add(1, Ordering::SeqCst);
                failure(message)
            }
        }
    }

    /// Runs a tool against the index as it is now: a connection whose file
    /// was replaced (a rebuild) is reopened first.
    fn call<A: DeserializeOwned>(
        &self,
        args: JsonObject,
        tool: impl FnOnce(&Index, &Settings, A, DateTime<Utc>) -> ToolResult,
    ) -> CallToolResult {
        let args: A = match serde_json::from_value(serde_json::Value::Object(args)) {
            Ok(a) => a,
            Err(e) => return failure(format!("arguments: {e}; see the tool's input schema")),
        };
        let Ok(mut index) = self.index.lock() else {
            return failure("the index connection was poisoned by an earlier panic".into());
        };
        if !index.still_on_disk()
            && let Err(e) = index.reopen(false)
        {
            return failure(crate::error::message(&e));
        }
        let now = self.fixed_now.unwrap_or_else(Utc::now);
        match tool(&index, &self.settings, args, now) {
            // Compact: an agent pays for every byte of indentation.
            Ok(mut value) => {
                crate::search::for_machines(&mut value);
                CallToolResult::success(vec![ContentBlock::text(value.to_string())])
            }
            Err(message) => failure(message),
        }
    }
}

/// A tool's input schema as plain JSON Schema: schemars' `format: uint32`
/// and the like are its own vocabulary, which clients warn about (Gemini CLI
/// prints a warning per tool); the ranges say the same in standard words.
pub fn plain_schema<T: schemars::JsonSchema + 'static>() -> std::sync::Arc<JsonObject> {
    let mut schema = (*schema_for_type::<T>()).clone();
    strip_formats(&mut schema);
    std::sync::Arc::new(schema)
}

fn strip_formats(object: &mut JsonObject) {
    let numeric = object
        .get("format")
        .and_then(|f| f.as_str())
        .is_some_and(|f| {
            f.starts_with("int") || f.starts_with("uint") || f == "float" || f == "double"
        });
    if numeric {
        object.remove("format");
    }
    for value in object.values_mut() {
        match value {
            serde_json::Value::Object(inner) => strip_formats(inner),
            serde_json::Value::Array(items) => items
                .iter_mut()
                .filter_map(|v| v.as_object_mut())
                .for_each(strip_formats),
            _ => {}
        }
    }
}

fn failure(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

#[tool_router]
impl MemoryServer {
    #[tool(
        annotations(
            title = "Search memory",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Search past sessions with a question or keywords in your own words (any language; Chinese, Japanese and Korean inside a sentence too): summaries, transcripts and compactions holding any of the words, ranked by relevance first. Replies {hits: [...]}, best first, one per session: token (pass it to memory_get as `session`), session_id, session_key (when the harness has one), agent, when (the session's time, UTC), project, sentence (what happened, in one line), snippet (the text around the match, matched words between « and »), path (the artifact that matched; memory_get takes it as `path`).",
        input_schema = plain_schema::<SearchArgs>()
    )]
    async fn memory_search(&self, Parameters(args): Parameters<JsonObject>) -> CallToolResult {
        self.call(args, tools::search)
    }

    #[tool(
        annotations(
            title = "Read a past session",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "Read one past session: its summary, transcript (or a line range of it), compaction and manifest, by token, session id or key; or one artifact by its memory/ path.",
        input_schema = plain_schema::<GetArgs>()
    )]
    async fn memory_get(&self, Parameters(args): Parameters<JsonObject>) -> CallToolResult {
        self.call(args, tools::get)
    }

    #[tool(
        annotations(
            title = "Recent sessions",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        description = "The ledger of recent sessions, newest first: the same rows and sentences as MEMORY.md (private and test sessions left out), for an agent over the last N days.",
        input_schema = plain_schema::<RecentArgs>()
    )]
    async fn memory_recent(&self, Parameters(args): Parameters<JsonObject>) -> CallToolResult {
        self.call(args, tools::recent)
    }

    #[tool(
        annotations(
            title = "Remember a fact",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Keep a fact for later sessions as a new note in the memory workspace (notes/…md, synced with the rest): a decision, a convention, a preference (\"This repo uses pnpm, not npm.\"). It is searchable at once (memory_search lists it under `notes`) and shown to agents starting in its project. Credentials are redacted. Replies {note, title}. To fix a wrong note use memory_correct.",
        input_schema = plain_schema::<StoreArgs>()
    )]
    async fn memory_store(&self, Parameters(args): Parameters<JsonObject>) -> CallToolResult {
        self.call_writing(self.in_project(args), write::store)
    }

    #[tool(
        annotations(
            title = "Correct a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        ),
        description = "Correct a note that is wrong or out of date: writes a new note with the corrected fact and the reason, which supersedes the old one (the old note stays on disk and in history, but search and start-up context show only the new one). Send the old note's path as memory_search returned it. Replies {note, title, supersedes}.",
        input_schema = plain_schema::<CorrectArgs>()
    )]
    async fn memory_correct(&self, Parameters(args): Parameters<JsonObject>) -> CallToolResult {
        // A correction is about the corrected note's project (remember takes it).
        self.call_writing(args, write::correct)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "memsync",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(if self.read_only {
                READ_ONLY_INSTRUCTIONS
            } else {
                INSTRUCTIONS
            })
    }
}

/// Serves MCP on stdin/stdout until the client closes the connection.
/// `read_only` leaves the write tools out altogether (a harness that would
/// run them without asking the person: OpenClaw).
pub fn run(
    settings: Settings,
    sync_first: bool,
    read_only: bool,
    fixed_now: Option<DateTime<Utc>>,
) -> Result<()> {
    let now = fixed_now.unwrap_or_else(Utc::now);
    let path = settings.index_path();
    // A read-only workspace (a mounted backup, another user's clone) is
    // answered as `search` answers it: from a scratch index of its markdown.
    let mut _scratch = None;
    let server = if crate::files::writable(&path) {
        if sync_first {
            // Index only: answers are current, and no projection is written.
            pipeline::sync(&settings, now, SyncOptions::INDEX_ONLY)?;
        }
        MemoryServer::new(settings, fixed_now)?
    } else {
        let dir = tempfile::Builder::new()
            .prefix("memsync-scratch-")
            .tempdir()
            .map_err(|e| Error::io(std::env::temp_dir(), e))?;
        tracing::warn!(
            index = %path.display(),
            "cannot write the index (a read-only workspace?): answering from a scratch index built from the markdown"
        );
        let mut index = Index::open(&dir.path().join("index.db"))?;
        pipeline::sync_with(&mut index, &settings, now, SyncOptions::INDEX_ONLY)?;
        _scratch = Some(dir);
        MemoryServer::with_index(settings, index, fixed_now)
    };
    let server = if read_only {
        server.without_writes()
    } else {
        server
    }
    .started_in(std::env::current_dir().ok());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    runtime.block_on(async move {
        // stdin -> framing (errors for what is not a message) -> SDK -> stdout.
        let out = framing::stdout();
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let forward = tokio::spawn(framing::forward_output(from_server, out.clone()));
        let input = tokio::spawn(framing::filter_input(to_server, out));
        let stdio_error = |e: String| Error::io("<stdio>", std::io::Error::other(e));
        let service = server
            .serve((server_in, server_out))
            .await
            .map_err(|e| stdio_error(e.to_string()))?;
        service
            .waiting()
            .await
            .map_err(|e| stdio_error(e.to_string()))?;
        let _ = forward.await;
        match input.await {
            Ok(Err(e)) => Err(Error::io("<stdin>", e)),
            _ => Ok(()),
        }
    })
}
