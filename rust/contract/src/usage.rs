//! The process's CPU, peak resident set, heap and page faults, and the
//! checks made before anything runs (free descriptors, a closed stdout).
// libc's field types differ between systems (macOS's tv_usec is i32): the
// casts to i64 are no-ops on Linux only.
#![allow(clippy::unnecessary_cast)]

/// The process's CPU time and peak resident set so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub user_us: i64,
    pub sys_us: i64,
    pub peak_rss_kb: i64,
}

fn rusage() -> Option<libc::rusage> {
    // SAFETY: getrusage fills the struct it is given; zeroed is a valid rusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: ru is a valid, writable rusage.
    (unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0).then_some(ru)
}

/// getrusage(RUSAGE_SELF), the peak from /proc/self/status's VmHWM on Linux
/// (ru_maxrss survives exec, so a large parent's peak would show, as C and Go
/// say), ru_maxrss elsewhere (bytes on macOS, KiB on Linux).
pub fn getrusage() -> Usage {
    let Some(ru) = rusage() else { return Usage::default() };
    let mut peak = ru.ru_maxrss as i64;
    if cfg!(target_os = "macos") {
        peak /= 1024;
    }
    if let Some(hwm) = vm_hwm_kb() {
        peak = hwm;
    }
    Usage {
        user_us: ru.ru_utime.tv_sec as i64 * 1_000_000 + ru.ru_utime.tv_usec as i64,
        sys_us: ru.ru_stime.tv_sec as i64 * 1_000_000 + ru.ru_stime.tv_usec as i64,
        peak_rss_kb: peak,
    }
}

fn vm_hwm_kb() -> Option<i64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let rest = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Minor page faults of the process so far.
pub fn minor_faults() -> i64 {
    rusage().map(|ru| ru.ru_minflt as i64).unwrap_or(0)
}

/// Bytes malloc holds in use now: glibc's mallinfo2 (every arena), as C's
/// harness reads it; 0 where there is none.  Read rather than counted by a
/// wrapping allocator, so that no allocation of a variant pays for it.
pub fn heap_in_use() -> i64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 takes nothing and returns a struct by value.
        let mi = unsafe { libc::mallinfo2() };
        mi.uordblks as i64 + mi.hblkhd as i64
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        0
    }
}

/// An error naming the limit when fewer than `spare` descriptors are free
/// (ulimit -n too low): tokio's driver needs an epoll and an eventfd, and an
/// operation a file.  Probed with dup, closed again at once.
pub fn check_descriptors(spare: usize) -> Result<(), String> {
    let mut fds = Vec::new();
    let mut result = Ok(());
    while fds.len() < spare {
        // SAFETY: dup of fd 2 has no memory effects; a failure returns -1.
        let fd = unsafe { libc::dup(2) };
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            // SAFETY: getrlimit fills the struct it is given.
            let mut lim: libc::rlimit = unsafe { std::mem::zeroed() };
            // SAFETY: lim is a valid, writable rlimit.
            unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
            result = Err(format!(
                "too few file descriptors ({err}): ulimit -n is {} and {} are free; tokio's driver needs 2 and each file in flight 1: raise it to at least {}",
                lim.rlim_cur,
                fds.len(),
                lim.rlim_cur as usize + spare - fds.len()
            ));
            break;
        }
        fds.push(fd);
    }
    for fd in fds {
        // SAFETY: fd is a descriptor this function opened.
        unsafe { libc::close(fd) };
    }
    result
}

/// Whether fd 1 was closed when the program started: Rust's standard
/// library opens /dev/null read-write on a closed fd 0, 1 or 2 before main,
/// as Go's runtime does, so a read-write /dev/null on fd 1 counts as closed
/// (a caller's own, Python's subprocess.DEVNULL, cannot be told from it,
/// DESIGN section 3).  A write-only /dev/null takes the line; a read-only
/// one is open, and writing the line fails.
pub fn stdout_closed() -> bool {
    // SAFETY: fstat and stat fill the structs they are given.
    let mut out: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(1, &mut out) } != 0 {
        return std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
    }
    let mut null: libc::stat = unsafe { std::mem::zeroed() };
    let path = c"/dev/null";
    if unsafe { libc::stat(path.as_ptr(), &mut null) } != 0
        || out.st_mode & libc::S_IFMT != libc::S_IFCHR
        || out.st_rdev != null.st_rdev
    {
        return false;
    }
    let mut b = [0u8; 1];
    // SAFETY: b is one writable byte; /dev/null reads 0 bytes.
    if unsafe { libc::read(1, b.as_mut_ptr().cast(), 1) } < 0 {
        return false;
    }
    // SAFETY: a write of 0 bytes from a valid pointer.
    unsafe { libc::write(1, b.as_ptr().cast(), 0) >= 0 }
}
