use crate::common::{build, receipt};
use loki_protocol::outcome::Outcome;

#[test]
fn the_demo_crate_ends_verified_with_a_signed_receipt() {
    let _one = crate::common::demo_crate();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("calendar");
    loki_engine::demo::write_repo(&repo).unwrap();
    let home = dir.path().join("home");
    let report = build(
        &repo,
        &home,
        loki_engine::demo::TASK,
        loki_engine::demo::SCRIPT,
        None,
    );
    let r = receipt(&repo, &report);
    assert_eq!(
        report.outcome,
        Outcome::Verified,
        "{}\n{r:#}",
        loki_term::summary::render(&report)
    );
    assert_eq!(report.changed_files, ["src/lib.rs"]);
    assert_eq!(r["wall"]["files"][0]["path"], "tests/loki_wall_century.rs");
    assert_eq!(r["wall"]["base_run"]["fail"], 1);
}
