//! The seal on a real Go module (`go test -json`): detection, per-test ids, a clean change, a real
//! regression, a weakened test caught by running the original file, a compile error, and one
//! scripted cheat per Go integrity rule. Needs `go` (`loki_test_support::require_tool`).

use loki_checks::{TestClass, classify, run_baseline};
use loki_protocol::CheckKind;
use loki_protocol::CheckStatus;
use loki_protocol::FindingKind;

use super::seal_runners::{Fixture, show, walk};

const GO_MOD: &str = "module example.com/calc\n\ngo 1.19\n";
const CALC: &str =
    "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n";
const CALC_TEST: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n\nfunc TestAddZero(t *testing.T) {\n\tif got := Add(0, 0); got != 0 {\n\t\tt.Fatalf(\"Add(0, 0) = %d, want 0\", got)\n\t}\n}\n";
/// The body of `TestAddZero`, which the cheats below edit.
const ZERO_BODY: &str =
    "\tif got := Add(0, 0); got != 0 {\n\t\tt.Fatalf(\"Add(0, 0) = %d, want 0\", got)\n\t}\n";

#[test]
fn go_seal() {
    if !loki_test_support::require_tool("go", &["version"]) {
        return;
    }
    let f = Fixture::new(
        &[
            ("go.mod", GO_MOD),
            ("calc.go", CALC),
            ("calc_test.go", CALC_TEST),
        ],
        &[],
    );
    let check = &f.checks[0];
    assert_eq!(check.kind, CheckKind::Go);
    assert_eq!(check.command, ["go", "test", "-json", "./..."]);
    assert!(check.why.contains("go.mod"), "{check:#?}");

    // The unchanged module passes with per-test ids from the test2json events.
    let head = f.run_head();
    let r = &head[0];
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&head));
    assert_eq!(
        (
            r.run.executed,
            r.run.passed,
            r.run.failed,
            r.report_source.as_deref()
        ),
        (2, 2, 0, Some("go-json")),
        "{}",
        show(&head)
    );
    let ids: Vec<&str> = r.tests.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        ["example.com/calc/TestAdd", "example.com/calc/TestAddZero"]
    );

    // Wrong only when a > 1: TestAdd fails, TestAddZero still passes.
    let broken = CALC.replace(
        "\treturn a + b\n",
        "\tr := a + b\n\tif a > 1 {\n\t\tr++\n\t}\n\treturn r\n",
    );
    walk(
        &f,
        &[(
            "calc.go",
            &format!(
                "{CALC}\n// Sub returns a - b.\nfunc Sub(a, b int) int {{\n\treturn a - b\n}}\n"
            ),
        )],
        &[("calc.go", &broken)],
        &[
            ("calc.go", &broken),
            ("calc_test.go", &CALC_TEST.replace("got != 4", "got == 0")),
        ],
        "TestAdd",
    );
    let base = run_baseline(f.repo.path(), &f.base, &f.checks, &f.opts, &f.cache()).unwrap();
    assert!(base.cached);

    // Code that no longer compiles fails, and the failure is named after the package.
    f.change(&[("calc.go", &CALC.replace("return a + b", "return a +"))]);
    let head = f.run_head();
    assert_eq!(head[0].run.result, CheckStatus::Fail, "{}", show(&head));
    assert_eq!(
        head[0].failing_ids,
        ["example.com/calc (package failed)"],
        "{}",
        show(&head)
    );

    // t.Skip added: the scan refuses it, and the run shows the test newly skipped.
    f.change(&[(
        "calc_test.go",
        &CALC_TEST.replace(ZERO_BODY, &format!("\tt.Skip(\"later\")\n{ZERO_BODY}")),
    )]);
    assert!(
        f.scan()
            .contains(&(FindingKind::SkipMarkerAdded, "calc_test.go".to_owned())),
        "{:?}",
        f.scan()
    );
    let head = f.run_head();
    let c = classify(&base.results, &head);
    assert_eq!(
        c.ids(TestClass::NewlySkipped),
        ["example.com/calc/TestAddZero"],
        "{c:#?}"
    );

    // A test function removed: fewer tests, and the test is missing from the run.
    let without_zero = CALC_TEST
        .split_once("\n\nfunc TestAddZero")
        .map(|(kept, _)| format!("{kept}\n"))
        .unwrap();
    f.change(&[("calc_test.go", &without_zero)]);
    assert!(
        f.scan()
            .contains(&(FindingKind::FewerTests, "calc_test.go".to_owned())),
        "{:?}",
        f.scan()
    );
    let c = classify(&base.results, &f.run_head());
    assert_eq!(
        c.ids(TestClass::Missing),
        ["example.com/calc/TestAddZero"],
        "{c:#?}"
    );

    // An assertion removed (the test still runs and passes): only the scan can tell.
    f.change(&[(
        "calc_test.go",
        &CALC_TEST.replace(ZERO_BODY, "\t_ = Add(0, 0)\n"),
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::FewerAssertions, "calc_test.go".to_owned())]
    );

    // The test file deleted: the scan names it and the suite has nothing left to run.
    f.change(&[]);
    std::fs::remove_file(f.repo.path().join("calc_test.go")).unwrap();
    assert_eq!(
        f.scan(),
        [(FindingKind::TestFileRemoved, "calc_test.go".to_owned())]
    );
    let head = f.run_head();
    assert_eq!(
        (head[0].run.result, head[0].reason.as_deref()),
        (CheckStatus::NotRun, Some("no tests executed")),
        "{}",
        show(&head)
    );
    let c = classify(&base.results, &head);
    assert_eq!(c.ids(TestClass::Missing).len(), 2, "{c:#?}");

    // go.mod's go directive changed (it changes how tests build).
    f.change(&[("go.mod", &GO_MOD.replace("go 1.19", "go 1.18"))]);
    assert_eq!(
        f.scan(),
        [(FindingKind::TestConfigChanged, "go.mod".to_owned())]
    );
}
