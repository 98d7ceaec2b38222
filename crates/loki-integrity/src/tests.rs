//! The structural rules through [`super::scan`]: for each rule, a cheat in every language it
//! applies to (which must be found, at the right line, with its evidence quoted) and the honest
//! code that looks like it (which must produce nothing of that kind).
//!
//! One file per rule, the rule's name first:
//! - `equality`: `eq_override`;
//! - `failure`: `failure_expected`;
//! - `runner`: `runner_detection`;
//! - `special`: `test_input_special_case` on one literal;
//! - `steering`: `test_input_special_case` by value: combinations, composites, tables;
//! - `takeover`: `run_takeover`;
//! - `shadow`: `shadow_module`;
//! - `java`: the count rules (skips, assertions, tests) on JUnit test files;
//! - `robustness`: line endings, broken code, moved code, and properties over generated changes.

mod equality;
mod failure;
mod java;
mod java_values;
mod robustness;
mod runner;
mod shadow;
mod special;
mod steering;
mod takeover;

use super::{FileChange, Finding, FindingKind, ScanInput, scan};
use FindingKind::*;

fn fc(path: &str, base: Option<&str>, head: Option<&str>) -> FileChange {
    FileChange {
        path: path.into(),
        base: base.map(|s| s.as_bytes().to_vec()),
        head: head.map(|s| s.as_bytes().to_vec()),
    }
}

fn run(changes: Vec<FileChange>) -> Vec<Finding> {
    scan(&ScanInput {
        changes,
        ..ScanInput::default()
    })
}

fn edit(path: &str, base: &str, head: &str) -> Vec<Finding> {
    run(vec![fc(path, Some(base), Some(head))])
}

fn add(path: &str, head: &str) -> Vec<Finding> {
    run(vec![fc(path, None, Some(head))])
}

#[track_caller]
fn fires(found: &[Finding], kind: FindingKind, path: &str, line: u32, evidence: &str) {
    assert!(
        found.iter().any(|f| f.kind == kind
            && f.path == path
            && f.line == Some(line)
            && f.detail.contains(evidence)),
        "expected {kind:?} at {path}:{line} quoting {evidence:?}, got:\n{}",
        found
            .iter()
            .map(super::Finding::describe)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[track_caller]
fn quiet(found: &[Finding], kind: FindingKind) {
    let of: Vec<String> = found
        .iter()
        .filter(|f| f.kind == kind)
        .map(Finding::describe)
        .collect();
    assert!(
        of.is_empty(),
        "expected no {kind:?}, got:\n{}",
        of.join("\n")
    );
}
