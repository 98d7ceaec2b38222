//! The CI rules: one case per cheat and per honest change, per format.
//!
//! The shared fixture and helpers are here, with the report snapshot and the properties; the cases
//! are in one file per format:
//! - `github`: GitHub Actions workflows and composite actions;
//! - `gitlab`: GitLab CI;
//! - `other`: the other YAML formats and `Jenkinsfile`;
//! - `expr`: GitHub `if:` expressions.

mod expr;
mod github;
mod gitlab;
mod other;

use proptest::prelude::*;

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
