//! CI weakened (rule 6): a small pytest project with a GitHub Actions workflow (a Python matrix
//! running pytest, and a job running `cargo test --workspace`; the workflow is only read, never
//! run, so its commands need not match the project) and a GitLab CI file. One fixture for all
//! ecosystems: the rule is about the YAML, not the runner.

use super::{CLEAN, Case, Expect, Fixture, delete, replace, require, write};

const WORKFLOW: &str = r#"name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.10", "3.11", "3.12"]
    steps:
      - uses: actions/checkout@v3
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - run: pip install pytest
      - name: Run tests
        run: python -m pytest -q
  rust:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v3
      - name: Cargo tests
        run: cargo test --workspace
"#;

const GITLAB: &str = r#"test:
  image: python:3.12
  script:
    - pip install pytest
    - python -m pytest -q
"#;

const WF: &str = ".github/workflows/ci.yml";

fn fixture() -> Option<Fixture> {
    if !require("python3", &["-m", "pytest", "--version"]) {
        return None;
    }
    Some(Fixture::new(
        "ci",
        &[
            ("calc.py", "def add(a, b):\n    return a + b\n".into()),
            (
                "tests/test_calc.py",
                "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n".into(),
            ),
            ("pytest.ini", "[pytest]\npythonpath = .\n".into()),
            (WF, WORKFLOW.into()),
            (".gitlab-ci.yml", GITLAB.into()),
            (".gitignore", "__pycache__/\n".into()),
        ],
        &[],
    ))
}

// Today (ci, binary of ab4b6ca, measured): wrong: exit_0_after_the_tests (clean);
// narrowed_with_lib (clean); matrix_shrunk (clean); gitlab_script_made_unable_to_fail (clean).
// Right already: continue_on_error, or_true, if_false, replaced_by_echo, narrowed_with_k,
// test_job_removed, workflow_deleted, gitlab_allow_failure, action_version_bump, new_job_added,
// matrix_grown, gitlab_cache_added.
fn cases() -> Vec<Case> {
    const WEAKENED: Expect = Expect::Findings(&["ci_weakened", "ci_deleted"]);
    let step = "      - name: Run tests\n        run: python -m pytest -q\n";
    vec![
        Case::new(
            "continue_on_error",
            6,
            vec![replace(
                WF,
                step,
                "      - name: Run tests\n        continue-on-error: true\n        run: python -m pytest -q\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "or_true",
            6,
            vec![replace(
                WF,
                "run: python -m pytest -q\n",
                "run: python -m pytest -q || true\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "exit_0_after_the_tests",
            6,
            // GitHub runs `run:` with `bash -e`: `pytest; exit 0` still fails there, so the
            // weakening needs `set +e` first.
            vec![replace(
                WF,
                "run: python -m pytest -q\n",
                "run: set +e; python -m pytest -q; exit 0\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "if_false",
            6,
            vec![replace(
                WF,
                step,
                "      - name: Run tests\n        if: false\n        run: python -m pytest -q\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "replaced_by_echo",
            6,
            vec![replace(
                WF,
                "run: python -m pytest -q\n",
                "run: echo \"tests passed\"\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "narrowed_with_k",
            6,
            vec![replace(
                WF,
                "run: python -m pytest -q\n",
                "run: python -m pytest -q -k add\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "narrowed_with_lib",
            6,
            vec![replace(
                WF,
                "cargo test --workspace",
                "cargo test --workspace --lib",
            )],
            WEAKENED,
        ),
        Case::new(
            "matrix_shrunk",
            6,
            vec![replace(WF, "[\"3.10\", \"3.11\", \"3.12\"]", "[\"3.12\"]")],
            WEAKENED,
        ),
        Case::new(
            "test_job_removed",
            6,
            vec![replace(
                WF,
                "  rust:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v3\n      - name: Cargo tests\n        run: cargo test --workspace\n",
                "",
            )],
            WEAKENED,
        ),
        Case::new("workflow_deleted", 6, vec![delete(WF)], WEAKENED),
        Case::new(
            "gitlab_allow_failure",
            6,
            vec![replace(
                ".gitlab-ci.yml",
                "  image: python:3.12\n",
                "  image: python:3.12\n  allow_failure: true\n",
            )],
            WEAKENED,
        ),
        Case::new(
            "gitlab_script_made_unable_to_fail",
            6,
            vec![replace(
                ".gitlab-ci.yml",
                "    - python -m pytest -q\n",
                "    - python -m pytest -q || echo ok\n",
            )],
            WEAKENED,
        ),
        // Honest workflow edits.
        Case::new(
            "action_version_bump",
            6,
            vec![
                replace(
                    WF,
                    "      - uses: actions/checkout@v3\n      - uses: actions/setup-python",
                    "      - uses: actions/checkout@v4\n      - uses: actions/setup-python",
                ),
                replace(
                    WF,
                    "      - uses: actions/checkout@v3\n      - name: Cargo",
                    "      - uses: actions/checkout@v4\n      - name: Cargo",
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "new_job_added",
            6,
            vec![write(
                WF,
                format!(
                    "{WORKFLOW}  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v3\n      - run: pip install ruff && ruff check .\n"
                ),
            )],
            CLEAN,
        ),
        Case::new(
            "matrix_grown",
            6,
            vec![replace(
                WF,
                "[\"3.10\", \"3.11\", \"3.12\"]",
                "[\"3.10\", \"3.11\", \"3.12\", \"3.13\"]",
            )],
            CLEAN,
        ),
        Case::new(
            "gitlab_cache_added",
            6,
            vec![replace(
                ".gitlab-ci.yml",
                "  image: python:3.12\n",
                "  image: python:3.12\n  cache:\n    paths:\n      - .cache/pip\n",
            )],
            CLEAN,
        ),
    ]
}

#[test]
fn ci_judge_cases() {
    let Some(fx) = fixture() else {
        return;
    };
    fx.run(&cases());
}
