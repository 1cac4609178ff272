//! Links the `memsync` binary as a fixed-address (non-PIE) executable on
//! Linux. A PIE build spends ~1.3 ms of every start-up applying 57,000
//! relocations to 1.5 MB of pointer tables (about 400 page faults), a third
//! of a hook's or `memsync search`'s whole run. Shared libraries, the heap,
//! the stack and mmaps stay randomised; only the binary's own image is fixed.
//!
//! Also names the build in `--version`: the commit and its date, from git
//! when the source is a clone (the date is the commit's, so a rebuild of the
//! same commit is the same binary), else the crate version alone.
fn main() {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let version = env!("CARGO_PKG_VERSION");
    let long = match (
        git(&["rev-parse", "--short=10", "HEAD"]),
        git(&["log", "-1", "--format=%cs"]),
    ) {
        (Some(commit), Some(date)) => format!("{version} ({commit} {date})"),
        _ => version.to_string(),
    };
    println!("cargo:rustc-env=MEMSYNC_LONG_VERSION={long}");
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={head}");
    }
    if let Some(refs) = git(&["rev-parse", "--git-path", "refs/heads"]) {
        println!("cargo:rerun-if-changed={refs}");
    }
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
