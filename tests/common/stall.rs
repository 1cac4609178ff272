//! A `write()` held half done. The line's last byte sits on a page of the
//! source buffer that is missing and served by userfaultfd only after a
//! delay: the kernel copies the part of the line that fits the file's current
//! page, makes it visible, and waits for the rest. This is what a writer
//! whose buffer is paged out (or backed by FUSE) does to a reader by chance.
//! Linux only; userfaultfd needs root or `vm.unprivileged_userfaultfd`.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const PAGE: usize = 4096;
const UFFD_API: u64 = 0xAA;
// _IOWR(0xAA, nr, struct): the ioctls of linux/userfaultfd.h.
const UFFDIO_API: libc::c_ulong = 0xc018_aa3f;
const UFFDIO_REGISTER: libc::c_ulong = 0xc020_aa00;
const UFFDIO_COPY: libc::c_ulong = 0xc028_aa03;
const UFFDIO_REGISTER_MODE_MISSING: u64 = 1;

#[repr(C)]
struct UffdioApi {
    api: u64,
    features: u64,
    ioctls: u64,
}

#[repr(C)]
struct UffdioRegister {
    start: u64,
    len: u64,
    mode: u64,
    ioctls: u64,
}

#[repr(C)]
struct UffdioCopy {
    dst: u64,
    src: u64,
    len: u64,
    mode: u64,
    copy: i64,
}

/// Two pages; the second is registered with userfaultfd and missing until a
/// stalled write's fault is served.
pub struct StalledWriter {
    uffd: OwnedFd,
    area: usize,
    stall: Duration,
    /// How many writes a reader saw half done while they were stalled.
    pub seen_half: AtomicUsize,
}

// The area is only written by `append`, one call at a time (`&mut self`).
unsafe impl Send for StalledWriter {}
unsafe impl Sync for StalledWriter {}

impl StalledWriter {
    /// `None` when this system does not let the test use userfaultfd.
    pub fn new(stall: Duration) -> Option<StalledWriter> {
        // SAFETY: plain syscalls and a fresh anonymous mapping owned by the result.
        unsafe {
            let fd = libc::syscall(libc::SYS_userfaultfd, libc::O_CLOEXEC);
            if fd < 0 {
                return None;
            }
            let uffd = OwnedFd::from_raw_fd(fd as i32);
            let mut api = UffdioApi {
                api: UFFD_API,
                features: 0,
                ioctls: 0,
            };
            if libc::ioctl(uffd.as_raw_fd(), UFFDIO_API, &mut api) != 0 {
                return None;
            }
            let area = libc::mmap(
                std::ptr::null_mut(),
                2 * PAGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if area == libc::MAP_FAILED {
                return None;
            }
            let mut reg = UffdioRegister {
                start: area as u64 + PAGE as u64,
                len: PAGE as u64,
                mode: UFFDIO_REGISTER_MODE_MISSING,
                ioctls: 0,
            };
            if libc::ioctl(uffd.as_raw_fd(), UFFDIO_REGISTER, &mut reg) != 0 {
                libc::munmap(area, 2 * PAGE);
                return None;
            }
            Some(StalledWriter {
                uffd,
                area: area as usize,
                stall,
                seen_half: AtomicUsize::new(0),
            })
        }
    }

    /// Appends `line` (ending in a newline, at most a page long) to `path`
    /// with one `write()` that stalls for `stall` before its last byte.
    pub fn append(&mut self, path: &Path, line: &[u8]) {
        assert!(line.len() <= PAGE && line.ends_with(b"\n"));
        let head = line.len() - 1;
        let start = self.area + PAGE - head;
        // SAFETY: both pages belong to this mapping; the second is zapped so
        // the write's access to it faults again.
        unsafe {
            std::ptr::copy_nonoverlapping(line.as_ptr(), start as *mut u8, head);
            libc::madvise(
                (self.area + PAGE) as *mut libc::c_void,
                PAGE,
                libc::MADV_DONTNEED,
            );
        }
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .expect("open for append");
        std::thread::scope(|scope| {
            scope.spawn(|| self.serve_one_fault(path, line[head]));
            // SAFETY: `start..start + line.len()` lies within the mapping.
            let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, line.len()) };
            file.write_all(bytes).expect("stalled write");
        });
    }

    /// Waits for the write's fault, looks at the file meanwhile, then serves
    /// the page with `last` as its first byte.
    fn serve_one_fault(&self, path: &Path, last: u8) {
        let mut msg = [0u8; 32];
        (&std::fs::File::from(self.uffd.try_clone().expect("dup uffd")))
            .read_exact(&mut msg)
            .expect("userfaultfd message");
        std::thread::sleep(self.stall);
        if std::fs::read(path).is_ok_and(|b| b.last().is_some_and(|&c| c != b'\n')) {
            self.seen_half.fetch_add(1, Ordering::SeqCst);
        }
        let mut page = vec![0u8; PAGE];
        page[0] = last;
        let mut copy = UffdioCopy {
            dst: (self.area + PAGE) as u64,
            src: page.as_ptr() as u64,
            len: PAGE as u64,
            mode: 0,
            copy: 0,
        };
        // SAFETY: `page` outlives the ioctl; dst is the registered page.
        let rc = unsafe { libc::ioctl(self.uffd.as_raw_fd(), UFFDIO_COPY, &mut copy) };
        assert_eq!(rc, 0, "UFFDIO_COPY: {}", std::io::Error::last_os_error());
    }
}

impl Drop for StalledWriter {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping this value owns.
        unsafe { libc::munmap(self.area as *mut libc::c_void, 2 * PAGE) };
    }
}
