//! What several benchmarks share: the reference workspace, generated and synced.

use memsync::config::{Env, Settings};
use memsync::generate::{self, Generated, Shape};

/// The generated ~1,750-session workspace (`Shape::default()`), synced, in a
/// temp dir that lives as long as the returned guard.
pub fn reference_workspace() -> (tempfile::TempDir, Settings, Generated) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    let mut settings = Settings::load(Some(&root), None, &Env::default()).expect("settings");
    settings.config.daily_logs.timezone = "UTC".into();
    let now = chrono::Utc::now();
    let g = generate::generate(&root, now, Shape::default(), &settings.config).expect("generate");
    memsync::pipeline::sync(&settings, now, memsync::pipeline::SyncOptions::RENDER).expect("sync");
    (tmp, settings, g)
}
