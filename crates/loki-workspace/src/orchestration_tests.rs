//! The orchestration's refusals and records against real git repositories in temp dirs (the
//! runs themselves are exercised end to end by `loki-cli`'s suite).

use std::collections::BTreeMap;
use std::path::Path;

use loki_core::config::workspaces::{Workspace, WorkspaceRepo};
use loki_core::exit::{Classify, ExitClass};
use loki_core::layout::Repo;
use loki_protocol::outcome::ExitCode;
use loki_test_support::GitRepo;

use crate::WorkspaceError;
use crate::options::tests::{config, setup};
use crate::run::RunFlags;

fn committed() -> GitRepo {
    let g = GitRepo::new();
    g.write("README.md", "hello\n");
    g.commit("init");
    g
}

#[test]
fn a_spec_becomes_the_repos_contract_and_a_spec_without_criteria_writes_nothing() {
    let g = committed();
    let repo = Repo::discover(g.path()).unwrap();
    let spec = "# Spec\n\n## Acceptance criteria\n- [ ] parses dates\n- [ ] rejects 30 February\n";
    let adopted = crate::contract::adopt(&repo, "SPEC.md", spec).unwrap();
    assert_eq!(adopted.contract.criteria.len(), 2);
    assert_eq!(adopted.dropped, 0);
    assert!(adopted.path.is_file(), "{}", adopted.path.display());
    std::fs::remove_file(&adopted.path).unwrap();
    let err = crate::contract::adopt(&repo, "NOTES.md", "just prose\n").unwrap_err();
    assert!(matches!(err, WorkspaceError::NoCriteria { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("no acceptance criteria in NOTES.md:")
    );
    assert_eq!(err.exit_class(), ExitClass::Usage);
    assert!(!adopted.path.exists());
}

#[test]
fn a_checks_run_without_suites_is_recorded_and_proves_nothing() {
    let g = committed();
    let repo = Repo::discover(g.path()).unwrap();
    let c = config(&[]);
    let mut told = 0;
    let err = crate::checks::run(&repo, &c, &["pytest".into()], false, Vec::new(), |_| {
        told += 1;
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "no check named \"pytest\"; detected: none");
    assert_eq!(err.exit_class(), ExitClass::Usage);
    let run = crate::checks::run(&repo, &c, &[], true, vec!["loki".into()], |_| {
        told += 1;
    })
    .unwrap();
    assert_eq!(told, 0);
    assert!(!run.proven);
    assert_eq!(run.exit, ExitCode::Failure);
    let events = std::fs::read_to_string(
        repo.runs_dir()
            .join(run.run_id.as_str())
            .join("events.jsonl"),
    )
    .unwrap();
    assert!(
        events.contains("run.completed") && events.contains("FAIL"),
        "{events}"
    );
}

#[test]
fn a_workspace_run_checks_every_repository_before_anything_runs() {
    let c = config(&[]);
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let s = setup(&c, &home);
    let (good, dirty) = (committed(), committed());
    dirty.write("README.md", "changed\n");
    let plain = tempfile::tempdir().unwrap();
    let member = |name: &str, path: &Path| WorkspaceRepo {
        name: name.into(),
        path: path.to_path_buf(),
        setup: None,
        after: None,
    };
    let ws = |repos| Workspace {
        name: "w".into(),
        repos,
        integration: None,
    };
    let mut all = BTreeMap::new();
    all.insert(
        "notgit".to_string(),
        ws(vec![
            member("good", good.path()),
            member("plain", plain.path()),
        ]),
    );
    all.insert(
        "dirty".to_string(),
        ws(vec![
            member("good", good.path()),
            member("dirty", dirty.path()),
        ]),
    );
    let flags = RunFlags::default();
    let err = crate::run::prepare(&s, &all, "nope", "task", flags).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no workspace \"nope\" in loki.toml (declared: dirty, notgit)"
    );
    assert_eq!(err.exit_class(), ExitClass::Usage);
    let err = crate::run::prepare(&s, &all, "notgit", "task", flags).unwrap_err();
    assert!(
        matches!(err, WorkspaceError::NotARepo { ref name, .. } if name == "plain"),
        "{err}"
    );
    assert_eq!(err.exit_class(), ExitClass::Usage);
    let err = crate::run::prepare(&s, &all, "dirty", "task", flags).unwrap_err();
    assert!(
        matches!(
            err,
            WorkspaceError::Engine(loki_engine::EngineError::DirtyTree { .. })
        ),
        "{err}"
    );
    assert_eq!(err.exit_class(), ExitClass::Usage);
    // Nothing was recorded for a refused run.
    assert!(!crate::records_dir(&Repo::discover(good.path()).unwrap()).exists());
}

#[test]
fn named_issues_are_built_in_number_order_once_each() {
    let c = config(&[]);
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let b = crate::backlog::plan(&setup(&c, &home), "octo/cat", &[12, 3, 12], None).unwrap();
    assert_eq!(b.project.canonical(), "github:octo/cat");
    let numbers: Vec<u64> = b.items.iter().map(|i| i.number).collect();
    assert_eq!(numbers, vec![3, 12]);
    assert!(b.items.iter().all(|i| i.title.is_empty()));
    assert_eq!(crate::backlog::branch(3), "loki/backlog-3");
    let err = crate::backlog::plan(&setup(&c, &home), "not a project", &[1], None).unwrap_err();
    assert_eq!(err.exit_class(), ExitClass::Usage, "{err}");
}

#[test]
fn a_run_that_left_no_branch_has_nothing_to_publish() {
    let g = committed();
    let repo = Repo::discover(g.path()).unwrap();
    let sealed = loki_intake::after::SealedRun {
        run_id: "run_x",
        branch: "",
        outcome: "ALREADY_SATISFIED",
    };
    let after = loki_intake::after::after_build(&repo, sealed);
    assert!(matches!(after, loki_intake::after::AfterBuild::Nothing));
    // A run id that is not one is a failed publish that says how to retry.
    let sealed = loki_intake::after::SealedRun {
        branch: "loki/x",
        ..sealed
    };
    let (pr, error) = loki_intake::after::after_build(&repo, sealed).cells();
    assert_eq!(pr, None);
    let error = error.unwrap();
    assert!(error.contains("retry with `loki pr run_x`"), "{error}");
}
