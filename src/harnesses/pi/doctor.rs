//! `doctor` on pi: the AGENTS.md block naming MEMORY.md, and harvest.

use crate::harness::Harness;
use crate::wiring::{Check, Doctoring, state};

use super::INSTRUCTIONS;

pub fn checks(d: &Doctoring) -> Vec<Check> {
    vec![
        d.import_check(&d.places.dir(Harness::Pi).join(INSTRUCTIONS)),
        state((d.harvest)()),
    ]
}
