//! Cline: where it keeps its sessions on this machine and how to read one
//! ([`reader`]). What it shares with another harness lives in the
//! transcript stage, never in that harness's folder.
//!
//! Owns: Cline's folders, formats and end markers. Must not: import another
//! harness's folder, or do what the stages do (sanitize, write, queue).

pub mod connect;
pub mod doctor;
pub mod reader;

use std::path::{Path, PathBuf};

use super::Program;
use super::listing::{is_file, subdirs};
use crate::config::{Env, HarvestConfig};
use crate::wiring::{Check, Connecting, Doctoring, Plan};

/// Cline: `~/.cline`, its sessions in `data/sessions/<id>/<id>.messages.json`
/// (one JSON document, rewritten whole as the session grows).
pub struct Cline;

impl Program for Cline {
    fn read_document(
        &self,
        doc: &serde_json::Value,
        keep: usize,
    ) -> Option<crate::transcript::Transcript> {
        reader::is_cline(doc).then(|| reader::read(doc, keep))
    }

    fn doctor(&self, d: &Doctoring) -> Vec<Check> {
        doctor::checks(d)
    }

    fn plan(&self, c: &Connecting, plan: &mut Plan) {
        connect::plan(c, plan)
    }

    fn home(&self, cfg: &HarvestConfig, env: &Env) -> Option<PathBuf> {
        super::home_of(
            cfg.dirs.get(crate::harness::Harness::Cline),
            None,
            env,
            ".cline",
        )
    }

    fn session_files(&self, home: &Path) -> Vec<PathBuf> {
        subdirs(&home.join("data").join("sessions"))
            .into_iter()
            .filter_map(|session| {
                let id = session.file_name()?.to_string_lossy().into_owned();
                let messages = session.join(format!("{id}.messages.json"));
                is_file(&messages).then_some(messages)
            })
            .collect()
    }
}
