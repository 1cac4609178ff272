//! What `connect pi` changes. pi reads `~/.pi/agent/AGENTS.md` into every
//! session and has no MCP (its choice) and no hook memsync could run (its
//! extensions are TypeScript), so connect gives it the block naming
//! MEMORY.md and harvest takes its sessions.

use crate::harness::Harness;
use crate::wiring::{Connecting, Plan, memory_block};

use super::INSTRUCTIONS;

pub fn plan(c: &Connecting, plan: &mut Plan) {
    let agents_md = c.places.dir(Harness::Pi).join(INSTRUCTIONS);
    plan.edits.push(memory_block(c.places, agents_md, "pi"));
    plan.notes.push(
        "pi has no MCP and runs no hook of memsync's: it reads MEMORY.md through the AGENTS.md block, and `memsync watch` harvests its finished sessions".into(),
    );
}
