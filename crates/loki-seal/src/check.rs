//! `loki seal check`: the same comparison as a stop, of the working tree against a revision,
//! without an agent, a baseline or a receipt. Its JSON shape is [`crate::report`]'s.

use std::path::Path;

use loki_checks::detect;
use loki_checks::judge::{JudgeInput, Judged, judge};
use loki_git::Git;
use loki_receipt::NotProven;
use loki_receipt::schema::Declaration;

use crate::SealError;
use crate::decide::{Evidence, Judgement, decide};
use crate::declare::{self, Applied};
use crate::session::{SealOptions, known_tests, not_proven, snapshot};

/// What `loki seal check` found.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub base: String,
    pub judged: Judged,
    pub judgement: Judgement,
    /// The declarations given, applied.
    pub applied: Applied,
    pub not_proven: Vec<NotProven>,
}

/// Compares the working tree with `base_rev`: the judge on the base and the working tree, with
/// `declared` (from `--declared FILE`) applied. A declaration that names no change is refused
/// ([`SealError::Undeclarable`]).
pub fn check(
    repo_root: &Path,
    base_rev: &str,
    declared: &[Declaration],
    opts: &SealOptions,
) -> Result<CheckReport, SealError> {
    let git = Git::new(repo_root);
    let base = git
        .rev_parse(base_rev)
        .map_err(|source| loki_checks::ChecksError::BadRevision {
            rev: base_rev.to_string(),
            source,
        })?;
    let (_, now_tree) = snapshot(&git, "loki seal: check")?;
    let checks = detect(repo_root)?;
    let logs = loki_core::scratch::Scratch::new("loki-seal-check-").map_err(|e| SealError::Io {
        action: "create a temporary directory in",
        path: std::env::temp_dir(),
        source: e,
    })?;
    let mut run = opts.run.clone();
    run.log_dir = logs.path().to_path_buf();
    let judged = judge(&JudgeInput {
        repo_root,
        head_root: repo_root,
        base: &base,
        head_tree: &now_tree,
        checks: &checks,
        base_results: None,
        head_results: None,
        opts: &run,
        cache_dir: &opts.home.join("cache"),
        exclude: &[],
    });
    if let Some(signal) = loki_process::signals::signal_name() {
        return Err(SealError::Interrupted { signal });
    }
    let mut judged = judged?;
    declare::check_names(declared, &judged.declare, &known_tests(&judged))?;
    let applied = declare::apply(&mut judged, declared, opts.expectation_changes);
    let judgement = decide(&Evidence {
        judged: &judged,
        undeclared: &applied.undeclared,
        blocks_so_far: 0,
        max_blocks: u32::MAX,
    });
    let mut not_proven = not_proven(&judged, &base);
    not_proven.extend(judged.pre_existing.iter().map(|id| {
        NotProven::new(
            format!("pre-existing failure: {id}"),
            "it fails on the base too, so this change is not what it tests",
            format!("loki seal check --base {base}"),
        )
    }));
    for c in applied.contradictions() {
        not_proven.push(NotProven::new(
            format!("declared: {}", c.test),
            format!("it contradicts the task: {}", c.reason),
            format!("loki seal check --base {base}"),
        ));
    }
    Ok(CheckReport {
        base,
        judged,
        judgement,
        applied,
        not_proven,
    })
}
