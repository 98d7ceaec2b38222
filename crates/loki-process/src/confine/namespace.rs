//! The namespaces the wrapper enters before it restricts itself: a network namespace
//! ([`unshare_network`]), a PID namespace ([`unshare_pids`]) and a mount namespace in which paths
//! are pinned read-only or masked ([`pin_read_only`]).

use std::path::{Path, PathBuf};

use super::ConfineError;

/// Moves the calling process into a new network namespace with no interface up, so nothing it
/// starts can reach any host (not even loopback). Plain `unshare` needs `CAP_SYS_ADMIN`; an
/// unprivileged process first gets a user namespace of its own, mapping its user and group to
/// themselves so files keep their owners. Call it single-threaded, before [`restrict_self`](super::restrict_self).
pub fn unshare_network() -> Result<(), ConfineError> {
    unshare_with(rustix::thread::UnshareFlags::NEWNET).map_err(ConfineError::Network)
}

/// Makes the calling process's next child the first process (pid 1) of a new PID namespace:
/// when that child ends or is killed, the kernel kills every process left in the namespace,
/// also those that left the child's process group or session (which a process-group kill
/// misses). Unprivileged, a user namespace mapping the user and group to themselves comes
/// first, as for [`unshare_network`]. Call it single-threaded, before [`restrict_self`](super::restrict_self).
pub fn unshare_pids() -> Result<(), ConfineError> {
    unshare_with(rustix::thread::UnshareFlags::NEWPID).map_err(ConfineError::Pids)
}

/// Makes each existing path of `paths` read-only for the calling process and everything it
/// starts: a mount namespace of its own (a user namespace first when unprivileged), every mount
/// made private so nothing propagates back to the host, then a bind mount of the path onto
/// itself remounted read-only, keeping the flags the kernel locks in a user namespace (nosuid,
/// nodev, noexec, the atime mode). Writes, new entries, renames and removal beneath it fail
/// (`EROFS`, `EBUSY` for the mount point itself); the directory around it stays as the policy
/// has it. A Landlock-restricted process cannot unmount it. Call it single-threaded, before
/// [`restrict_self`](super::restrict_self). On an error nothing is half-promised: the caller falls back to
/// Landlock's read-only rules for every path.
///
/// Each existing path of `masks` gets an empty, read-only tmpfs mounted over it: what was there
/// cannot be listed, read or written.
pub fn pin_read_only(paths: &[PathBuf], masks: &[PathBuf]) -> Result<(), ConfineError> {
    use rustix::fs::StatVfsMountFlags as St;
    use rustix::mount::{MountFlags, MountPropagationFlags};
    let pin_err = |path: &Path, why: String| ConfineError::Pin {
        path: path.to_path_buf(),
        why,
    };
    let existing: Vec<PathBuf> = paths.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let masks: Vec<PathBuf> = masks
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir())
        .collect();
    let Some(first) = existing.first().or(masks.first()) else {
        return Ok(());
    };
    unshare_with(rustix::thread::UnshareFlags::NEWNS).map_err(|e| pin_err(first, e))?;
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(|e| pin_err(first, format!("making the mounts private: {e}")))?;
    for path in &existing {
        rustix::mount::mount_bind(path, path).map_err(|e| pin_err(path, e.to_string()))?;
        let have = rustix::fs::statvfs(path)
            .map_err(|e| pin_err(path, e.to_string()))?
            .f_flag;
        let mut keep = MountFlags::empty();
        for (st, ms) in [
            (St::NOSUID, MountFlags::NOSUID),
            (St::NODEV, MountFlags::NODEV),
            (St::NOEXEC, MountFlags::NOEXEC),
            (St::NOATIME, MountFlags::NOATIME),
            (St::NODIRATIME, MountFlags::NODIRATIME),
            (St::RELATIME, MountFlags::RELATIME),
        ] {
            if have.contains(st) {
                keep |= ms;
            }
        }
        rustix::mount::mount_remount(path, MountFlags::BIND | MountFlags::RDONLY | keep, "")
            .map_err(|e| pin_err(path, format!("remounting read-only: {e}")))?;
    }
    for path in &masks {
        rustix::mount::mount(
            "tmpfs",
            path,
            "tmpfs",
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            c"size=4k,mode=0555",
        )
        .map_err(|e| pin_err(path, format!("masking: {e}")))?;
    }
    Ok(())
}

/// `unshare(what)`, with a user namespace of its own first when plain `unshare` is refused.
fn unshare_with(what: rustix::thread::UnshareFlags) -> Result<(), String> {
    use rustix::thread::UnshareFlags;
    #[expect(
        deprecated,
        reason = "unshare_unsafe is unsafe only for CLONE_FILES, which is not asked for; unsafe code is forbidden here"
    )]
    let unshare = rustix::thread::unshare;
    if unshare(what).is_ok() {
        return Ok(());
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    unshare(UnshareFlags::NEWUSER | what).map_err(|e| e.to_string())?;
    let write = |file: &str, text: String| {
        use std::io::Write as _;
        std::fs::OpenOptions::new()
            .write(true)
            .open(file)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{file}: {e}"))
    };
    // setgroups must be denied before an unprivileged process may write its gid_map.
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))
}
