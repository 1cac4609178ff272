//! Configuration load order, overlay, errors naming the key, and workspace root resolution.

use std::path::{Path, PathBuf};

use memsync::config::{Env, Settings};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn defaults_apply_without_any_config_file() {
    let ws = tempfile::tempdir().unwrap();
    let s = Settings::load(Some(ws.path()), None, &Env::default()).unwrap();
    assert_eq!(s.config.memory_md.budget_bytes, 20_000);
    assert_eq!(s.config.daily_logs.timezone, "local");
    assert_eq!(s.index_path(), ws.path().join(".memsync/index.db"));
    assert!(s.sources.machine.is_none() && s.sources.workspace.is_none());
}

#[test]
fn the_documented_default_config_file_equals_the_built_in_defaults() {
    let documented: memsync::config::Config =
        serde_yaml::from_str(&std::fs::read_to_string("config/memsync.yaml").unwrap()).unwrap();
    assert_eq!(documented, memsync::config::Config::default());
}

#[test]
fn flag_beats_env_beats_xdg_and_the_workspace_file_overlays_them() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let xdg = tmp.path().join("xdg");
    write(
        &xdg.join("memsync/config.yaml"),
        "memory_md:\n  budget_bytes: 1000\n  window_days: 7\n",
    );
    write(
        &tmp.path().join("env.yaml"),
        "memory_md:\n  budget_bytes: 2000\n",
    );
    write(
        &tmp.path().join("flag.yaml"),
        "memory_md:\n  budget_bytes: 3000\n",
    );
    let mut env = Env {
        xdg_config_home: Some(xdg.clone()),
        ..Env::default()
    };
    let load = |env: &Env, flag: Option<&Path>| Settings::load(Some(&ws), flag, env).unwrap();
    assert_eq!(load(&env, None).config.memory_md.budget_bytes, 1000);
    env.memsync_config = Some(tmp.path().join("env.yaml"));
    assert_eq!(load(&env, None).config.memory_md.budget_bytes, 2000);
    assert_eq!(
        load(&env, Some(&tmp.path().join("flag.yaml")))
            .config
            .memory_md
            .budget_bytes,
        3000
    );
    // The workspace file overlays key by key.
    env.memsync_config = None;
    write(
        &ws.join("memsync.yaml"),
        "memory_md:\n  budget_bytes: 4000\ndaily_logs:\n  timezone: UTC\n",
    );
    let s = load(&env, None);
    assert_eq!(
        (
            s.config.memory_md.budget_bytes,
            s.config.memory_md.window_days
        ),
        (4000, 7)
    );
    assert_eq!(s.config.daily_logs.timezone, "UTC");
    assert_eq!(s.sources.workspace, Some(ws.join("memsync.yaml")));
}

#[test]
fn unknown_keys_and_wrong_types_are_errors_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("memory_md:\n  budjet_bytes: 5\n", "budjet_bytes"),
        ("memory_md:\n  budget_bytes: lots\n", "budget_bytes"),
        (
            "daily_logs:\n  timezone: Mars/Olympus\n",
            "daily_logs.timezone",
        ),
        ("scan:\n  exclude: [\"[\"]\n", "scan.exclude"),
    ];
    for (text, key) in cases {
        let file = tmp.path().join("bad.yaml");
        write(&file, text);
        let err = Settings::load(Some(tmp.path()), Some(&file), &Env::default()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(key) && msg.contains("bad.yaml"), "{msg}");
        assert_eq!(err.exit_status(), memsync::ExitStatus::Usage);
    }
    // A named config file that does not exist is an error too.
    let err = Settings::load(
        Some(tmp.path()),
        Some(&tmp.path().join("missing.yaml")),
        &Env::default(),
    )
    .unwrap_err();
    assert_eq!(err.exit_status(), memsync::ExitStatus::Usage);
}

#[test]
fn the_workspace_file_cannot_move_the_workspace() {
    let ws = tempfile::tempdir().unwrap();
    write(&ws.path().join("memsync.yaml"), "workspace: /elsewhere\n");
    let err = Settings::load(Some(ws.path()), None, &Env::default()).unwrap_err();
    assert!(err.to_string().contains("workspace"), "{err}");
}

#[test]
fn workspace_root_resolution_follows_the_pinned_order() {
    let p = |s: &str| Some(PathBuf::from(s));
    let mut env = Env {
        home: p("/home/u"),
        ..Env::default()
    };
    let cfg = memsync::config::Config::default();
    let root = |env: &Env, flag: Option<&str>, cfg: &memsync::config::Config| {
        memsync::config::resolve_root(flag.map(Path::new), env, cfg).unwrap()
    };
    assert_eq!(root(&env, None, &cfg), PathBuf::from("/home/u/.agents"));
    let mut with_ws = cfg.clone();
    with_ws.workspace = p("~/notes");
    assert_eq!(root(&env, None, &with_ws), PathBuf::from("/home/u/notes"));
    env.signet_path = p("/signet-path");
    assert_eq!(root(&env, None, &with_ws), PathBuf::from("/signet-path"));
    env.signet_workspace = p("/signet-ws");
    assert_eq!(root(&env, None, &with_ws), PathBuf::from("/signet-ws"));
    env.memsync_workspace = p("/memsync-ws");
    assert_eq!(root(&env, None, &with_ws), PathBuf::from("/memsync-ws"));
    assert_eq!(root(&env, Some("/flag"), &with_ws), PathBuf::from("/flag"));
}
