//! A workspace can only configure itself: a `memsync.yaml` that arrives with
//! a clone cannot aim memsync at a file outside the workspace, and no file
//! memsync did not create is ever renamed, whatever config names it.

mod common;

use common::{Workspace, memsync_bin, tree};

/// Every command on a workspace whose `memsync.yaml` aims the index outside
/// is refused with the key, and the files outside stay byte for byte.
#[test]
fn a_cloned_workspace_config_aiming_the_index_outside_is_refused_and_touches_nothing() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("victim_rc"),
        "export PATH=$HOME/bin:$PATH\n",
    )
    .unwrap();
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    let victim = outside.path().join("victim_rc");
    for aim in [
        "../outside/victim_rc".to_string(),
        victim.display().to_string(),
    ] {
        std::fs::create_dir_all(ws.root().join("../outside")).ok();
        ws.write("memsync.yaml", &format!("index:\n  path: {aim}\n"));
        let before = tree(outside.path());
        for args in [
            &["sync"][..],
            &["check"],
            &["status"],
            &["search", "scan"],
            &["reindex"],
        ] {
            let out = memsync_bin()
                .args(["--workspace", ws.root().to_str().unwrap()])
                .args(args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{aim} {args:?}: {stderr}");
            assert!(
                stderr.contains("index.path") && stderr.contains("machine config"),
                "{aim} {args:?}: {stderr}"
            );
        }
        assert_eq!(
            tree(outside.path()),
            before,
            "{aim}: a file outside changed"
        );
    }
    let _ = std::fs::remove_dir_all(ws.root().join("../outside"));
}

/// The machine config may place the index anywhere, but a file there that
/// is not an SQLite database is the user's: refused, never renamed.
#[test]
fn an_index_path_naming_a_users_file_never_renames_it() {
    let home = tempfile::tempdir().unwrap();
    let rc = home.path().join(".bashrc");
    std::fs::write(&rc, "alias ll='ls -l'\n").unwrap();
    std::fs::set_permissions(&rc, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let machine = home.path().join("config.yaml");
    std::fs::write(&machine, format!("index:\n  path: {}\n", rc.display())).unwrap();
    let ws = Workspace::new();
    common::good(&ws, "s-1");
    let out = memsync_bin()
        .args(["--workspace", ws.root().to_str().unwrap()])
        .args(["--config", machine.to_str().unwrap(), "sync"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not memsync's index"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "alias ll='ls -l'\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&rc).unwrap().permissions().mode() & 0o777;
    assert_ne!(mode, 0o600, "its mode was changed");
    let names: Vec<String> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.contains("corrupt")),
        "renamed: {names:?}"
    );
}
