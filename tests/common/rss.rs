//! Peak memory of one memsync process, for the tests that bound it.

use std::path::Path;
use std::process::{Command, Stdio};

/// The README's promise: a memsync process stays under this at any size.
pub const RSS_LIMIT_KIB: i64 = 64 * 1024;

/// What one run left: its exit code and its own peak RSS in KiB.
pub struct Run {
    pub code: i32,
    pub peak_kib: i64,
}

/// Runs `memsync --workspace WS ARGS…` (stdout into `stdout`, or discarded)
/// and measures its peak RSS with `wait4`. Linux folds the parent's RSS at
/// the spawn into the child's figure, so a test that calls this must keep
/// its own memory small; the figure is then an upper bound.
#[allow(clippy::zombie_processes)] // wait4 below reaps it
pub fn run_measured(ws: &Path, args: &[&str], stdout: Option<&Path>) -> Run {
    let out = match stdout {
        Some(path) => Stdio::from(std::fs::File::create(path).expect("stdout file")),
        None => Stdio::null(),
    };
    let parent = own_peak_kib();
    assert!(
        parent < RSS_LIMIT_KIB / 4,
        "this test process holds {parent} KiB (a backtrace of another failed test?), which wait4 would count as memsync's"
    );
    let child = Command::new(env!("CARGO_BIN_EXE_memsync"))
        .arg("--workspace")
        .arg(ws)
        .args(args)
        .env_remove("MEMSYNC_CONFIG")
        .env_remove("MEMSYNC_WORKSPACE")
        .env("XDG_CONFIG_HOME", "/nonexistent-memsync-test")
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .stdout(out)
        .spawn()
        .expect("run memsync");
    let mut status = 0;
    // SAFETY: wait4 only writes into the status and rusage we pass.
    let peak_kib = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::wait4(child.id() as i32, &mut status, 0, &mut usage);
        usage.ru_maxrss
    };
    assert!(
        libc::WIFEXITED(status),
        "memsync {args:?} did not exit normally"
    );
    Run {
        code: libc::WEXITSTATUS(status),
        peak_kib,
    }
}

/// A temp dir for 100,000 small files: in tmpfs when there is room (ext4
/// slows file creation after churn, 2 s became 20 s here), else in the
/// usual temp dir.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    let room = std::ffi::CString::new("/dev/shm").ok().and_then(|c| {
        // SAFETY: statvfs writes only into the struct we pass.
        unsafe {
            let mut s: libc::statvfs = std::mem::zeroed();
            (libc::statvfs(c.as_ptr(), &mut s) == 0).then(|| s.f_bavail as u64 * s.f_frsize as u64)
        }
    });
    if room.is_some_and(|bytes| bytes > 2 << 30)
        && let Ok(dir) = tempfile::tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().expect("tempdir")
}

/// This process's own peak RSS (VmHWM) in KiB.
fn own_peak_kib() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
