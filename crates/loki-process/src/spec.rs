//! What to run and how: [`Spec`], the [`Streams`] it captures and the [`Cancel`] token.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::{DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT, shell_quote};

/// How the child's stdout and stderr are captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Streams {
    /// One pipe for both: [`Output::output`](crate::Output::output) holds them in arrival order, [`Output::stderr`](crate::Output::stderr) is empty.
    #[default]
    Combined,
    /// Two pipes: [`Output::output`](crate::Output::output) is stdout, [`Output::stderr`](crate::Output::stderr) is stderr, each capped.
    Separate,
}

/// A request to stop a running child early; clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token that has not been triggered.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every run holding a clone of this token to kill its group (as on timeout).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Bytes fed to a child's stdin ([`Spec::stdin_bytes`]): shared, so cloning a spec copies no
/// bytes, and shown by length only, so a spec in a log does not print its input.
#[derive(Clone, PartialEq, Eq)]
pub struct Input(Arc<[u8]>);

impl Input {
    /// The bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Input({} bytes)", self.0.len())
    }
}

/// What to run and how. Built like [`std::process::Command`]; nothing is inherited implicitly.
#[derive(Debug, Clone)]
pub struct Spec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Working directory; it must exist ([`ProcessError::NoCwd`](crate::ProcessError::NoCwd) otherwise).
    pub cwd: PathBuf,
    /// The child's entire environment, in order; a later entry for the same name wins. `PWD`
    /// is the one exception: the child's always names its directory ([`crate::with_pwd`]).
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Cap in bytes for each captured stream (head half + tail half).
    pub output_cap: usize,
    pub streams: Streams,
    pub cancel: Option<Cancel>,
    /// A file that receives the whole first stream, uncapped up to [`SPOOL_CAP`](crate::SPOOL_CAP).
    pub spool: Option<PathBuf>,
    /// What the child reads on stdin; `None` (the default) is a closed stdin (`/dev/null`).
    pub stdin: Option<Input>,
}

impl Spec {
    /// A spec with no arguments, an empty environment, [`DEFAULT_TIMEOUT`] and [`DEFAULT_OUTPUT_CAP`].
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Spec {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
            streams: Streams::Combined,
            cancel: None,
            spool: None,
            stdin: None,
        }
    }

    /// Also writes everything the child prints on the first stream (both streams under
    /// [`Streams::Combined`]) to `path`, created or truncated, up to [`SPOOL_CAP`](crate::SPOOL_CAP) bytes.
    #[must_use]
    pub fn spool(mut self, path: impl Into<PathBuf>) -> Self {
        self.spool = Some(path.into());
        self
    }

    /// Feeds `bytes` to the child's stdin (at most [`STDIN_CAP`](crate::STDIN_CAP); more is
    /// refused at spawn), written by a thread of the runner while the child runs, then closed.
    /// A child that exits or closes its stdin before reading everything is not an error:
    /// [`Output::stdin_unread`](crate::Output::stdin_unread) counts what it did not take.
    #[must_use]
    pub fn stdin_bytes(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(Input(Arc::from(bytes.into())));
        self
    }

    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one variable, replacing an earlier value of the same name.
    #[must_use]
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        let name = name.into();
        self.env.retain(|(n, _)| *n != name);
        self.env.push((name, value.into()));
        self
    }

    /// Replaces the whole environment.
    #[must_use]
    pub fn envs(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env = env;
        self
    }

    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    #[must_use]
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.output_cap = bytes;
        self
    }

    #[must_use]
    pub fn streams(mut self, streams: Streams) -> Self {
        self.streams = streams;
        self
    }

    /// Runs the command through `prefix` (a wrapper such as the confinement of
    /// [`crate::confine`]): `prefix[0] prefix[1..] program args`. An empty prefix changes nothing.
    #[must_use]
    pub fn wrapped(mut self, prefix: &[OsString]) -> Self {
        if let Some((first, rest)) = prefix.split_first() {
            let program = std::mem::replace(&mut self.program, first.clone());
            let mut args = rest.to_vec();
            args.push(program);
            args.append(&mut self.args);
            self.args = args;
        }
        self
    }

    #[must_use]
    pub fn cancel_with(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The value of `name` in the child's environment, if set.
    #[must_use]
    pub fn env_value(&self, name: &str) -> Option<&OsStr> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The command line as a shell would read it (single-quoted where needed), for logs.
    #[must_use]
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| shell_quote(&a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
