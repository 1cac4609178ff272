//! `memsync connect cline`: the MCP server beside the person's own in
//! `~/.cline/data/settings/cline_mcp_settings.json`, a rules file of
//! memsync's own in `~/Documents/Cline/Rules`, harvest on for the workspace
//! (no hook: Cline's fire before its session is written whole), `doctor`, and
//! a `disconnect` that gives the settings back byte for byte.

mod common;

use common::home::Home;

/// The person's MCP settings, as Cline writes them.
const MCP_SETTINGS: &str = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"gh-mcp\",\n      \"args\": [],\n      \"disabled\": false\n    }\n  }\n}\n";

const MCP_FILE: &str = ".cline/data/settings/cline_mcp_settings.json";
const RULES_FILE: &str = "Documents/Cline/Rules/memsync.md";

fn cline_home() -> Home {
    let home = Home::new();
    std::fs::create_dir_all(home.path(".cline/data/settings")).unwrap();
    home.write(MCP_FILE, MCP_SETTINGS);
    home.cmd().arg("init").assert().success();
    home
}

/// Doctor's checks of Cline.
fn cline_checks(home: &Home) -> Vec<serde_json::Value> {
    let (_, doctor) = home.run(&["doctor"]);
    doctor["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["harness"] == "cline")
        .map(|h| h["checks"].as_array().unwrap().clone())
        .unwrap_or_else(|| panic!("doctor reports no cline: {doctor}"))
}

#[test]
fn connect_cline_adds_the_mcp_server_a_rules_file_and_harvest_and_disconnect_gives_every_byte_back()
{
    let home = cline_home();
    let (code, dry) = home.run(&["connect", "cline", "--dry-run"]);
    assert_eq!(code, 0, "{dry}");
    assert_eq!(
        home.read(MCP_FILE),
        MCP_SETTINGS,
        "a dry run writes nothing"
    );
    assert!(!home.path(RULES_FILE).exists());

    let (code, report) = home.run(&["connect", "cline"]);
    assert_eq!(code, 0, "{report}");
    let settings: serde_json::Value = serde_json::from_str(&home.read(MCP_FILE)).unwrap();
    assert_eq!(settings["mcpServers"]["github"]["command"], "gh-mcp");
    let ours = &settings["mcpServers"]["memsync"];
    assert_eq!(ours["args"].as_array().unwrap().last().unwrap(), "mcp");
    let rules = home.read(RULES_FILE);
    assert!(
        rules.contains(
            &*home
                .path("ws")
                .canonicalize()
                .unwrap()
                .join("MEMORY.md")
                .to_string_lossy()
        ),
        "{rules}"
    );
    let notes = report["notes"].to_string();
    assert!(notes.contains("harvests its finished sessions"), "{notes}");
    for check in cline_checks(&home) {
        let what = check["what"].as_str().unwrap_or_default();
        if what.starts_with("harvest") {
            // On, and looking in Cline's folder (which holds no session yet).
            assert!(
                what.contains(&*home.path(".cline").to_string_lossy()),
                "{check}"
            );
        } else {
            assert_eq!(check["level"], "ok", "{check}");
        }
    }

    let (code, report) = home.run(&["disconnect", "cline"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(home.read(MCP_FILE), MCP_SETTINGS);
    assert!(!home.path(RULES_FILE).exists());
    let harvest = cline_checks(&home)
        .into_iter()
        .filter_map(|c| c["what"].as_str().map(String::from))
        .find(|w| w.starts_with("harvest"))
        .unwrap_or_default();
    assert!(harvest.contains("not enabled"), "{harvest}");
}
