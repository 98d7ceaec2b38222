//! GitLab CI: jobs, `extends`, `rules`, `only`/`except`, `when`, `allow_failure`.

use super::*;

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
