//! `connect` and `disconnect` trusted with a home directory (issue 27): no
//! copy of a file that holds secrets, modes kept and never widened, a
//! foreign entry never replaced, and nothing written through a dangling
//! link, into a read-only file or into a FIFO.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::home::Home;

const KEY: &str = "sk-ant-api03-FAKEKEYFORTESTS0123456789";
const TOKEN: &str = "ghp_FAKETOKENFORTESTS0123456789abcdef";

/// The umask most shells start with; every test here sets the same one.
fn umask_022() {
    // SAFETY: umask only sets the process's file mode mask; all tests in
    // this binary set the same value.
    unsafe {
        libc::umask(0o022);
    }
}

fn mode(home: &Home, rel: &str) -> u32 {
    std::fs::metadata(home.path(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

fn write_mode(home: &Home, rel: &str, text: &str, mode: u32) {
    home.write(rel, text);
    std::fs::set_permissions(home.path(rel), std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every file under the home (workspace included) whose bytes hold `needle`.
fn files_holding(home: &Home, needle: &str) -> Vec<String> {
    walkdir::WalkDir::new(home.dir.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path()).is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle))
        })
        .map(|e| {
            e.path()
                .strip_prefix(home.dir.path())
                .unwrap()
                .display()
                .to_string()
        })
        .collect()
}

#[test]
fn a_key_in_claude_json_or_a_token_in_config_toml_reaches_no_file_memsync_writes() {
    umask_022();
    let home = Home::new();
    let claude = format!(
        "{{\n  \"numStartups\": 3,\n  \"primaryApiKey\": \"{KEY}\",\n  \"oauthAccount\": {{ \"emailAddress\": \"a@b.c\" }}\n}}\n"
    );
    write_mode(&home, ".claude.json", &claude, 0o600);
    home.write(
        ".claude/settings.json",
        &format!("{{\n  \"env\": {{ \"ANTHROPIC_API_KEY\": \"{KEY}\" }}\n}}\n"),
    );
    let toml = format!(
        "model = \"o3\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\nenv = {{ GITHUB_TOKEN = \"{TOKEN}\" }}\n"
    );
    write_mode(&home, ".codex/config.toml", &toml, 0o600);
    let before = home.files();
    for h in ["claude-code", "codex"] {
        let (code, report) = home.run(&["connect", h]);
        assert_eq!(code, 0, "{report}");
    }
    let mut holding = files_holding(&home, KEY);
    holding.extend(files_holding(&home, TOKEN));
    holding.sort();
    assert_eq!(
        holding,
        [
            ".claude.json",
            ".claude/settings.json",
            ".codex/config.toml"
        ],
        "only the user's own files hold the secrets"
    );
    assert_eq!(mode(&home, ".claude.json"), 0o600);
    assert_eq!(mode(&home, ".codex/config.toml"), 0o600);
    assert_eq!(mode(&home, ".local/state/memsync/connect.json"), 0o600);
    for h in ["codex", "claude-code"] {
        let (code, report) = home.run(&["disconnect", h]);
        assert_eq!(code, 0, "{report}");
    }
    assert_eq!(home.files(), before, "every file back byte for byte");
    assert_eq!(mode(&home, ".claude.json"), 0o600);
    assert_eq!(mode(&home, ".codex/config.toml"), 0o600);
}

#[test]
fn a_claude_json_memsync_creates_is_0600_like_claude_codes_own() {
    umask_022();
    let home = Home::new();
    let (code, report) = home.run(&["connect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(mode(&home, ".claude.json"), 0o600);
    assert_eq!(mode(&home, ".claude/settings.json"), 0o644);
}

#[test]
fn a_file_mode_is_kept_exactly_on_every_rewrite() {
    umask_022();
    let home = Home::new();
    write_mode(&home, ".claude/settings.json", "{}\n", 0o664);
    write_mode(&home, ".codex/AGENTS.md", "# Rules\n", 0o640);
    for h in ["claude-code", "codex"] {
        assert_eq!(home.run(&["connect", h]).0, 0);
    }
    assert_eq!(mode(&home, ".claude/settings.json"), 0o664);
    assert_eq!(mode(&home, ".codex/AGENTS.md"), 0o640);
}

#[test]
fn a_memsync_mcp_entry_the_user_wrote_is_never_replaced_without_force() {
    let home = Home::new();
    let own = "{\n  \"mcpServers\": {\n    \"memsync\": { \"command\": \"/opt/memsync\", \"args\": [\"--workspace\", \"/srv/team\", \"mcp\"] }\n  }\n}\n";
    home.write(".claude.json", own);
    let own_toml = "[mcp_servers.memsync]\ncommand = \"memsync\"\nargs = [\"--workspace\", \"/srv/team\", \"mcp\"]\n";
    home.write(".codex/config.toml", own_toml);
    for (h, file) in [
        ("claude-code", ".claude.json"),
        ("codex", ".codex/config.toml"),
    ] {
        let out = home.cmd().args(["connect", h]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains(file) && stderr.contains(&format!("connect {h} --force")),
            "{stderr}"
        );
    }
    assert_eq!(home.read(".claude.json"), own, "nothing written");
    assert_eq!(home.read(".codex/config.toml"), own_toml);

    // --force replaces it; disconnect then takes memsync's out.
    let (code, report) = home.run(&["connect", "claude-code", "--force"]);
    assert_eq!(code, 0, "{report}");
    assert!(!home.read(".claude.json").contains("/srv/team"));
    home.run(&["disconnect", "claude-code"]);
    assert!(!home.read(".claude.json").contains("memsync"));
}

#[test]
fn disconnect_leaves_an_mcp_entry_the_user_changed_to_their_own() {
    let home = Home::new();
    home.write(".claude.json", "{\n  \"theme\": \"dark\"\n}\n");
    assert_eq!(home.run(&["connect", "claude-code"]).0, 0);
    let text = home.read(".claude.json");
    let ws = std::fs::canonicalize(home.path("ws")).unwrap();
    let edited = text.replace(&ws.display().to_string(), "/srv/elsewhere");
    assert_ne!(edited, text);
    home.write(".claude.json", &edited);
    assert_eq!(home.run(&["disconnect", "claude-code"]).0, 0);
    let after = home.read(".claude.json");
    assert!(after.contains("/srv/elsewhere"), "{after}");
    assert!(after.contains("\"theme\": \"dark\""), "{after}");
}

#[test]
fn connect_refuses_a_fifo_a_read_only_file_and_a_dangling_link_and_writes_nothing() {
    let home = Home::new();
    let settings = home.path(".claude/settings.json");
    type Make<'a> = Box<dyn Fn() + 'a>;
    let cases: [(&str, Make); 3] = [
        (
            "not a regular file",
            Box::new(|| {
                let c = std::ffi::CString::new(settings.to_str().unwrap()).unwrap();
                // SAFETY: a plain mkfifo(3) on a path we own.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            }),
        ),
        (
            "read-only",
            Box::new(|| {
                std::fs::write(&settings, "{}\n").unwrap();
                std::fs::set_permissions(&settings, std::fs::Permissions::from_mode(0o444))
                    .unwrap();
            }),
        ),
        (
            "which does not exist",
            Box::new(|| {
                std::os::unix::fs::symlink(home.path("dotfiles/settings.json"), &settings).unwrap();
            }),
        ),
    ];
    for (reason, make) in cases {
        let _ = std::fs::remove_file(&settings);
        make();
        let before = home.files();
        let out = home
            .cmd()
            .args(["connect", "claude-code"])
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{reason}: {stderr}");
        assert!(
            stderr.contains("settings.json") && stderr.contains(reason),
            "{reason}: {stderr}"
        );
        assert_eq!(home.files(), before, "{reason}: nothing written");
        let link = std::fs::symlink_metadata(&settings).unwrap();
        assert!(reason != "which does not exist" || link.file_type().is_symlink());
    }
}
