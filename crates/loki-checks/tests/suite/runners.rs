//! Real runners on fixture repos built in temp dirs: cargo and nextest, pytest,
//! node --test, go (`not_run: go not found` without it). Each runner gets one
//! test function that walks several cases through the same fixture, to keep builds few.

use std::ffi::OsString;
use std::fs;
use std::path::Path;
use std::time::Duration;

use loki_protocol::CheckKind;
use loki_protocol::CheckStatus;
use loki_runner::{Check, CheckResult, RunOptions, Tools, detect_with, run_check};
use sha2::{Digest, Sha256};

fn write(root: &Path, rel: &str, body: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, body).unwrap();
}

fn opts(tmp: &Path, extra: &[(&str, &str)]) -> RunOptions {
    let mut o = RunOptions::new(tmp.join("logs"));
    o.timeout = Duration::from_secs(300);
    for (k, v) in extra {
        o.env.retain(|(n, _)| n != k);
        o.env.push((OsString::from(k), OsString::from(v)));
    }
    o
}

/// An empty directory in `tmp`, as a `PATH` on which no program is found.
fn empty_dir(tmp: &Path) -> String {
    let dir = tmp.join("empty-path");
    std::fs::create_dir_all(&dir).unwrap();
    dir.to_str().unwrap().to_string()
}

fn only(root: &Path, tools: Tools, kind: CheckKind) -> Check {
    let checks = detect_with(root, tools).unwrap();
    let mut of_kind = checks.into_iter().filter(|c| c.kind == kind);
    let check = of_kind
        .next()
        .unwrap_or_else(|| panic!("no {kind:?} check in {}", root.display()));
    assert!(of_kind.next().is_none());
    check
}

/// Asserts the log on disk is the one the result hashes.
fn assert_log(r: &CheckResult) {
    let bytes = fs::read(&r.log_path).unwrap();
    assert_eq!(hex::encode(Sha256::digest(&bytes)), r.log_sha256);
}

fn show(r: &CheckResult) -> String {
    format!(
        "{r:#?}\n--- log ---\n{}",
        String::from_utf8_lossy(&fs::read(&r.log_path).unwrap_or_default())
    )
}

const CARGO_TOML: &str =
    "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
const LIB_PASS: &str = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 1), 2); }\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n";
const LIB_FAIL: &str = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 1), 2); }\n    #[test]\n    fn breaks() { println!(\"test tests::breaks ... ok\"); assert_eq!(super::add(1, 1), 3); }\n}\n";
const LIB_FLAKY: &str = "#[test]\nfn flips() {\n    let m = std::env::var(\"FLAKY_MARKER\").unwrap();\n    if !std::path::Path::new(&m).exists() { std::fs::write(&m, \"\").unwrap(); panic!(\"first run fails\"); }\n}\n";
const LIB_NONE: &str = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n";

#[test]
fn cargo_runner() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("repo");
    write(&repo, "Cargo.toml", CARGO_TOML.as_bytes());
    let target = t.path().join("target");
    let marker = t.path().join("flaky-marker");
    let o = opts(
        t.path(),
        &[
            ("CARGO_TARGET_DIR", target.to_str().unwrap()),
            ("FLAKY_MARKER", marker.to_str().unwrap()),
        ],
    );
    let check = only(&repo, Tools { nextest: false }, CheckKind::Cargo);

    write(&repo, "src/lib.rs", LIB_PASS.as_bytes());
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!(
        (r.run.executed, r.run.passed, r.run.skipped, r.attempts),
        (1, 1, 1, 1)
    );
    assert_log(&r);
    assert!(r.log_path.ends_with("logs/cargo.log"));

    write(&repo, "src/lib.rs", LIB_FAIL.as_bytes());
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["fixture::fixture::tests::breaks"]);
    assert_eq!((r.run.passed, r.run.failed, r.attempts), (1, 1, 2));
    assert!(
        r.reason
            .as_deref()
            .unwrap()
            .contains("failed again on rerun")
    );

    // nextest reads its JUnit report (`scripts/test` installs it; without it outside CI, cargo test
    // covers the rest).
    let tools = Tools::probe(&repo);
    if tools.nextest {
        // The project opts into nextest; its doctests then run through `cargo test --doc`.
        write(&repo, ".config/nextest.toml", b"[profile.default]\n");
        let nx = only(&repo, tools, CheckKind::Nextest);
        let r = run_check(&nx, &o).unwrap();
        assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
        assert_eq!(r.report_source.as_deref(), Some("junit"));
        assert_eq!(r.failing_ids, ["fixture::tests::breaks"]);
    } else {
        loki_test_support::missing(
            "cargo-nextest (its JUnit path is then covered by parser tests only)",
            "cargo install --locked cargo-nextest",
        );
    }

    write(&repo, "src/lib.rs", LIB_FLAKY.as_bytes());
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Flaky, "{}", show(&r));
    assert_eq!(r.attempts, 2);

    write(&repo, "src/lib.rs", LIB_NONE.as_bytes());
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::NotRun, "{}", show(&r));
    assert_eq!(r.reason.as_deref(), Some("no tests executed"));

    let no_cargo = opts(t.path(), &[("PATH", &empty_dir(t.path()))]);
    let r = run_check(&check, &no_cargo).unwrap();
    assert_eq!(r.run.result, CheckStatus::NotRun);
    assert_eq!(r.reason.as_deref(), Some("cargo not found"));
    assert_eq!(r.exit_code, None);
}

/// Bytecode compiled from other source, with the size and mtime of the source on disk: Python
/// would run it instead of the source. The check runs the source.
#[test]
fn pytest_runs_the_source_not_planted_bytecode() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), &[]);
    let repo = t.path().join("py");
    fs::create_dir_all(repo.join(".git")).unwrap();
    write(
        &repo,
        "test_calc.py",
        b"from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    );
    // The right code, compiled, then the buggy code of the same size written over it with the
    // same mtime.
    write(&repo, "calc.py", b"def add(a, b):\n    return a + b\n");
    let mtime = fs::metadata(repo.join("calc.py"))
        .unwrap()
        .modified()
        .unwrap();
    let compiled = std::process::Command::new("python3")
        .args(["-m", "py_compile", "calc.py"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(compiled.success());
    write(&repo, "calc.py", b"def add(a, b):\n    return a - b\n");
    fs::File::options()
        .write(true)
        .open(repo.join("calc.py"))
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    // Without loki, python itself is fooled.
    let fooled = std::process::Command::new("python3")
        .args(["-c", "import calc; assert calc.add(2, 3) == 5"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(fooled.success(), "the planted bytecode is what python runs");
    let check = only(&repo, Tools::default(), CheckKind::Pytest);
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["test_calc.py::test_add"]);
}

/// `--loki-repeat` (loki's plugin), as the judge's reruns on the base use it: each selected test
/// runs that many times in one process, each time from a fresh setup, and it failed when any
/// repetition failed, the first or the last.
#[test]
fn pytest_repeats_each_selected_test_in_one_process_from_a_fresh_setup() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let mut o = opts(t.path(), &[]);
    // As the judge's reruns run: once, not again on failure.
    o.rerun_failed = false;
    let repo = t.path().join("py");
    // Each test appends `<file> <repetition in this process>` to runs.txt; a function-scoped
    // fixture from an earlier repetition must not carry over.
    let body = |fails_on: usize| {
        format!(
            "import pytest\n\nRUNS = []\n\n@pytest.fixture\ndef fresh():\n    box = []\n    yield box\n    box.append('torn down')\n\ndef test_it(fresh, tmp_path):\n    RUNS.append(1)\n    assert fresh == [] and not (tmp_path / 'mark').exists()\n    (tmp_path / 'mark').write_text('x')\n    fresh.append('used')\n    with open('runs.txt', 'a') as f:\n        f.write(f'{{__name__}} {{len(RUNS)}}\\n')\n    assert len(RUNS) != {fails_on}\n\ndef test_other():\n    with open('runs.txt', 'a') as f:\n        f.write('other\\n')\n"
        )
    };
    write(&repo, "test_last.py", body(2).as_bytes());
    write(&repo, "test_first.py", body(1).as_bytes());
    write(&repo, "test_never.py", body(0).as_bytes());
    let check = only(&repo, Tools::default(), CheckKind::Pytest);
    let run = |id: &str, times: u32| {
        let _ = fs::remove_file(repo.join("runs.txt"));
        let sel = loki_runner::select::Selection::tests([id.to_owned()]).repeated(times);
        let narrowed = loki_runner::select::narrowed(&check, &repo, &sel).unwrap();
        let r = run_check(&narrowed, &o).unwrap();
        (
            r,
            fs::read_to_string(repo.join("runs.txt")).unwrap_or_default(),
        )
    };

    let (r, runs) = run("test_last.py::test_it", 2);
    assert_eq!(runs, "test_last 1\ntest_last 2\n", "{}", show(&r));
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["test_last.py::test_it"]);
    assert_eq!(
        r.run.executed,
        1,
        "one test, however often it ran: {}",
        show(&r)
    );

    let (r, runs) = run("test_first.py::test_it", 2);
    assert_eq!(runs, "test_first 1\ntest_first 2\n", "{}", show(&r));
    assert_eq!(
        r.run.result,
        CheckStatus::Fail,
        "a later pass hides nothing: {}",
        show(&r)
    );
    assert_eq!(r.failing_ids, ["test_first.py::test_it"]);

    let (r, runs) = run("test_never.py::test_it", 3);
    assert_eq!(
        runs,
        "test_never 1\ntest_never 2\ntest_never 3\n",
        "{}",
        show(&r)
    );
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!((r.run.executed, r.run.passed), (1, 1), "{}", show(&r));
}

#[test]
fn pytest_runner() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), &[]);
    let repo = t.path().join("py");
    // CRLF line endings; one pass, one skip.
    write(&repo, "test_a.py", b"import pytest\r\n\r\ndef test_ok():\r\n    assert 1 + 1 == 2\r\n\r\n@pytest.mark.skip(reason='later')\r\ndef test_skip():\r\n    pass\r\n");
    let check = only(&repo, Tools::default(), CheckKind::Pytest);
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!((r.run.executed, r.run.skipped), (1, 1));
    assert_eq!(r.report_source.as_deref(), Some("pytest-plugin"));
    assert!(
        !repo.join(".pytest_cache").exists(),
        "pytest must not write into the repository"
    );

    // A real failure whose output is not UTF-8.
    write(&repo, "test_bad.py", b"import sys\ndef test_bad():\n    sys.stdout.buffer.write(b'\\xff\\xfe bytes\\n')\n    assert 1 == 2\n");
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["test_bad.py::test_bad"]);
    // pytest itself decodes what it captured; the bytes arrive replaced, and parsing is unharmed.
    assert!(String::from_utf8_lossy(&fs::read(&r.log_path).unwrap()).contains(" bytes"));
    fs::remove_file(repo.join("test_bad.py")).unwrap();

    // Crash during collection.
    write(
        &repo,
        "test_broken.py",
        b"import no_such_module\ndef test_x():\n    pass\n",
    );
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert!(
        r.failing_ids.iter().any(|id| id.contains("test_broken")),
        "{}",
        show(&r)
    );
    fs::remove_file(repo.join("test_broken.py")).unwrap();

    // A hang: killed at the timeout.
    write(
        &repo,
        "test_hang.py",
        b"import time\ndef test_hang():\n    time.sleep(600)\n",
    );
    let mut short = opts(t.path(), &[]);
    short.timeout = Duration::from_secs(3);
    let r = run_check(&check, &short).unwrap();
    assert_eq!(r.run.result, CheckStatus::Timeout, "{}", show(&r));
    assert!(r.duration_s < 15.0);
    assert_eq!(r.exit_code, Some(124));
    fs::remove_file(repo.join("test_hang.py")).unwrap();

    // Exit 0 after printing fake passes, having run nothing.
    let fake = t.path().join("fake");
    write(&fake, "conftest.py", b"import os, sys\nprint('collected 5 items')\nprint('PASSED test_a.py::test_ok')\nprint('============ 5 passed in 0.01s ============')\nsys.stdout.flush()\nos._exit(0)\n");
    let r = run_check(&only(&fake, Tools::default(), CheckKind::Pytest), &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::NotRun, "{}", show(&r));

    // The same forgery with a non-zero exit is a failure, not a pass.
    write(&fake, "conftest.py", b"import os, sys\nprint('PASSED test_a.py::test_ok')\nprint('============ 1 passed in 0.01s ============')\nsys.stdout.flush()\nos._exit(3)\n");
    let r = run_check(&only(&fake, Tools::default(), CheckKind::Pytest), &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert!(
        r.reason.as_deref().unwrap().contains("exited with code 3"),
        "{}",
        show(&r)
    );

    // A configured project with no tests.
    let empty = t.path().join("empty");
    write(&empty, "pytest.ini", b"[pytest]\n");
    let r = run_check(&only(&empty, Tools::default(), CheckKind::Pytest), &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::NotRun, "{}", show(&r));
    assert_eq!(r.reason.as_deref(), Some("no tests executed"));
}

#[test]
fn node_runner() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), &[]);
    let repo = t.path().join("js");
    write(&repo, "test/a.test.js", b"const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.strictEqual(1 + 1, 2));\ntest.skip('later', () => {});\n");
    let check = only(&repo, Tools::default(), CheckKind::Node);
    assert_eq!(check.command, ["node", "--test"]);
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!(
        (r.run.executed, r.run.skipped, r.report_source.as_deref()),
        (1, 1, Some("node-events"))
    );
    // Ids name the file: node's TAP does not, so two files' tests of one name would collide.
    assert!(
        r.tests.iter().any(|t| t.id == "test/a.test.js > adds"),
        "{r:#?}"
    );

    write(&repo, "test/b.test.js", b"const test = require('node:test');\ntest('breaks', () => { process.stdout.write(Buffer.from([0xff, 0xfe, 0x0a])); throw new Error('nope'); });\n");
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["test/b.test.js > breaks"]);

    // The same suite through an npm script (results come from the log); the script prints bytes
    // that are not UTF-8 before the suite runs.
    write(
        &repo,
        "package.json",
        br#"{"name": "fx", "scripts": {"test": "printf '\\377\\376\\n' && node --test"}}"#,
    );
    let npm = only(&repo, Tools::default(), CheckKind::Node);
    assert_eq!(npm.command, ["npm", "test"]);
    let r = run_check(&npm, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert!(r.run.failed >= 1 && r.run.passed >= 1, "{}", show(&r));
    assert!(
        fs::read(&r.log_path)
            .unwrap()
            .windows(2)
            .any(|w| w == b"\xff\xfe"),
        "{}",
        show(&r)
    );
}

#[test]
fn go_runner() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("go");
    write(&repo, "go.mod", b"module example.com/fx\n\ngo 1.21\n");
    write(&repo, "fx_test.go", b"package fx\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal(\"math\")\n\t}\n}\n");
    let check = only(&repo, Tools::default(), CheckKind::Go);

    // A PATH without go: not run, never failed.
    let r = run_check(&check, &opts(t.path(), &[("PATH", &empty_dir(t.path()))])).unwrap();
    assert_eq!(
        (r.run.result, r.reason.as_deref()),
        (CheckStatus::NotRun, Some("go not found"))
    );

    let o = opts(
        t.path(),
        &[
            ("GOFLAGS", "-mod=mod"),
            ("GOCACHE", t.path().join("gocache").to_str().unwrap()),
        ],
    );
    let r = run_check(&check, &o).unwrap();
    if !loki_test_support::require_tool("go", &["version"]) {
        // Without go the check is not run, and says so.
        assert_eq!(
            (r.run.result, r.reason.as_deref()),
            (CheckStatus::NotRun, Some("go not found"))
        );
        return;
    }
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!(r.report_source.as_deref(), Some("go-json"));
    write(&repo, "break_test.go", b"package fx\n\nimport \"testing\"\n\nfunc TestBreak(t *testing.T) {\n\tt.Fatal(\"nope\")\n}\n");
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["example.com/fx/TestBreak"]);
}

const CALC_JAVA: &str = "package calc;\n\npublic class Calc {\n    public static int add(int a, int b) { return a + b; }\n}\n";
const CALC_TEST_JAVA: &str = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Disabled;\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() { assertEquals(3, Calc.add(1, 2)); }\n\n    @Test\n    @Disabled(\"later\")\n    void later() {}\n}\n";

#[test]
fn maven_runner() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("java");
    write(
        &repo,
        "pom.xml",
        loki_test_support::require::MAVEN_POM.as_bytes(),
    );
    write(&repo, "src/main/java/calc/Calc.java", CALC_JAVA.as_bytes());
    write(
        &repo,
        "src/test/java/calc/CalcTest.java",
        CALC_TEST_JAVA.as_bytes(),
    );
    // A report of an earlier build: removed before the run, never counted.
    write(
        &repo,
        "target/surefire-reports/TEST-calc.Stale.xml",
        b"<testsuite><testcase classname=\"calc.Stale\" name=\"old\"/></testsuite>",
    );
    let check = only(&repo, Tools::default(), CheckKind::Maven);
    assert_eq!(
        check.command,
        ["mvn", "--batch-mode", "--offline", "--quiet", "test"]
    );

    // A PATH without mvn: not run, never failed.
    let r = run_check(&check, &opts(t.path(), &[("PATH", &empty_dir(t.path()))])).unwrap();
    assert_eq!(
        (r.run.result, r.reason.as_deref()),
        (CheckStatus::NotRun, Some("mvn not found"))
    );
    let Some(maven_opts) = loki_test_support::require_maven() else {
        return;
    };
    let o = opts(t.path(), &[("MAVEN_OPTS", &maven_opts)]);
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!(r.report_source.as_deref(), Some("junit"));
    assert_eq!(
        (r.run.passed, r.run.failed, r.run.skipped),
        (1, 0, 1),
        "{}",
        show(&r)
    );
    assert_log(&r);

    write(
        &repo,
        "src/test/java/calc/BreakTest.java",
        b"package calc;\n\nimport org.junit.jupiter.api.Test;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass BreakTest {\n    @Test\n    void breaks() { assertEquals(4, Calc.add(1, 2)); }\n}\n",
    );
    let r = run_check(&check, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&r));
    assert_eq!(r.failing_ids, ["calc.BreakTest::breaks"]);

    // Narrowed to the passing test: only it runs.
    let one = loki_runner::select::narrowed(
        &check,
        &repo,
        &loki_runner::select::Selection::tests(["calc.CalcTest::adds".to_owned()]),
    )
    .unwrap();
    let r = run_check(&one, &o).unwrap();
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&r));
    assert_eq!((r.run.passed, r.run.failed), (1, 0), "{}", show(&r));
}
