//! `doctor` on OpenClaw: harvest, the MCP server in `openclaw.json` and
//! whether it leaves the write tools out (its agent asks no one), and the
//! MEMORY.md it reads: mirrored into its workspace once that is set up,
//! and short enough for the characters it injects.

use super::connect::OPENCLAW;
use super::workspace::{Readiness, readiness};
use crate::harness::Harness;
use crate::wiring::{Check, Doctoring, Places, broken, mcp_check, missing, ok, read, state};

/// OpenClaw injects each workspace file up to `agents.defaults.bootstrapMaxChars`
/// characters; this is its default when unset.
const FILE_LIMIT: u64 = 12_000;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    let places = d.places;
    let mut checks = vec![state((d.harvest)())];
    let config = places.dir(Harness::OpenClaw).join("openclaw.json");
    if let Some(text) = read(&config) {
        checks.push(match OPENCLAW.get(&config, &text) {
            Err(e) => broken(crate::error::message(&e), None),
            Ok(None) => missing(format!("MCP server: not in {}", config.display())),
            Ok(Some(v)) => mcp_check(v["command"].as_str().unwrap_or_default()),
        });
        if let Ok(Some(entry)) = OPENCLAW.get(&config, &text) {
            checks.push(writes(&entry, places));
        }
    }
    let workspace = places.openclaw_workspace();
    let same = places.openclaw_mirror().is_none();
    let memory = if same {
        places.memory_md("default")
    } else {
        workspace.join("MEMORY.md")
    };
    let mirrored = same || d.settings.config.mirrors.iter().any(|m| m.dir == workspace);
    if !mirrored {
        checks.push(missing(format!(
            "no mirror renders MEMORY.md into {}",
            workspace.display()
        )));
        return checks;
    }
    if !same {
        match readiness(&workspace) {
            Readiness::Ready => {}
            Readiness::FirstRun => {
                checks.push(state(ok(format!(
                    "OpenClaw's first run is not over ({} is there): memsync writes MEMORY.md there once OpenClaw has removed it",
                    workspace.join("BOOTSTRAP.md").display()
                ))));
                return checks;
            }
            Readiness::NotSetUp => {
                checks.push(state(missing(format!(
                    "OpenClaw has not set up {} yet: memsync writes MEMORY.md there once it has",
                    workspace.display()
                ))));
                if let Some(c) = checks.last_mut() {
                    c.fix =
                        Some("start OpenClaw once; memsync writes there at its next sync".into());
                }
                return checks;
            }
        }
    }
    let (limit, from) = match places
        .openclaw_setting("/agents/defaults/bootstrapMaxChars")
        .and_then(|v| v.as_u64())
    {
        Some(n) => (n, "its agents.defaults.bootstrapMaxChars"),
        None => (FILE_LIMIT, "its default limit"),
    };
    checks.push(match read(&memory) {
        None => broken(
            format!("{} does not exist yet", memory.display()),
            Some("memsync sync".into()),
        ),
        Some(text) if text.chars().count() as u64 > limit => broken(
            format!(
                "{} has {} characters; OpenClaw reads the first {limit} ({from})",
                memory.display(),
                text.chars().count()
            ),
            Some("lower memory_md.budget_bytes".into()),
        ),
        Some(_) => ok(format!("OpenClaw reads {}", memory.display())),
    });
    checks
}

/// OpenClaw's agent runs MCP tools unasked: its server must leave the
/// note-writing tools out unless the person granted them.
fn writes(entry: &serde_json::Value, places: &Places) -> Check {
    let read_only = entry["args"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x == "--read-only"));
    if read_only {
        ok(
            "memory writes: left out of OpenClaw's server (its agent would run them without asking; `connect openclaw --memory-writes` grants them)",
        )
    } else if places.writes_granted(Harness::OpenClaw) {
        ok("memory writes: granted by you (`connect openclaw --memory-writes`)")
    } else {
        broken(
            "memory writes: OpenClaw's agent runs memory_store and memory_correct without asking you",
            Some("memsync connect openclaw (or --memory-writes to grant them)".into()),
        )
    }
}
