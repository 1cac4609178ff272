//! What `connect` changes for a harness: the plan its folder makes
//! (`harnesses/<name>/connect.rs`), and what every plan shares: a note when
//! the machine config turns harvest off, and taking out the block older memsyncs wrote into the machine config.
//! Where the files are is resolved once (`Places::resolve`).
//!
//! Owns: the plan per harness. Must not: write anything.

use std::path::Path;

use serde_yaml::Value;

use crate::config::{Env, Settings};
use crate::error::{ConfigError, Error, Result};
use crate::harness::Harness;
use crate::harnesses::program;
use crate::wiring::{Connecting, Edit, Places, Plan, Record, edit, empty_text};

/// Every path `connect` reads or writes, resolved once (tests point them at
/// temp dirs through the environment).
pub(in crate::connect) fn resolve(
    settings: &Settings,
    env: &Env,
    config_flag: Option<&Path>,
) -> Result<Places> {
    let home = env.home.clone().ok_or(ConfigError::Environment {
        var: "HOME",
        needed_for: "the harnesses' files are found under it",
    })?;
    let exe = std::env::current_exe().map_err(|e| Error::io("<current executable>", e))?;
    let workspace =
        std::fs::canonicalize(&settings.root).map_err(|e| Error::io(&settings.root, e))?;
    let harvest = &settings.config.harvest;
    let dirs = Harness::ALL
        .iter()
        .map(|&h| (h, h.home(harvest, env).unwrap_or_else(|| home.clone())))
        .collect();
    let machine_config = env
        .machine_config(config_flag)
        .map(|(p, _)| p)
        .unwrap_or_else(|| home.join(".config/memsync/config.yaml"));
    Ok(Places {
        exe,
        workspace,
        agent: harvest.agent.clone(),
        record: env
            .connect_record()
            .unwrap_or_else(|| home.join(".local/state/memsync/connect.json")),
        home,
        env: env.clone(),
        dirs,
        machine_config,
        import_memory_md: false,
        sentences: false,
        memory_writes: false,
    })
}

pub(super) fn plan(
    target: Harness,
    places: &Places,
    record: &Record,
    connecting: bool,
    force: bool,
) -> Result<Plan> {
    let mut plan = Plan::default();
    let c = Connecting {
        target,
        places,
        record,
        connecting,
        force,
    };
    program(target).plan(&c, &mut plan);
    if connecting && target.needs_harvest() {
        harvest_off_note(places, &mut plan);
    }
    legacy_machine_block(places, &mut plan);
    Ok(plan)
}

/// The block older memsyncs wrote into their machine config, taken out
/// when it holds only what they wrote: harvest and the mirror come from
/// connect's record now, and the config file is the user's alone. One the
/// user added keys to stays, with a note.
fn legacy_machine_block(places: &Places, plan: &mut Plan) {
    let path = places.machine_config.clone();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    if !edit::has_legacy_yaml_block(&text) {
        return;
    }
    if edit::without_legacy_yaml_block(&text).is_none() {
        plan.notes.push(format!(
            "{}: the `# memsync connect` block an older memsync wrote holds keys you added, so it stays as it is; memsync no longer needs it (delete its two marker lines, and `harvest.enabled` if you want harvest off even for the harnesses only harvest captures)",
            path.display()
        ));
        return;
    }
    let take_out =
        |_: &Path, t: &str| Ok(edit::without_legacy_yaml_block(t).unwrap_or_else(|| t.to_string()));
    plan.edits.push(Edit {
        path,
        what: "the `# memsync connect` block an older memsync wrote (these settings live in connect's record now)".into(),
        apply: Box::new(take_out),
        undo: Box::new(take_out),
        empty: empty_text,
        whole: true,
        new_mode: 0o644,
    });
}

/// A note when the user's machine config turns harvest off: the sessions of
/// a harness only harvest captures then never reach the workspace.
fn harvest_off_note(places: &Places, plan: &mut Plan) {
    let off = std::fs::read_to_string(&places.machine_config)
        .ok()
        .and_then(|t| serde_yaml::from_str::<Value>(&t).ok())
        .is_some_and(|v| {
            v.get("harvest")
                .and_then(|h| h.get("enabled"))
                .and_then(Value::as_bool)
                == Some(false)
        });
    if off {
        plan.notes.push(format!(
            "{} sets `harvest.enabled: false`, which wins over connect: this harness's sessions are not captured until you remove it",
            places.machine_config.display()
        ));
    }
}
