//! GitHub Actions: steps and jobs removed, disabled, made unable to fail or narrowed; matrices;
//! honest changes; composite actions and `actions-rs/cargo`.

use super::*;

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

#[test]
fn a_job_that_needs_a_job_that_never_runs_never_runs() {
    let base = "on: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test\n";
    let head = "on: [push, pull_request]\njobs:\n  gate:\n    if: github.event_name == 'release'\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ok\n  test:\n    needs: gate\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test\n";
    let found = all(".github/workflows/ci.yml", Some(base), Some(head));
    assert!(
        found
            .iter()
            .any(|f| f.detail.contains("`needs` job `gate`")),
        "{found:?}"
    );
    // `if: always()` runs the job whatever its needs did.
    let always = head.replace("    needs: gate\n", "    needs: gate\n    if: always()\n");
    assert!(all(".github/workflows/ci.yml", Some(base), Some(&always)).is_empty());
}
