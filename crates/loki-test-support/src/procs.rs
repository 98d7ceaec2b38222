//! Processes as `/proc` shows them, for tests that assert a whole process tree is gone after a
//! cap, a signal or `kill -9` (Linux only, as loki's process groups are).

/// Alive unless gone or a zombie: an orphan waiting for init to reap it is dead.
#[must_use]
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

/// `(pid, parent pid)` of every process.
///
/// # Panics
/// When `/proc` cannot be listed.
#[must_use]
pub fn processes() -> Vec<(u32, u32)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect()
}

/// Every descendant of `root` (children first, then theirs).
#[must_use]
pub fn descendants(root: u32) -> Vec<u32> {
    let all = processes();
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        out.extend(all.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    out.remove(0);
    out
}
