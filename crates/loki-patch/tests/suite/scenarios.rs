//! Codex's public apply-patch scenarios, read in place from `$LOKI_SHARED_FIXTURES`.
//!
//! Each scenario: copy `input/` to a temp dir, parse and apply `patch.txt`, compare the tree with
//! `expected/` byte for byte. A scenario whose expected tree equals its input is a rejection: the
//! patch must fail and leave the tree as it was. Scenario 015 expects partial application; our
//! applier is all-or-nothing by design, so it must fail, leave the input untouched and name the
//! failing operation.

use std::path::PathBuf;

use loki_patch::{ApplyOptions, PatchError, apply_patch, parse_patch};

use super::{copy_tree, tree};

const PARTIAL_SUCCESS: &str = "015_failure_after_partial_success_leaves_changes";

fn scenarios_dir() -> Option<PathBuf> {
    loki_test_support::require_shared_fixtures("codex-apply-patch/scenarios")
}

fn run(dir: &std::path::Path) -> (Result<usize, PatchError>, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    copy_tree(&dir.join("input"), work.path());
    let text = std::fs::read_to_string(dir.join("patch.txt")).unwrap();
    let result = parse_patch(&text)
        .and_then(|p| apply_patch(work.path(), &p, ApplyOptions::default()))
        .map(|changes| changes.len());
    (result, work)
}

#[test]
fn every_codex_scenario_gives_the_expected_tree() {
    let Some(root) = scenarios_dir() else {
        return;
    };
    let mut names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("patch.txt").is_file())
        .collect();
    names.sort();
    assert!(
        names.len() >= 22,
        "found only {} scenarios in {}",
        names.len(),
        root.display()
    );
    let mut checked = 0;
    for dir in names {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if name == PARTIAL_SUCCESS {
            continue;
        }
        let input = tree(&dir.join("input"));
        let expected = tree(&dir.join("expected"));
        let (result, work) = run(&dir);
        let got = tree(work.path());
        if expected == input {
            assert!(
                result.is_err(),
                "{name}: a rejecting scenario was applied: {result:?}"
            );
        } else {
            assert!(result.is_ok(), "{name}: {}", result.unwrap_err());
        }
        assert_eq!(got, expected, "{name}: tree differs ({result:?})");
        checked += 1;
    }
    assert!(checked >= 21);
}

#[test]
fn scenario_015_is_all_or_nothing_instead_of_partial() {
    let Some(root) = scenarios_dir() else {
        return;
    };
    let dir = root.join(PARTIAL_SUCCESS);
    let input = tree(&dir.join("input"));
    let (result, work) = run(&dir);
    let err = result.unwrap_err();
    assert!(
        matches!(&err, PatchError::NotFound { path, op: "update" } if path == "missing.txt"),
        "{err}"
    );
    assert!(
        err.to_string().contains("cannot update missing.txt"),
        "{err}"
    );
    // Codex leaves created.txt behind; we leave nothing.
    assert_eq!(tree(work.path()), input);
    assert!(!work.path().join("created.txt").exists());
}
