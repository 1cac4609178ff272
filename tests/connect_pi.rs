//! `connect pi` (issue 65): pi reads `~/.pi/agent/AGENTS.md` into every
//! session, has no MCP and runs no hook of memsync's, so connect gives it a
//! block naming MEMORY.md and turns harvest on; disconnect takes out exactly
//! that, removing the file when memsync created it, and turns harvest off.

mod common;

use common::home::Home;

fn harvest_enabled(home: &Home) -> bool {
    let (_, config) = home.run(&["config"]);
    config
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k["key"] == "harvest.enabled" && k["value"] == "true")
}

#[test]
fn connect_pi_writes_its_agents_md_block_and_disconnect_leaves_nothing_behind() {
    let home = Home::new();
    std::fs::create_dir_all(home.path(".pi/agent/sessions")).unwrap();
    home.cmd().arg("init").assert().success();
    let before = home.files();
    assert!(!harvest_enabled(&home));

    let (code, report) = home.run(&["connect", "pi"]);
    assert_eq!(code, 0, "{report}");
    let agents = home.read(".pi/agent/AGENTS.md");
    assert!(
        agents.contains(&home.path("ws/MEMORY.md").display().to_string()),
        "{agents}"
    );
    assert!(harvest_enabled(&home));
    let (code, again) = home.run(&["connect", "pi"]);
    assert_eq!(code, 0, "{again}");
    assert_eq!(
        again["changes"],
        serde_json::json!([]),
        "a second connect changes nothing"
    );

    let (code, report) = home.run(&["disconnect", "pi"]);
    assert_eq!(code, 0, "{report}");
    assert!(!home.path(".pi/agent/AGENTS.md").exists());
    assert!(!harvest_enabled(&home));
    let after: Vec<String> = home
        .files()
        .into_keys()
        .filter(|k| !k.starts_with(".local/state/memsync"))
        .collect();
    let before: Vec<String> = before
        .into_keys()
        .filter(|k| !k.starts_with(".local/state/memsync"))
        .collect();
    assert_eq!(after, before);
}
