//! The CI rules: one case per cheat and per honest change, per format.

use proptest::prelude::*;

use super::expr::eval_expr;
use super::*;

const WF: &str = "name: ci
on:
  push:
    branches: [main]
  pull_request:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - name: Tests
        run: cargo test --workspace
      - name: Python
        run: |
          pip install -e .
          pytest -q
  go:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: go test ./...
";

fn all(path: &str, base: Option<&str>, head: Option<&str>) -> Vec<Finding> {
    ci_weakenings(path, base.map(str::as_bytes), head.map(str::as_bytes))
}

fn gh(head: &str) -> Vec<String> {
    all(".github/workflows/ci.yml", Some(WF), Some(head))
        .into_iter()
        .map(|f| f.detail)
        .collect()
}

/// `head` is `WF` with `from` replaced by `to`; the change must give one finding containing `want`.
fn one(from: &str, to: &str, want: &str) {
    assert!(WF.contains(from), "{from}");
    let got = gh(&WF.replace(from, to));
    assert_eq!(got.len(), 1, "{from} -> {to}: {got:#?}");
    assert!(got[0].contains(want), "{from} -> {to}: {got:#?}");
}

#[test]
fn github_steps_and_jobs_removed() {
    one(
        "      - name: Tests\n        run: cargo test --workspace\n",
        "",
        "test command removed: `cargo test --workspace` (job `test`, step `Tests`)",
    );
    one(
        "  go:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: go test ./...\n",
        "",
        "job `go` was removed; it ran `go test ./...`",
    );
    one("          pytest -q\n", "", "`pytest -q`");
    let deleted = all(".github/workflows/ci.yml", Some(WF), None);
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].kind, FindingKind::CiDeleted);
    assert!(
        deleted[0].detail.contains("`cargo test --workspace`"),
        "{deleted:?}"
    );
    // A workflow that runs no tests is not CI weakening when it goes.
    let release = "on: push\njobs:\n  release:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo publish\n";
    assert!(all(".github/workflows/release.yml", Some(release), None).is_empty());
}

#[test]
fn github_disabled() {
    for cond in [
        "false",
        "${{ false }}",
        "0",
        "''",
        "failure()",
        "github.event_name == 'never'",
        "${{ github.event_name == 'schedule' }}",
        "${{ !true }}",
        "false && github.ref == 'refs/heads/main'",
    ] {
        one(
            "  test:\n    runs-on",
            &format!("  test:\n    if: {cond}\n    runs-on"),
            "job `test` never runs: `if:",
        );
        one(
            "      - name: Tests\n",
            &format!("      - name: Tests\n        if: {cond}\n"),
            "step `Tests` of job `test` never runs",
        );
    }
    // Conditions that can be true on a push or a pull request are not findings.
    for cond in [
        "github.event_name == 'push'",
        "always()",
        "success()",
        "${{ matrix.os == 'ubuntu-latest' }}",
        "github.ref == 'refs/heads/main' || github.event_name == 'pull_request'",
        "true",
    ] {
        assert_eq!(
            gh(&WF.replace(
                "  test:\n    runs-on",
                &format!("  test:\n    if: {cond}\n    runs-on")
            )),
            Vec::<String>::new(),
            "{cond}"
        );
    }
    // Triggers.
    one(
        "on:\n  push:\n    branches: [main]\n  pull_request:\n",
        "on:\n  workflow_dispatch:\n  pull_request:\n",
        "no longer runs on `push`",
    );
    one(
        "on:\n  push:\n    branches: [main]\n  pull_request:\n",
        "on: [push]\n",
        "no longer runs on `pull_request`",
    );
    one(
        "  pull_request:\n",
        "  pull_request:\n    paths-ignore: ['**']\n",
        "`paths-ignore` on `pull_request` now skips source changes",
    );
    one(
        "  pull_request:\n",
        "  pull_request:\n    paths-ignore:\n      - 'src/**'\n",
        "`paths-ignore`",
    );
    one(
        "  pull_request:\n",
        "  pull_request:\n    paths: ['docs/**']\n",
        "`paths` on `pull_request` no longer includes source files",
    );
    one(
        "    branches: [main]\n",
        "    branches: [never-a-branch]\n",
        "`branches` on `push` no longer includes the main branch",
    );
    // Honest filters.
    for (from, to) in [
        (
            "  pull_request:\n",
            "  pull_request:\n    paths-ignore: ['docs/**', '**.md', 'LICENSE']\n",
        ),
        (
            "  pull_request:\n",
            "  pull_request:\n    paths: ['src/**', 'Cargo.toml', 'tests/**']\n",
        ),
        (
            "    branches: [main]\n",
            "    branches: [main, 'release/**']\n",
        ),
        (
            "  pull_request:\n",
            "  pull_request:\n  merge_group:\n  workflow_dispatch:\n",
        ),
        (
            "on:\n  push:\n    branches: [main]\n  pull_request:\n",
            "on: [push, pull_request]\n",
        ),
    ] {
        assert_eq!(gh(&WF.replace(from, to)), Vec::<String>::new(), "{to}");
    }
}

#[test]
fn github_made_unable_to_fail() {
    one(
        "    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay",
        "    runs-on: ubuntu-latest\n    continue-on-error: true\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay",
        "job `test` can no longer fail: `continue-on-error: true`; it runs `cargo test --workspace`, `pytest -q`",
    );
    one(
        "        run: cargo test --workspace\n",
        "        run: cargo test --workspace\n        continue-on-error: true\n",
        "step `Tests` of job `test` can no longer fail",
    );
    one(
        "        run: cargo test --workspace\n",
        "        run: cargo test --workspace\n        continue-on-error: ${{ true }}\n",
        "can no longer fail",
    );
    for (to, why) in [
        ("cargo test --workspace || true", "`|| true` after it"),
        ("\"cargo test --workspace || :\"", "`|| :` after it"),
        ("cargo test --workspace || exit 0", "`|| exit 0` after it"),
        (
            "cargo test --workspace || echo \"tests failed\"",
            "`|| echo tests failed` after it",
        ),
        (
            "cargo test --workspace | tee test.log",
            "lost in the pipe into `tee`",
        ),
        ("cargo test --workspace 2>&1 | cat", "pipe into `cat`"),
        (
            "|\n          set +e\n          cargo test --workspace\n          echo done",
            "`set +e` before it",
        ),
        ("'! cargo test --workspace'", "negated"),
        (
            "bash -c 'cargo test --workspace || true'",
            "`|| true` after it",
        ),
    ] {
        one("cargo test --workspace\n", &format!("{to}\n"), why);
    }
    // `; exit 0` hides a failure only where the shell goes on after errors: not in GitHub's
    // default `bash -e`, but in a custom `shell:` without `-e`.
    one(
        "cargo test --workspace\n",
        "cargo test --workspace; exit 0\n        shell: bash {0}\n",
        "`exit 0` after it",
    );
    assert_eq!(
        gh(&WF.replace(
            "cargo test --workspace\n",
            "cargo test --workspace; exit 0\n"
        )),
        Vec::<String>::new()
    );
    for (to, how) in [
        (
            "echo cargo test --workspace",
            "is now only an argument of `echo`",
        ),
        (
            "echo \"cargo test --workspace\"",
            "is now only an argument of `echo`",
        ),
        (
            "': cargo test --workspace'",
            "is now only an argument of `:`",
        ),
        (
            "true cargo test --workspace",
            "is now only an argument of `true`",
        ),
        (
            "|\n          # cargo test --workspace\n          cargo build",
            "is commented out",
        ),
    ] {
        one("cargo test --workspace\n", &format!("{to}\n"), how);
    }
    // Honest: status read and re-raised, pipefail on, an unrelated step allowed to fail.
    for (from, to) in [
        (
            "cargo test --workspace\n",
            "cargo test --workspace | tee test.log\n        shell: bash\n",
        ),
        (
            "cargo test --workspace\n",
            "|\n          set -o pipefail\n          cargo test --workspace | tee test.log\n",
        ),
        (
            "cargo test --workspace\n",
            "|\n          set +e\n          cargo test --workspace\n          status=$?\n          echo done\n          exit $status\n",
        ),
        (
            "cargo test --workspace\n",
            "cargo test --workspace || (cat target/log; exit 1)\n",
        ),
        (
            "      - uses: dtolnay/rust-toolchain@stable\n",
            "      - uses: dtolnay/rust-toolchain@stable\n      - run: cargo fmt --check\n        continue-on-error: true\n",
        ),
        (
            "cargo test --workspace\n",
            "cargo test --workspace # || true\n",
        ),
    ] {
        assert_eq!(gh(&WF.replace(from, to)), Vec::<String>::new(), "{to}");
    }
}

#[test]
fn github_narrowed() {
    for (to, want) in [
        ("cargo test --workspace --lib", "now selects only `--lib`"),
        ("cargo test -p one", "drops `--workspace`"),
        (
            "cargo test --workspace --exclude cli",
            "adds `--exclude cli`",
        ),
        (
            "cargo test --workspace -- --skip slow",
            "adds `--skip slow`",
        ),
        ("cargo test --workspace parser", "now runs only `parser`"),
        ("cargo test", "drops `--workspace`"),
        (
            "cargo nextest run --workspace -E 'not test(slow)'",
            "adds `-E 'not test(slow)'`",
        ),
        ("cargo nextest run --workspace", "does not run doctests"),
        (
            "cargo nextest run --workspace\n      - run: cargo test --lib",
            "does not run doctests",
        ),
    ] {
        one("cargo test --workspace\n", &format!("{to}\n"), want);
    }
    for (to, want) in [
        ("pytest -q -k 'not db'", "adds `-k 'not db'`"),
        ("pytest -q -m 'not slow'", "adds `-m 'not slow'`"),
        (
            "pytest -q --deselect tests/test_a.py::test_b",
            "adds `--deselect",
        ),
        (
            "pytest -q --ignore=tests/integration",
            "adds `--ignore tests/integration`",
        ),
        ("pytest -q tests/unit", "now runs only `tests/unit`"),
        ("python -m pytest -q -k fast", "adds `-k fast`"),
    ] {
        one("pytest -q\n", &format!("{to}\n"), want);
    }
    for (to, want) in [
        ("go test -run TestOne ./...", "adds `-run TestOne`"),
        ("go test -short ./...", "adds `-short`"),
        ("go test ./pkg/one", "no longer tests the packages `./...`"),
    ] {
        one("go test ./...\n", &format!("{to}\n"), want);
    }
    one(
        "      - name: Python\n",
        "      - name: Python\n        env:\n          PYTEST_ADDOPTS: -k 'not slow'\n",
        "PYTEST_ADDOPTS: adds `-k 'not slow'`",
    );
    // A tool chosen through the environment.
    let via_env = "on: push\nenv:\n  CARGO: cargo\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ${{ env.CARGO }} test --workspace\n";
    let f = all(
        ".github/workflows/ci.yml",
        Some(via_env),
        Some(&via_env.replace("--workspace", "--workspace --lib")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    one(
        "      - run: go test ./...\n",
        "      - run: go test ./...\n        working-directory: pkg/one\n",
        "runs in `pkg/one` instead of `.`",
    );
    // Honest argument changes.
    for (from, to) in [
        (
            "cargo test --workspace\n",
            "cargo test --workspace --locked --all-features\n",
        ),
        (
            "cargo test --workspace\n",
            "cargo test --workspace -- --nocapture\n",
        ),
        (
            "pytest -q\n",
            "pytest -q -ra --tb=short -n auto --durations=10\n",
        ),
        ("pytest -q\n", "python -m pytest -q\n"),
        ("go test ./...\n", "go test -race -count=1 -v ./...\n"),
        (
            "cargo test --workspace\n",
            "cargo nextest run --workspace\n      - run: cargo test --doc --workspace\n",
        ),
    ] {
        assert_eq!(gh(&WF.replace(from, to)), Vec::<String>::new(), "{to}");
    }
}

const MATRIX: &str = "on: [push, pull_request]
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, windows-latest, macos-latest]
        rust: [stable, beta]
        include:
          - os: ubuntu-latest
            rust: nightly
    steps:
      - run: cargo test
";

#[test]
fn matrices() {
    let m = |from: &str, to: &str| -> Vec<String> {
        all(
            ".github/workflows/ci.yml",
            Some(MATRIX),
            Some(&MATRIX.replace(from, to)),
        )
        .into_iter()
        .map(|f| f.detail)
        .collect()
    };
    assert_eq!(
        m(", windows-latest", ""),
        ["the matrix of job `test` shrank: `os` lost `windows-latest`"]
    );
    assert_eq!(
        m(
            "        include:",
            "        exclude:\n          - os: macos-latest\n            rust: beta\n        include:"
        ),
        ["the matrix of job `test` shrank: adds the exclusion `{os: macos-latest, rust: beta}`"]
    );
    assert_eq!(
        m(
            "        include:\n          - os: ubuntu-latest\n            rust: nightly\n",
            ""
        ),
        ["the matrix of job `test` shrank: drops the entry `{os: ubuntu-latest, rust: nightly}`"]
    );
    assert_eq!(
        m("        rust: [stable, beta]\n", ""),
        ["the matrix of job `test` shrank: `rust` lost all its values (stable, beta)"]
    );
    // An entry reshaped, selecting the same values (`env:` settings moved to a key): no finding.
    assert!(
        m(
            "        include:\n          - os: ubuntu-latest\n            rust: nightly\n",
            "        include:\n          - os: ubuntu-latest\n            rust: nightly\n            fuzz: 1\n"
        )
        .is_empty()
    );
    // A new entry, reordered values, a flow-to-block rewrite: not findings.
    assert!(m("macos-latest]", "macos-latest, ubuntu-24.04-arm]").is_empty());
    assert!(
        m(
            "[ubuntu-latest, windows-latest, macos-latest]",
            "\n          - macos-latest\n          - ubuntu-latest\n          - windows-latest"
        )
        .is_empty()
    );
    let f = all(
        ".github/workflows/ci.yml",
        Some(MATRIX),
        Some(&MATRIX.replace(", windows-latest", "")),
    );
    assert_eq!(f[0].line, Some(7));
}

#[test]
fn github_honest_changes() {
    let reformatted = "name: ci\n\"on\":\n  pull_request: {}\n  push: {branches: [\"main\"]}\njobs:\n  go:\n    steps:\n    - uses: actions/checkout@v4\n    - run: \"go test ./...\"\n    runs-on: ubuntu-latest\n  # The Rust and Python tests.\n  test:\n    steps:\n    - uses: actions/checkout@v4\n    - uses: dtolnay/rust-toolchain@stable\n    - run: cargo test --workspace\n      name: Rust tests\n    - name: Python\n      run: |\n        pip install -e .\n        pytest -q\n    runs-on: ubuntu-latest\n";
    for head in [
        WF.to_owned(),
        WF.replace("actions/checkout@v4", "actions/checkout@v5"),
        WF.replace("name: Tests", "name: Run the Rust tests"),
        WF.replace("  go:\n", "  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo clippy -- -D warnings\n        continue-on-error: true\n  go:\n"),
        WF.replace("      - uses: dtolnay/rust-toolchain@stable\n", "      - uses: dtolnay/rust-toolchain@stable\n      - uses: Swatinem/rust-cache@v2\n      - run: cargo build --locked\n"),
        WF.replace("    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay", "    runs-on: ubuntu-latest\n    timeout-minutes: 30\n    env:\n      CARGO_TERM_COLOR: always\n      RUST_BACKTRACE: 1\n    steps:\n      - uses: actions/checkout@v4\n      - uses: dtolnay"),
        WF.replace("run: cargo test --workspace", "run: cargo test --workspace --all-features").replace("      - run: go test ./...\n", "      - run: go test -v ./...\n"),
        // The Python step moved to a job of its own.
        WF.replace("      - name: Python\n        run: |\n          pip install -e .\n          pytest -q\n", "  py:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pip install -e . && pytest -q\n"),
        reformatted.to_owned(),
        WF.replace('\n', "\r\n"),
        format!("# Continuous integration.\n{WF}"),
    ] {
        assert_eq!(gh(&head), Vec::<String>::new(), "{head}");
    }
}

#[test]
fn merged_and_duplicated_runs() {
    let two = "on: [push, pull_request]\njobs:\n  unit:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest tests/a\n      - run: pytest tests/b\n  windows:\n    runs-on: windows-latest\n    steps:\n      - run: pytest tests/a\n";
    let f = |h: &str| -> Vec<String> {
        all(".github/workflows/ci.yml", Some(two), Some(h))
            .into_iter()
            .map(|f| f.detail)
            .collect()
    };
    // Merged into one broader command: covered.
    assert_eq!(
        f(&two.replace(
            "      - run: pytest tests/a\n      - run: pytest tests/b\n",
            "      - run: pytest tests/a tests/b\n"
        )),
        Vec::<String>::new()
    );
    // The same command left only in another job: the platform it ran on is gone.
    assert_eq!(
        f(&two.replace(
            "  windows:\n    runs-on: windows-latest\n    steps:\n      - run: pytest tests/a\n",
            ""
        )),
        ["job `windows` was removed; it ran `pytest tests/a`"]
    );
}

#[test]
fn unparseable_head_and_base() {
    let f = all(
        ".github/workflows/ci.yml",
        Some(WF),
        Some(&WF.replace("  go:\n", "  go:\n\t- bad\n  ]")),
    );
    assert_eq!(f.len(), 1);
    assert!(f[0].detail.starts_with("no longer parses as YAML"), "{f:?}");
    assert!(f[0].line.is_some());
    // A base that did not parse could not run.
    assert!(all(".github/workflows/ci.yml", Some("jobs: [\n"), Some(WF)).is_empty());
    assert!(all(".github/workflows/ci.yml", Some("jobs: [\n"), None).is_empty());
}

#[test]
fn lines_point_into_the_head() {
    let head = WF.replace("          pytest -q\n", "          pytest -q || true\n");
    let f = all(".github/workflows/ci.yml", Some(WF), Some(&head));
    assert_eq!(f[0].line, Some(17), "{f:?}");
    let head = WF.replace(
        "  test:\n    runs-on",
        "  test:\n    continue-on-error: true\n    runs-on",
    );
    let f = all(".github/workflows/ci.yml", Some(WF), Some(&head));
    assert_eq!(f[0].line, Some(8), "{f:?}");
    let head = WF.replace(
        "run: cargo test --workspace",
        "run: cargo test --workspace --lib",
    );
    let f = all(".github/workflows/ci.yml", Some(WF), Some(&head));
    assert_eq!(f[0].line, Some(13), "{f:?}");
}

#[test]
fn composite_actions_and_actions_rs() {
    let a = "name: test\nruns:\n  using: composite\n  steps:\n    - run: cargo test --workspace\n      shell: bash\n";
    let f = all(
        ".github/actions/test/action.yml",
        Some(a),
        Some(&a.replace("--workspace", "--workspace || true")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let rs = "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions-rs/cargo@v1\n        with:\n          command: test\n          args: --workspace\n";
    let f = all(
        ".github/workflows/ci.yml",
        Some(rs),
        Some(&rs.replace("args: --workspace", "args: --workspace --lib")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
}

const GITLAB: &str = "stages: [test]
variables:
  PIP_CACHE_DIR: .cache
.python:
  image: python:3.12
  before_script:
    - pip install -e .
unit:
  extends: .python
  stage: test
  script:
    - pytest -q
rust:
  image: rust:1
  script:
    - cargo test --workspace
  parallel:
    matrix:
      - TOOLCHAIN: [stable, beta]
";

fn gl(head: &str) -> Vec<String> {
    all(".gitlab-ci.yml", Some(GITLAB), Some(head))
        .into_iter()
        .map(|f| f.detail)
        .collect()
}

#[test]
fn gitlab() {
    for (from, to, want) in [
        (
            "    - pytest -q\n",
            "    - echo skipped\n",
            "test command removed: `pytest -q` (job `unit`)",
        ),
        (
            "unit:\n  extends: .python\n  stage: test\n  script:\n    - pytest -q\n",
            "",
            "job `unit` was removed",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  when: manual\n",
            "job `unit` never runs: `when: manual`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  when: never\n",
            "never runs: `when: never`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  rules:\n    - when: never\n",
            "never runs: `rules`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  rules:\n    - if: $CI_COMMIT_TAG\n      when: on_success\n    - when: never\n",
            "never runs",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  only: [tags]\n",
            "`only: [tags]`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  except: [branches]\n",
            "`except: [branches]`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  allow_failure: true\n",
            "job `unit` can no longer fail: `allow_failure: true`",
        ),
        (
            "  stage: test\n",
            "  stage: test\n  allow_failure:\n    exit_codes: [1, 2]\n",
            "can no longer fail",
        ),
        (
            "    - pytest -q\n",
            "    - pytest -q || true\n",
            "`|| true` after it",
        ),
        (
            "    - pytest -q\n",
            "    - echo build\n  after_script:\n    - pytest -q\n",
            "after_script",
        ),
        (
            "      - TOOLCHAIN: [stable, beta]\n",
            "      - TOOLCHAIN: [stable]\n",
            "the matrix of job `rust` shrank: it no longer runs `{TOOLCHAIN: beta}`",
        ),
    ] {
        let got = gl(&GITLAB.replace(from, to));
        assert_eq!(got.len(), 1, "{to}: {got:#?}");
        assert!(got[0].contains(want), "{to}: {got:#?}");
    }
    // The template a job extends, weakened.
    let got = gl(&GITLAB.replace(
        "    - pip install -e .\n",
        "    - pip install -e .\n    - exit 0\n",
    ));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("never runs"), "{got:#?}");
    let got = gl(&format!("workflow:\n  rules:\n    - when: never\n{GITLAB}"));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with("the pipeline never runs"), "{got:#?}");
    // Honest changes.
    for head in [
        GITLAB.replace("python:3.12", "python:3.13"),
        GITLAB.replace("  stage: test\n", "  stage: test\n  rules:\n    - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"\n    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH\n  cache:\n    paths: [.cache]\n"),
        GITLAB.replace("TOOLCHAIN: [stable, beta]", "TOOLCHAIN: [stable, beta, nightly]"),
        format!("{GITLAB}lint:\n  script:\n    - ruff check .\n  allow_failure: true\n"),
        GITLAB.replace("  stage: test\n", "  stage: test\n  only: [branches, merge_requests]\n  when: on_success\n"),
        GITLAB.replace("    - pytest -q\n", "    - pytest -q --junitxml=report.xml\n  artifacts:\n    reports:\n      junit: report.xml\n"),
    ] {
        assert_eq!(gl(&head), Vec::<String>::new(), "{head}");
    }
    // A file .gitlab-ci.yml includes.
    let inc = ".tests:\n  script:\n    - pytest -q\n";
    assert!(is_gitlab_include(
        "ci/tests.yml",
        Some(inc.as_bytes()),
        None
    ));
    assert!(!is_gitlab_include(
        "docker-compose.yml",
        Some(b"services:\n  db:\n    image: postgres\n"),
        None
    ));
    assert_eq!(
        all(
            "ci/tests.yml",
            Some(inc),
            Some(&inc.replace("pytest -q", "pytest -q || true"))
        )
        .len(),
        1
    );
}

#[test]
fn other_formats() {
    let circle = "version: 2.1\njobs:\n  test:\n    docker:\n      - image: cimg/python:3.12\n    steps:\n      - checkout\n      - run:\n          name: tests\n          command: pytest -q\nworkflows:\n  main:\n    jobs: [test]\n";
    let f = all(
        ".circleci/config.yml",
        Some(circle),
        Some(&circle.replace("pytest -q", "pytest -q || true")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        all(
            ".circleci/config.yml",
            Some(circle),
            Some(&circle.replace("cimg/python:3.12", "cimg/python:3.13"))
        )
        .is_empty()
    );
    let azure = "steps:\n  - script: cargo test --workspace\n    displayName: tests\n";
    let f = all(
        "azure-pipelines.yml",
        Some(azure),
        Some(&azure.replace("displayName", "continueOnError: true\n    displayName")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let bb = "pipelines:\n  default:\n    - step:\n        script:\n          - npm ci\n          - npm test\n";
    let f = all(
        "bitbucket-pipelines.yml",
        Some(bb),
        Some(&bb.replace("          - npm test\n", "")),
    );
    assert_eq!(f.len(), 1, "{f:?}");
    let jf = "pipeline {\n  agent any\n  stages {\n    stage('Test') {\n      steps {\n        sh 'go test ./...'\n      }\n    }\n  }\n}\n";
    for head in [
        jf.replace("sh 'go test ./...'", "sh(script: 'go test ./...', returnStatus: true)"),
        jf.replace("sh 'go test ./...'", "catchError(buildResult: 'SUCCESS', stageResult: 'FAILURE') {\n          sh 'go test ./...'\n        }"),
        jf.replace("sh 'go test ./...'", "sh 'go test ./... || true'"),
        jf.replace("sh 'go test ./...'", "sh 'go test -run TestOne ./...'"),
        jf.replace("sh 'go test ./...'", "echo 'skipped'"),
    ] {
        let f = all("Jenkinsfile", Some(jf), Some(&head));
        assert_eq!(f.len(), 1, "{head}: {f:?}");
    }
    assert!(
        all(
            "Jenkinsfile",
            Some(jf),
            Some(&jf.replace("agent any", "agent { label 'linux' }"))
        )
        .is_empty()
    );
    assert!(
        all(
            "Jenkinsfile",
            Some(jf),
            Some(&jf.replace(
                "sh 'go test ./...'",
                "sh \"\"\"\n          go test ./...\n        \"\"\""
            ))
        )
        .is_empty()
    );
}

#[test]
fn expressions() {
    for (e, v) in [
        ("false", Some(false)),
        ("${{ false }}", Some(false)),
        ("true && false", Some(false)),
        ("github.event_name == 'push'", Some(true)),
        ("github.event_name != 'push'", Some(false)),
        ("'a' == 'A'", Some(true)),
        ("1 == '1'", Some(true)),
        ("contains(github.ref, 'x')", None),
        ("matrix.x", None),
        ("matrix.x && false", Some(false)),
        ("matrix.x || true", Some(true)),
        ("(", None),
        ("'unterminated", None),
    ] {
        assert_eq!(eval_expr(e, Some("push")).truthy(), v, "{e}");
    }
}

/// One realistic multi-job change: what an agent is shown.
#[test]
fn snapshot_of_a_weakened_workflow() {
    let base = "name: CI
on:
  push:
    branches: [main]
  pull_request:
env:
  CARGO_TERM_COLOR: always
jobs:
  test:
    name: Test (${{ matrix.os }})
    runs-on: ${{ matrix.os }}
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest, macos-latest, windows-latest]
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - uses: Swatinem/rust-cache@v2
      - name: Build
        run: cargo build --workspace --locked
      - name: Unit tests
        run: cargo test --workspace --locked
      - name: Doc tests
        run: cargo test --doc --workspace
  python:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: '3.12'
      - run: pip install -e '.[test]'
      - name: pytest
        run: |
          pytest -q tests
  web:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: web
    steps:
      - uses: actions/checkout@v4
      - run: npm ci
      - run: npm test
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: cargo clippy --workspace -- -D warnings
";
    let head = base
        .replace("os: [ubuntu-latest, macos-latest, windows-latest]", "os: [ubuntu-latest]")
        .replace("run: cargo test --workspace --locked", "run: cargo test --workspace --locked --lib")
        .replace("      - name: Doc tests\n        run: cargo test --doc --workspace\n", "")
        .replace("          pytest -q tests\n", "          set +e\n          pytest -q tests\n          echo \"pytest finished\"\n")
        .replace("      - run: npm test\n", "      - run: npm test\n        continue-on-error: true\n")
        .replace("actions/checkout@v4", "actions/checkout@v5")
        .replace("  lint:\n", "  fmt:\n    runs-on: ubuntu-latest\n    steps:\n      - run: cargo fmt --check\n  lint:\n");
    let text: String = all(".github/workflows/ci.yml", Some(base), Some(&head))
        .iter()
        .map(|f| format!("{}\n", f.describe()))
        .collect();
    insta::assert_snapshot!(text);
}

proptest! {
    #[test]
    fn ci_weakenings_never_panic(
        path in prop::sample::select(vec![".github/workflows/ci.yml", ".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile", ".github/actions/a/action.yml", "ci/x.yml"]),
        base in prop::option::of(prop::collection::vec(any::<u8>(), 0..400)),
        head in prop::option::of(prop::collection::vec(any::<u8>(), 0..400)),
    ) {
        let _ = ci_weakenings(path, base.as_deref(), head.as_deref());
        let _ = is_gitlab_include(path, base.as_deref(), head.as_deref());
    }

    #[test]
    fn ci_weakenings_never_panic_on_yamlish_text(
        path in prop::sample::select(vec![".github/workflows/ci.yml", ".gitlab-ci.yml", "bitbucket-pipelines.yml", "Jenkinsfile"]),
        base in yamlish(),
        head in yamlish(),
    ) {
        let _ = ci_weakenings(path, Some(base.as_bytes()), Some(head.as_bytes()));
        let crlf = ci_weakenings(path, Some(base.replace('\n', "\r\n").as_bytes()), Some(head.replace('\n', "\r\n").as_bytes()));
        prop_assert_eq!(crlf, ci_weakenings(path, Some(base.as_bytes()), Some(head.as_bytes())));
        prop_assert!(ci_weakenings(path, Some(base.as_bytes()), Some(base.as_bytes())).is_empty());
    }
}

fn yamlish() -> impl Strategy<Value = String> {
    let lines = vec![
        "on: [push]",
        "on:",
        "  push:",
        "  pull_request:",
        "jobs:",
        "  test:",
        "    runs-on: x",
        "    if: false",
        "    continue-on-error: true",
        "    steps:",
        "      - run: cargo test",
        "      - run: pytest || true",
        "      - run: |",
        "          set +e",
        "          go test ./...",
        "          echo 'npm test'",
        "    strategy:",
        "      matrix:",
        "        os: [a, b]",
        "unit:",
        "  script:",
        "    - pytest -q",
        "  when: manual",
        "  allow_failure: true",
        "  rules:",
        "    - when: never",
        "sh 'go test ./...'",
        "stage('x') {",
        "}",
        "- [",
        "{",
        "&a",
        "<<: *a",
        "'\"",
        "\t",
        "    - if: '$X == \"y\"'",
        "  extends: .t",
        ".t:",
        "  parallel:",
        "    matrix:",
        "      - A: [1, 2]",
    ];
    prop::collection::vec(prop::sample::select(lines), 0..24).prop_map(|l| l.join("\n") + "\n")
}
