use std::collections::BTreeMap;

use super::args::compare_args;
use super::env::env_changes;
use super::identify::identify;
use super::*;
use crate::shell::split_words;

fn w(s: &str) -> Vec<String> {
    split_words(s)
}

fn id(s: &str) -> Option<(String, Vec<String>)> {
    identify(&w(s), &[]).map(|c| (c.tool, c.args))
}

fn changes(base: &str, head: &str) -> Vec<String> {
    changes_in(base, head, Mode::Ci)
}

fn changes_in(base: &str, head: &str, mode: Mode) -> Vec<String> {
    let (Some(b), Some(h)) = (identify(&w(base), &[]), identify(&w(head), &[])) else {
        return vec!["not a test command".into()];
    };
    assert_eq!(b.tool, h.tool, "{base} / {head}");
    compare_args(b.spec, &b.args, &h.args, mode)
        .into_iter()
        .map(|c| c.text)
        .collect()
}

#[test]
fn recognises_test_commands() {
    for (cmd, tool) in [
        ("cargo test --workspace", "cargo test"),
        ("cargo +nightly --locked test", "cargo test"),
        ("cargo nextest run --workspace", "cargo nextest run"),
        ("cargo llvm-cov --workspace --lcov", "cargo test"),
        ("cargo llvm-cov nextest", "cargo nextest run"),
        ("cargo hack --each-feature test", "cargo test"),
        ("cargo insta test", "cargo test"),
        ("pytest -q", "pytest"),
        ("python -m pytest tests", "pytest"),
        ("python3 -X dev -m pytest", "pytest"),
        ("uv run --frozen pytest", "pytest"),
        ("poetry run python -m pytest", "pytest"),
        ("coverage run -m pytest", "pytest"),
        ("timeout 600 xvfb-run -a pytest", "pytest"),
        ("env CI=1 pytest", "pytest"),
        ("tox -e py311", "tox"),
        ("nox -s tests", "nox"),
        ("go test ./...", "go test"),
        ("gotestsum -- ./...", "go test"),
        ("npm test", "script test"),
        ("npm run test:unit", "script test:unit"),
        ("pnpm --filter web test", "script test"),
        ("pnpm test:e2e", "script test:e2e"),
        ("yarn test", "script test"),
        ("yarn workspace web test", "script test"),
        ("npx vitest run", "vitest"),
        ("./node_modules/.bin/jest --ci", "jest"),
        ("node --test test/", "node --test"),
        ("make test", "make test"),
        ("cross-env NODE_ENV=test jest --ci", "jest"),
        ("nyc --reporter=lcov mocha", "mocha"),
        ("c8 node --test", "node --test"),
        ("node test/run.js", "node test/run.js"),
        ("node --expose-gc test", "node test"),
        (
            "node --experimental-vm-modules node_modules/jest/bin/jest.js",
            "jest",
        ),
        ("pnpm run -r test", "script test"),
        ("cargo make test", "cargo make test"),
        ("make ci", "make ci"),
        ("faketty cargo test -- --nocapture", "cargo test"),
        ("hatch run test:cov", "hatch run test:cov"),
        ("hatch run pytest -x", "pytest"),
        ("bats/bin/bats --tap test", "bats"),
        ("./scripts/test.sh --all", "./scripts/test.sh"),
        ("bash ci/run-tests.sh", "ci/run-tests.sh"),
        ("python tools/run_tests.py", "tools/run_tests.py"),
        ("just test-all", "just test-all"),
        ("python -m unittest discover", "unittest"),
    ] {
        assert_eq!(id(cmd).map(|(t, _)| t).as_deref(), Some(tool), "{cmd}");
    }
    for cmd in [
        "cargo build",
        "cargo nextest list",
        "npm run build",
        "echo cargo test",
        "pip install pytest",
        "python setup.py build",
        "go vet ./...",
        "vitest bench",
        "make lint",
        "node index.js",
        "npm install",
        "./scripts/build.sh",
        "bash -c 'echo hi'",
        "cat tests/data.txt",
    ] {
        assert!(id(cmd).is_none(), "{cmd}");
    }
}

#[test]
fn narrowing_arguments() {
    assert_eq!(
        changes("cargo test --workspace", "cargo test --workspace --lib"),
        ["now selects only `--lib` (it ran all targets)"]
    );
    assert_eq!(
        changes("cargo test --workspace", "cargo test -p core"),
        [
            "drops `--workspace`",
            "now selects only `-p core` (it ran all packages)"
        ]
    );
    assert_eq!(
        changes("cargo test --all", "cargo test --workspace"),
        Vec::<String>::new()
    );
    assert_eq!(
        changes(
            "cargo test --workspace",
            "cargo test --workspace --exclude cli"
        ),
        ["adds `--exclude cli`"]
    );
    assert_eq!(
        changes(
            "cargo test --workspace",
            "cargo test --workspace -- --skip slow"
        ),
        ["adds `--skip slow`"]
    );
    assert_eq!(
        changes("cargo test", "cargo test parse"),
        ["now runs only `parse`"]
    );
    assert_eq!(
        changes("cargo test --all-features", "cargo test"),
        ["drops `--all-features`"]
    );
    assert_eq!(
        changes("cargo test --features a,b", "cargo test --features a"),
        ["drops `--features b`"]
    );
    assert_eq!(
        changes("cargo test", "cargo test --no-run"),
        ["adds `--no-run`, so no test runs"]
    );
    assert_eq!(
        changes("cargo nextest run", "cargo nextest run -E 'not test(slow)'"),
        ["adds `-E 'not test(slow)'`"]
    );
    assert_eq!(
        changes("cargo nextest run", "cargo nextest run --retries 3")[0]
            .split(':')
            .next(),
        Some("adds `--retries 3`")
    );
    assert_eq!(
        changes("pytest", "pytest -k 'not db'"),
        ["adds `-k 'not db'`"]
    );
    assert_eq!(
        changes("pytest -k 'not slow'", "pytest -k 'not slow'"),
        Vec::<String>::new()
    );
    assert_eq!(
        changes(
            "pytest",
            "pytest -m 'not integration' --deselect tests/a.py::t"
        ),
        [
            "adds `--deselect tests/a.py::t`",
            "adds `-m 'not integration'`"
        ]
    );
    assert_eq!(
        changes("pytest", "pytest --ignore=tests/slow"),
        ["adds `--ignore tests/slow`"]
    );
    assert_eq!(
        changes("pytest", "pytest tests/unit"),
        ["now runs only `tests/unit`"]
    );
    assert_eq!(
        changes("pytest tests/a tests/b", "pytest tests/a"),
        ["no longer runs `tests/b`"]
    );
    assert_eq!(
        changes("pytest tests/unit", "pytest tests"),
        Vec::<String>::new()
    );
    assert_eq!(
        changes("pytest", "pytest --co"),
        ["adds `--co`, so no test runs"]
    );
    assert_eq!(
        changes("pytest", "pytest -p no:doctest"),
        ["adds `-p no:doctest`, which disables pytest's `doctest` plugin"]
    );
    assert_eq!(
        changes("go test ./...", "go test ./pkg/one"),
        ["no longer tests the packages `./...`"]
    );
    assert_eq!(
        changes("go test ./...", "go test -run TestOne ./..."),
        ["adds `-run TestOne`"]
    );
    assert_eq!(
        changes("go test -race ./...", "go test ./..."),
        ["drops `-race`"]
    );
    assert_eq!(
        changes("go test ./...", "go test -short ./..."),
        ["adds `-short`"]
    );
    assert_eq!(changes("go test .", "go test ./..."), Vec::<String>::new());
    assert_eq!(
        changes("vitest run", "vitest run src/one.test.ts"),
        ["now runs only `src/one.test.ts`"]
    );
    assert_eq!(changes("jest", "jest -t adds"), ["adds `-t adds`"]);
    assert_eq!(
        changes("jest", "jest --testPathPattern=math"),
        ["adds `--testPathPattern math`"]
    );
    assert_eq!(
        changes("jest", "jest --passWithNoTests"),
        ["adds `--passWithNoTests`"]
    );
    assert_eq!(changes("vitest run", "vitest run -u"), ["adds `-u`"]);
    assert_eq!(
        changes("npm test", "npm test -- -t adds"),
        ["adds `-t adds`"]
    );
    assert_eq!(
        changes("pnpm -r test", "pnpm --filter web test"),
        [
            "drops `-r`",
            "now selects only `--filter web` (it ran all packages)"
        ]
    );
    assert_eq!(
        changes("tox", "tox -e lint"),
        ["now selects only `-e lint` (it ran all envs)"]
    );
    assert_eq!(
        changes("tox -e py39,py310", "tox -e py310"),
        ["no longer selects `-e py39`"]
    );
    assert_eq!(
        changes("tox -e py310", "tox -e py39,py310"),
        Vec::<String>::new()
    );
    assert_eq!(changes("make test", "make -i test"), ["adds `-i`"]);
    // Options that only change how results are shown or how fast they come.
    for (b, h) in [
        (
            "cargo test --workspace",
            "cargo test --workspace --locked -q --release -j 2 -- --nocapture --test-threads=1",
        ),
        (
            "pytest",
            "pytest -ra -v --tb=short --durations=10 -n auto --strict-markers -x",
        ),
        (
            "go test ./...",
            "go test -v -count=1 -timeout 10m -json ./...",
        ),
        (
            "vitest run",
            "vitest run --coverage --reporter=verbose --bail 1",
        ),
        (
            "cargo test ${{ matrix.flags }}",
            "cargo test ${{ matrix.other }}",
        ),
        ("pytest --runxfail", "pytest"),
        ("cargo test -p a", "cargo test -p a -p b"),
    ] {
        assert_eq!(changes(b, h), Vec::<String>::new(), "{b} -> {h}");
    }
    // In test configuration, stopping early hides tests from the judge.
    assert_eq!(changes_in("pytest", "pytest -x", Mode::Config).len(), 1);
}

#[test]
fn environment() {
    let m = |kv: &[(&str, &str)]| {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>()
    };
    let c = env_changes(
        &m(&[]),
        &m(&[("PYTEST_ADDOPTS", "-k 'not slow'"), ("RUST_LOG", "debug")]),
    );
    assert_eq!(c.len(), 1);
    assert!(c[0].text.starts_with("PYTEST_ADDOPTS: adds `-k"), "{c:?}");
    assert_eq!(
        env_changes(&m(&[]), &m(&[("INSTA_UPDATE", "always")]))[0].cat,
        Cat::CannotFail
    );
    assert_eq!(
        env_changes(&m(&[]), &m(&[("RUSTFLAGS", "--cfg fake")])).len(),
        1
    );
    assert!(env_changes(&m(&[]), &m(&[("RUSTFLAGS", "-D warnings")])).is_empty());
    assert!(
        env_changes(
            &m(&[("RUSTFLAGS", "--cfg x")]),
            &m(&[("RUSTFLAGS", "--cfg x -D warnings")])
        )
        .is_empty()
    );
}
