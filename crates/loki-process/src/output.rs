//! What a finished child left: its [`Exit`], the bounded [`Captured`] streams (head and tail,
//! with a count of what was dropped between them) and the [`Spooled`] file of its whole output.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use crate::{SIGNAL_EXIT_BASE, SPOOL_CAP, TIMEOUT_EXIT_CODE};

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// It called `exit` with this code.
    Code(i32),
    /// A signal with this number killed it.
    Signal(i32),
}

/// Bytes captured from one stream: the first bytes, the last bytes and how many were dropped between.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    /// Bytes the child wrote that are in neither `head` nor `tail`.
    pub dropped: u64,
}

impl Captured {
    /// Whether anything was dropped.
    #[must_use]
    pub fn is_truncated(&self) -> bool {
        self.dropped > 0
    }

    /// Head and tail joined, with a marker line between them when bytes were dropped.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head.len() + self.tail.len() + 64);
        out.extend_from_slice(&self.head);
        if self.dropped > 0 {
            out.extend_from_slice(
                format!("\n[loki: {} bytes of output dropped here]\n", self.dropped).as_bytes(),
            );
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// [`Captured::bytes`] as text; invalid UTF-8 becomes U+FFFD.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }

    /// The last `max` bytes as text (for error messages that carry the end of the output).
    #[must_use]
    pub fn tail_text(&self, max: usize) -> String {
        let all = self.bytes();
        let start = all.len().saturating_sub(max);
        String::from_utf8_lossy(&all[start..]).into_owned()
    }
}

/// The head+tail capture buffer: pure, so its bound is tested apart from processes.
#[derive(Debug)]
pub(crate) struct CaptureBuf {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl CaptureBuf {
    pub(crate) fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        CaptureBuf {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
        }
    }

    pub(crate) fn push(&mut self, mut data: &[u8]) {
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            let skip = data.len() - self.tail_cap;
            self.dropped += (self.tail.len() + skip) as u64;
            self.tail.clear();
            self.tail.extend(&data[skip..]);
        } else {
            let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.dropped += overflow as u64;
            self.tail.extend(data);
        }
    }

    pub(crate) fn finish(self) -> Captured {
        Captured {
            head: self.head,
            tail: self.tail.into(),
            dropped: self.dropped,
        }
    }
}

/// The result of a finished child.
#[derive(Debug, Clone)]
pub struct Output {
    pub exit: Exit,
    /// The timeout fired and the group was killed.
    pub timed_out: bool,
    /// A [`Cancel`](crate::Cancel) fired and the group was killed.
    pub cancelled: bool,
    /// From spawn until the leader exited.
    pub duration: Duration,
    /// stdout and stderr in arrival order ([`Streams::Combined`](crate::Streams::Combined)) or stdout alone.
    pub output: Captured,
    /// stderr under [`Streams::Separate`](crate::Streams::Separate); empty otherwise.
    pub stderr: Captured,
    /// What [`Spec::spool`](crate::Spec::spool) wrote, when it was asked for.
    pub spooled: Option<Spooled>,
    /// Bytes of [`Spec::stdin_bytes`](crate::Spec::stdin_bytes) the child's stdin did not
    /// accept: it exited or closed stdin first (`EPIPE`), or was killed while the writer waited.
    /// 0 when it took everything or was given nothing.
    pub stdin_unread: u64,
}

/// The spool file of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spooled {
    pub path: PathBuf,
    /// Bytes written to it.
    pub bytes: u64,
    /// The child printed more than [`SPOOL_CAP`]; the rest is only in the capture's tail.
    pub truncated: bool,
    /// Writing failed (a full disk): the file holds only what came before, `bytes` of it.
    pub failed: bool,
}

impl Output {
    /// The shell's view of the exit: 124 on timeout, 128 + n for signal n, else the code.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        if self.timed_out {
            return TIMEOUT_EXIT_CODE;
        }
        match self.exit {
            Exit::Code(c) => c,
            Exit::Signal(s) => SIGNAL_EXIT_BASE + s,
        }
    }

    /// Exited by itself with code 0.
    #[must_use]
    pub fn success(&self) -> bool {
        !self.timed_out && !self.cancelled && self.exit == Exit::Code(0)
    }
}

/// The open spool of a running child.
#[derive(Debug)]
pub(crate) struct SpoolFile {
    pub(crate) file: std::fs::File,
    pub(crate) info: Spooled,
}

impl SpoolFile {
    pub(crate) fn push(&mut self, data: &[u8]) {
        use std::io::Write as _;
        if self.info.failed || self.info.truncated {
            return;
        }
        let room = SPOOL_CAP.saturating_sub(self.info.bytes);
        let n = usize::try_from(room).unwrap_or(usize::MAX).min(data.len());
        if self.file.write_all(&data[..n]).is_err() {
            self.info.failed = true;
            return;
        }
        self.info.bytes += n as u64;
        if n < data.len() {
            self.info.truncated = true;
        }
    }
}
