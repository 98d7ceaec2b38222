//! The leader's descendants that left its process group, read from Linux `/proc` (see the crate
//! doc: "So do the processes that left it").

/// The fields of `/proc/<pid>/stat` that loki reads (the tree scan; the seal's search for the
/// agent client above its hook).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    pub ppid: i32,
    pub pgrp: i32,
    /// The controlling terminal's device number (0: none).
    pub tty_nr: i64,
    /// The foreground process group of that terminal (-1: none).
    pub tpgid: i64,
    /// Start time in clock ticks since boot: with the pid, a process's identity.
    pub start: u64,
}

/// Parses `/proc/<pid>/stat` text (the command name, in parentheses, may hold anything).
#[must_use]
pub fn parse_stat(pid: i32, text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(ProcStat {
        pid,
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        tty_nr: f.get(4)?.parse().ok()?,
        tpgid: f.get(5)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

pub(crate) fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// Every process visible in `/proc` (none where there is no `/proc`).
pub(crate) fn proc_table() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(proc_stat)
        .collect()
}
