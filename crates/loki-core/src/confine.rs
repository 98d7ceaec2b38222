//! Filesystem confinement of untrusted commands (the agent's shell commands, CLI agents, and the
//! checks that run the agent's code), with Linux Landlock.
//!
//! # Policy
//! A [`Policy`] names paths to **deny** (no access at all: loki's home with the signing key, the
//! run records, other runs' worktrees, the user's credential files) and paths to **write**
//! (the worktree, the run-private home, the temporary directory, tool caches). Everything else
//! can be read and executed but not written, so the user's checkout cannot be modified.
//!
//! Landlock only grants: a rule on a directory covers everything beneath it. A denied path is
//! therefore carved out ([`rules`]): every directory on the way from `/` to it gets no rule
//! itself, and each of its other entries gets read access; the denied path gets nothing.
//! Consequences, said plainly: listing a directory on such a way (`ls /`, `ls ~`) is refused,
//! and an entry created there after the rules were made is not reachable.
//!
//! # How it is applied
//! A process confines itself ([`restrict_self`]) and then `exec`s the command; the restriction
//! is inherited by everything that command starts and cannot be lifted. The `loki` binary
//! does this in a hidden subcommand ([`Policy::wrapper`] builds its command line), so no
//! `pre_exec` code runs in a forked child of a multi-threaded process.
//!
//! # Failure modes
//! A kernel without Landlock (before 5.13, or disabled) enforces nothing: [`available`] says so
//! up front, so callers can record that the isolation was not enforced; [`restrict_self`]
//! returns [`Enforcement::NotEnforced`] rather than pretending. A policy path that does not exist
//! is skipped (there is nothing to protect or to write there).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus,
};

/// The Landlock ABI whose rights are handled. V5 covers reads, writes, renames across
/// directories, truncation and device ioctls; later ABIs add unix-socket and signal scoping,
/// which would break tools (docker, ssh-agent) without protecting files.
const TARGET_ABI: ABI = ABI::V5;
/// The hidden subcommand of `loki` that confines itself and runs a command.
pub const WRAPPER_SUBCOMMAND: &str = "__confine";

/// What a confined command may touch (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// No access at all.
    pub deny: Vec<PathBuf>,
    /// Read, write, create and delete beneath these.
    pub write: Vec<PathBuf>,
    /// Never writable, even inside a `write` path (a repository checkout under the temporary
    /// directory); a `write` path inside one (the run's worktree) is still writable.
    pub read_only: Vec<PathBuf>,
}

/// One Landlock rule: `path` and whether writing is allowed beneath it (reading always is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub path: PathBuf,
    pub write: bool,
}

/// How much of a policy the kernel enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    Full,
    /// Some rights are not supported by this kernel (older ABI): files are still protected
    /// from the rights it has.
    Partial,
    NotEnforced,
}

/// Why confinement could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("cannot set up the Landlock ruleset: {0}")]
    Ruleset(String),
    #[error("cannot confine to {path}: {source}")]
    Path {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl crate::exit::Classify for ConfineError {
    /// The kernel or the filesystem refused to set up the fence: loki cannot run the command
    /// safely, which is a failure, not the user's input.
    fn exit_class(&self) -> crate::exit::ExitClass {
        match self {
            ConfineError::Ruleset(_) | ConfineError::Path { .. } => crate::exit::ExitClass::Failure,
        }
    }
}

impl Policy {
    /// The command line that runs `program args…` confined by this policy through `exe` (the
    /// `loki` binary): `exe __confine --deny P… --write P… -- program args…`.
    #[must_use]
    pub fn wrapper(&self, exe: &Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![exe.into(), WRAPPER_SUBCOMMAND.into()];
        for p in &self.deny {
            argv.extend(["--deny".into(), p.clone().into_os_string()]);
        }
        for p in &self.write {
            argv.extend(["--write".into(), p.clone().into_os_string()]);
        }
        for p in &self.read_only {
            argv.extend(["--read-only".into(), p.clone().into_os_string()]);
        }
        argv.push("--".into());
        argv
    }
}

/// Whether this kernel enforces Landlock: a throwaway thread restricts itself (Landlock
/// restricts only the calling thread) and reports how much was enforced. Asked once per process.
#[must_use]
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(probe_kernel)
}

fn probe_kernel() -> bool {
    let probe = std::thread::spawn(|| {
        Ruleset::default()
            .handle_access(AccessFs::from_all(TARGET_ABI))
            .and_then(landlock::Ruleset::create)
            .and_then(landlock::RulesetCreated::restrict_self)
            .map(|s| s.ruleset)
    });
    matches!(
        probe.join(),
        Ok(Ok(
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced
        ))
    )
}

/// The rules that implement `policy` (see the module doc). Paths are made absolute and
/// canonical; ones that do not exist are skipped.
#[must_use]
pub fn rules(policy: &Policy) -> Vec<Rule> {
    let deny: Vec<PathBuf> = policy
        .deny
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // Write rules stop at denied and read-only paths alike.
    let mut stop = deny.clone();
    stop.extend(
        policy
            .read_only
            .iter()
            .filter_map(|p| p.canonicalize().ok()),
    );
    let mut out = Vec::new();
    carve(Path::new("/"), &deny, false, &mut out);
    for w in &policy.write {
        let Ok(w) = w.canonicalize() else { continue };
        // A write path inside a denied one would reopen it; one around a denied or read-only
        // path (a temporary directory holding loki's home or a checkout) is carved like `/`.
        if !deny.iter().any(|d| w.starts_with(d)) {
            carve(&w, &stop, true, &mut out);
        }
    }
    out
}

/// Rules (`write` or read-only) for everything under `dir` except the denied paths.
fn carve(dir: &Path, deny: &[PathBuf], write: bool, out: &mut Vec<Rule>) {
    if deny.iter().any(|d| d == dir) {
        return;
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        out.push(Rule {
            path: dir.to_path_buf(),
            write,
        });
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    children.sort();
    for child in children {
        // A symlink is followed by the rule (O_PATH): only a real directory is walked into.
        let is_dir = std::fs::symlink_metadata(&child).is_ok_and(|m| m.is_dir());
        if is_dir {
            carve(&child, deny, write, out);
        } else if !deny.contains(&child) {
            out.push(Rule { path: child, write });
        }
    }
}

/// Confines the calling process (and everything it starts afterwards) to `policy`. Call it in a
/// process about to `exec`; it cannot be undone.
pub fn restrict_self(policy: &Policy) -> Result<Enforcement, ConfineError> {
    let err = |e: landlock::RulesetError| ConfineError::Ruleset(e.to_string());
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(err)?
        .create()
        .map_err(err)?;
    for rule in rules(policy) {
        // Gone since the walk (a temporary file): nothing to grant.
        let Ok(fd) = PathFd::new(&rule.path) else {
            continue;
        };
        let is_dir = std::fs::metadata(&rule.path).is_ok_and(|m| m.is_dir());
        let mut access: BitFlags<AccessFs> = if rule.write { all } else { read };
        if !is_dir {
            // Directory rights on a file are refused by the kernel.
            access &= AccessFs::from_file(TARGET_ABI);
        }
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(err)?;
    }
    let status = ruleset.restrict_self().map_err(err)?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Enforcement::Full,
        RulesetStatus::PartiallyEnforced => Enforcement::Partial,
        RulesetStatus::NotEnforced => Enforcement::NotEnforced,
    })
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn a_denied_path_is_carved_out_and_its_siblings_stay_readable() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in [
            "home/.loki/keys",
            "home/.cargo",
            "repo/.loki/runs",
            "repo/src",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("home/notes.txt"), "n").unwrap();
        let policy = Policy {
            deny: vec![root.join("home/.loki"), root.join("repo/.loki/runs")],
            // `home` holds a denied path: it is carved, not granted whole; `root` holds the
            // read-only repository, which only its `src` is writable in.
            write: vec![
                root.join("repo/src"),
                root.join("missing"),
                root.join("home"),
                root.clone(),
            ],
            read_only: vec![root.join("repo")],
        };
        let got = rules(&policy);
        let under: Vec<(String, bool)> = got
            .iter()
            .filter_map(|r| {
                r.path
                    .strip_prefix(&root)
                    .ok()
                    .map(|p| (p.display().to_string(), r.write))
            })
            .collect();
        assert_eq!(
            under,
            [
                ("home/.cargo".to_string(), false),
                ("home/notes.txt".to_string(), false),
                ("repo/src".to_string(), false),
                ("repo/src".to_string(), true),
                ("home/.cargo".to_string(), true),
                ("home/notes.txt".to_string(), true),
                ("home/.cargo".to_string(), true),
                ("home/notes.txt".to_string(), true),
            ]
        );
        // Nothing on the way to a denied path is granted as a whole.
        for r in &got {
            assert!(!policy.deny.iter().any(|d| d.starts_with(&r.path)), "{r:?}");
        }
    }

    #[test]
    fn the_wrapper_command_line_names_every_path() {
        let p = Policy {
            deny: vec!["/h/.loki".into()],
            write: vec!["/w".into(), "/tmp".into()],
            read_only: vec!["/tmp/repo".into()],
        };
        let argv: Vec<String> = p
            .wrapper(Path::new("/bin/loki"))
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            argv,
            [
                "/bin/loki",
                "__confine",
                "--deny",
                "/h/.loki",
                "--write",
                "/w",
                "--write",
                "/tmp",
                "--read-only",
                "/tmp/repo",
                "--"
            ]
        );
    }
}
