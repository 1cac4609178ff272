//! Claude Code as the end-to-end tests run it: a temporary home where it
//! has been set up as a person leaves it after the first run, and the
//! command that runs it there against the fake model.

use std::os::unix::fs::PermissionsExt;

use super::harness::FakeModel;
use super::home::Home;

pub const KEY: &str = "sk-ant-api03-FAKEKEYFORE2ETESTS0123456789";
pub const SETTINGS: &str =
    "{\n  \"model\": \"opus\",\n  \"permissions\": { \"allow\": [\"Bash(ls)\", \"Write\"] }\n}\n";

/// What Claude Code runs with: the temporary home and the fake model.
pub fn claude_env(home: &Home, model: &FakeModel) -> Vec<(&'static str, String)> {
    let home_dir = home.dir.path().display().to_string();
    vec![
        ("HOME", home_dir),
        (
            "XDG_CONFIG_HOME",
            home.path(".config").display().to_string(),
        ),
        (
            "XDG_STATE_HOME",
            home.path(".local/state").display().to_string(),
        ),
        ("ANTHROPIC_BASE_URL", model.base_url()),
        ("ANTHROPIC_API_KEY", KEY.to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
    ]
}

/// Claude Code run in `project` with the temporary home and the fake model.
pub fn claude_in(
    claude: &std::path::Path,
    home: &Home,
    model: &FakeModel,
    project: &std::path::Path,
) -> std::process::Command {
    let mut cmd = std::process::Command::new(claude);
    cmd.current_dir(project)
        .envs(claude_env(home, model))
        .env_remove("CLAUDE_CONFIG_DIR");
    cmd
}

/// `claude -p PROMPT` in `dir`, which must succeed.
pub fn claude_p(
    claude: &std::path::Path,
    home: &Home,
    model: &FakeModel,
    dir: &std::path::Path,
    prompt: &str,
) -> std::process::Output {
    let out = claude_in(claude, home, model, dir)
        .args(["-p", prompt])
        .output()
        .expect("claude runs");
    assert!(
        out.status.success(),
        "claude -p {prompt:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A home where Claude Code has been set up as a person leaves it after the
/// first run (onboarding done, the API key approved, `proj` trusted), with a
/// memsync workspace and `connect claude-code` done.
pub fn connected_home() -> Home {
    let home = claude_home("proj");
    let (code, report) = home.run(&["connect", "claude-code"]);
    assert_eq!(code, 0, "{report}");
    home
}

/// A home with Claude Code set up and the project `project` (relative to
/// the home) trusted, and a memsync workspace; not connected yet.
pub fn claude_home(project: &str) -> Home {
    let home = Home::new();
    let project = home.path(project);
    std::fs::create_dir_all(&project).unwrap();
    let approved = &KEY[KEY.len() - 20..];
    home.write(
        ".claude.json",
        &format!(
            "{{\n  \"primaryApiKey\": \"{KEY}\",\n  \"hasCompletedOnboarding\": true,\n  \
             \"hasSeenAutoDefaultNotice\": true,\n  \
             \"customApiKeyResponses\": {{ \"approved\": [\"{approved}\"], \"rejected\": [] }},\n  \
             \"projects\": {{ \"{}\": {{ \"hasTrustDialogAccepted\": true }} }}\n}}\n",
            project.display()
        ),
    );
    std::fs::set_permissions(
        home.path(".claude.json"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    home.write(".claude/settings.json", SETTINGS);
    // The project sits in a temp dir, which the ledger leaves out by default.
    home.write(
        "ws/memsync.yaml",
        "daily_logs:\n  timezone: UTC\nprojection:\n  exclude_projects: []\n",
    );
    home.cmd().arg("init").assert().success();
    home
}

/// Claude Code's folder for a project: `~/.claude/projects/<slug>`, the
/// slug being the path with every character but ASCII letters and digits `-`.
pub fn project_folder(home: &Home, project: &std::path::Path) -> std::path::PathBuf {
    let slug: String = project
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    home.path(&format!(".claude/projects/{slug}"))
}

/// Makes `dir` a git repository with `remote` as its origin, as a clone is.
pub fn with_remote(dir: &std::path::Path, remote: &str) {
    std::fs::create_dir_all(dir).unwrap();
    for args in [vec!["init", "-q"], vec!["remote", "add", "origin", remote]] {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(&args)
            .status()
            .unwrap();
        assert!(ok.success());
    }
}
