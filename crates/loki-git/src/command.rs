//! How every git call is made: the scrubbed environment, the timeout and output cap, the
//! configuration no repository may change (hooks, fsmonitor, attributes, filter drivers), and the
//! error a failed call becomes. Every other module builds its calls with `Git::spec` and runs
//! them with `Git::run_spec`, so no call escapes the hardening; the one call that writes the
//! user's checkout ([`Git::fast_forward`]) uses `Git::user_spec` instead.

use std::ffi::OsString;
use std::time::Duration;

use loki_process::{self as process, Spec, Streams};

use crate::{Git, GitError};

/// Plumbing calls are local and small; a minute means something is wrong (a lock, a hook).
const GIT_TIMEOUT: Duration = Duration::from_secs(60);
/// Output of plumbing we parse (file lists, raw diffs) can be large in big repositories.
const GIT_OUTPUT_CAP: usize = 256 * 1024 * 1024;
/// Bytes of stderr kept in an error.
const STDERR_TAIL: usize = 2000;

/// Configuration that no repository may change for loki's own git calls (see the crate doc).
const HARDENING: &[&str] = &[
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.symlinks=true",
];

impl Git {
    pub(crate) fn base_spec(&self) -> Spec {
        Spec::new(self.program.clone(), &self.root)
            .envs(process::scrubbed_env())
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_GRAFT_FILE", "/dev/null")
            .args(HARDENING.iter().map(OsString::from))
            .timeout(GIT_TIMEOUT)
            .output_cap(GIT_OUTPUT_CAP)
            .streams(Streams::Separate)
    }

    /// A call as the user's own git would make it: the same environment, timeout and output cap,
    /// without the hardening. Only for [`Git::fast_forward`], which writes the user's checkout.
    pub(crate) fn user_spec(&self, args: &[&str]) -> Spec {
        Spec::new(self.program.clone(), &self.root)
            .envs(process::scrubbed_env())
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .args(args.iter().map(OsString::from))
            .timeout(GIT_TIMEOUT)
            .output_cap(GIT_OUTPUT_CAP)
            .streams(Streams::Separate)
    }

    pub(crate) fn spec(&self, args: &[&str]) -> Spec {
        self.base_spec()
            .args(self.hardening().iter().map(OsString::from))
            .args(args.iter().map(OsString::from))
    }

    /// The `-c filter.<name>.*=` arguments for every filter driver the repository's (or the user's)
    /// configuration defines: a filter could store a file as something else than its bytes.
    /// Read once per [`Git`] (and its clones).
    #[must_use]
    pub fn hardening(&self) -> &[String] {
        self.filters.get_or_init(|| {
            let spec =
                self.base_spec()
                    .args(["config", "--get-regexp", "--name-only", r"^filter\."]);
            // No filter configured exits 1; any failure here leaves only the fixed hardening.
            let Ok(out) = process::run(&spec) else {
                return Vec::new();
            };
            let mut names: Vec<String> = String::from_utf8_lossy(&out.output.bytes())
                .lines()
                .filter_map(|l| {
                    let rest = l.trim().strip_prefix("filter.")?;
                    let (name, _) = rest.rsplit_once('.')?;
                    Some(name.to_owned())
                })
                .collect();
            names.sort();
            names.dedup();
            names
                .iter()
                .flat_map(|n| {
                    [
                        format!("filter.{n}.clean="),
                        format!("filter.{n}.smudge="),
                        format!("filter.{n}.process="),
                        format!("filter.{n}.required=false"),
                    ]
                })
                .flat_map(|kv| ["-c".to_owned(), kv])
                .collect()
        })
    }

    /// Runs git and returns stdout; a non-zero exit is an error carrying stderr's tail.
    pub(crate) fn run_spec(&self, spec: &Spec) -> Result<Vec<u8>, GitError> {
        let command = spec.display();
        let out = process::run(spec).map_err(|e| {
            if e.is_not_found() {
                GitError::NotInstalled
            } else {
                GitError::Process {
                    command: command.clone(),
                    source: e,
                }
            }
        })?;
        if !out.success() {
            return Err(GitError::Failed {
                command,
                code: out.exit_code(),
                cwd: self.root.clone(),
                stderr: out.stderr.tail_text(STDERR_TAIL).trim().to_string(),
            });
        }
        // A cut-off listing or patch would be read as a smaller change: refuse it instead.
        if out.output.is_truncated() {
            return Err(GitError::Parse {
                command,
                detail: format!("the output is larger than {GIT_OUTPUT_CAP} bytes"),
            });
        }
        Ok(out.output.bytes())
    }

    pub(crate) fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.run_spec(&self.spec(args))
    }

    pub(crate) fn run_text(&self, args: &[&str]) -> Result<String, GitError> {
        let out = self.run(args)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }
}
