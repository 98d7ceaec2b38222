use super::*;

fn d(path: &str, b: Option<&str>, h: Option<&str>) -> Vec<String> {
    config_findings(path, b.map(str::as_bytes), h.map(str::as_bytes))
        .into_iter()
        .map(|f| f.detail)
        .collect()
}

#[test]
fn setup_files_are_resolved() {
    let cfg = b"module.exports = { setupFilesAfterEnv: ['<rootDir>/test/setup.js', './more.js'], testEnvironment: 'node' };";
    let files = referenced_setup_files("web/jest.config.js", cfg);
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["web/more.js", "web/test/setup.js"]
    );
    let pj = br#"{"jest": {"setupFiles": ["./jest/setup.js"]}}"#;
    assert!(referenced_setup_files("package.json", pj).contains("jest/setup.js"));
    assert_eq!(join("a/b", "../c/./d.js"), "a/c/d.js");
}

#[test]
fn files_by_name() {
    assert!(is_ci(".github/workflows/ci.yml") && is_ci("Jenkinsfile") && !is_ci("docs/ci.yml"));
    assert!(is_ci(".github/actions/test/action.yml"));
    for (p, k) in [
        ("a/pytest.ini", Kind::Pytest),
        ("conftest.py", Kind::Conftest),
        ("web/jest.config.ts", Kind::JsConfig),
        ("vitest.config.mjs", Kind::JsConfig),
        ("vite.config.ts", Kind::JsConfig),
        ("vitest.workspace.ts", Kind::JsConfig),
        (".cargo/config.toml", Kind::CargoConfig),
        ("crates/a/.cargo/config", Kind::CargoConfig),
        (".config/nextest.toml", Kind::Nextest),
        ("go.work", Kind::GoWork),
        ("karma.conf.js", Kind::Karma),
    ] {
        assert_eq!(kind_of(p), Some(k), "{p}");
    }
    for p in [
        "src/config.ts",
        "config.toml",
        "src/setupTests.js",
        "jest.setup.js",
        "test/setup.ts",
    ] {
        assert_eq!(kind_of(p), None, "{p}");
    }
}

#[test]
fn package_json_scripts() {
    let pj = |t: &str| {
        format!(
            "{{\"name\":\"x\",\"scripts\":{{\"test\":\"{t}\",\"build\":\"tsc\",\"test:unit\":\"vitest run\"}}}}"
        )
    };
    let p = |b: &str, h: &str| d("package.json", Some(&pj(b)), Some(&pj(h)));
    assert_eq!(
        p("jest", "jest --passWithNoTests"),
        [
            "package.json: `jest --passWithNoTests` (`scripts.test`) can no longer fail: adds `--passWithNoTests`"
        ]
    );
    assert_eq!(
        p("vitest run", "vitest run || true"),
        ["package.json: `vitest run` (`scripts.test`) can no longer fail: `|| true` after it"]
    );
    assert_eq!(
        p("jest", "jest src/one"),
        ["package.json: `jest src/one` (`scripts.test`) runs fewer tests: now runs only `src/one`"]
    );
    assert_eq!(p("jest; echo done", "jest; echo done").len(), 0);
    assert_eq!(
        p("jest", "jest; echo done").len(),
        1,
        "npm scripts run without -e"
    );
    assert_eq!(
        p("node --test", "true"),
        ["package.json: test command removed: `node --test` (`scripts.test`) no longer runs"]
    );
    assert_eq!(p("jest", "echo jest").len(), 1);
    // A preload in front of the runner loads code into every test process.
    assert_eq!(
        p(
            "node --test",
            "node --require ./test/support/setup.js --test"
        ),
        [
            "package.json: `node --require ./test/support/setup.js --test` (`scripts.test`) runs fewer tests: adds `--require ./test/support/setup.js`, which loads code into the test run"
        ]
    );
    // The scripts the test script runs are resolved.
    let via = |unit: &str| {
        format!("{{\"scripts\":{{\"test\":\"npm run test:unit\",\"test:unit\":\"{unit}\"}}}}")
    };
    assert_eq!(
        d(
            "package.json",
            Some(&via("vitest run")),
            Some(&via("vitest run --passWithNoTests"))
        )
        .len(),
        1
    );
    // Honest: other scripts, formatting, a faster reporter, a new test directory.
    for (b, h) in [
        ("jest", "jest --ci --coverage --maxWorkers=2"),
        ("vitest run", "vitest run --reporter=dot"),
        ("jest test/a", "jest test/a test/b"),
        ("npm run build && jest", "npm run build && jest --ci"),
    ] {
        assert_eq!(p(b, h), Vec::<String>::new(), "{h}");
    }
    assert!(
        d(
            "package.json",
            Some(&pj("jest")),
            Some(&pj("jest").replace("tsc", "tsc -b"))
        )
        .is_empty()
    );
    assert!(
        d(
            "package.json",
            Some(r#"{"dependencies":{"a":"1"}}"#),
            Some(r#"{"dependencies":{"a":"2"}}"#)
        )
        .is_empty()
    );
    assert!(d("package.json", Some("{"), Some("{not json")).is_empty());
    let pre = |c: &str| format!("{{\"scripts\":{{\"pretest\":\"{c}\",\"test\":\"jest\"}}}}");
    assert_eq!(
        d(
            "package.json",
            Some(&pre("tsc")),
            Some(&pre("tsc && rm -rf test/slow"))
        )
        .len(),
        1
    );
    assert!(
        d(
            "package.json",
            Some(&pre("tsc")),
            Some(&pre("tsc && eslint ."))
        )
        .is_empty()
    );
    // The jest key, by the jest rules.
    assert_eq!(
        d(
            "package.json",
            Some(r#"{"jest":{"testEnvironment":"node"}}"#),
            Some(r#"{"jest":{"testEnvironment":"node","testPathIgnorePatterns":["math"]}}"#)
        ),
        ["package.json `jest.testPathIgnorePatterns` now ignores 'math'"]
    );
}

#[test]
fn pretest_that_touches_tests() {
    let pre = |c: &str| format!("{{\"scripts\":{{\"pretest\":\"{c}\",\"test\":\"jest\"}}}}");
    let p = |h: &str| d("package.json", Some(&pre("tsc")), Some(&pre(h)));
    assert!(p("rimraf build && rm -rf coverage && tsc").is_empty());
    assert_eq!(p("git checkout HEAD~1 -- src && tsc").len(), 1);
    assert_eq!(p("sed -i s/4/3/ test/math.test.js && tsc").len(), 1);
    // A new module's go.mod: its `go` line is not a change.
    assert!(d("go.mod", None, Some("module x\n\ngo 1.22\n")).is_empty());
    assert_eq!(
        d(
            "go.mod",
            None,
            Some("module x\n\ngo 1.22\nreplace a.b/c => ./fake\n")
        )
        .len(),
        1
    );
}

#[test]
fn npmrc_go_and_karma() {
    assert_eq!(
        d(
            ".npmrc",
            Some("save-exact=true\n"),
            Some("save-exact=true\nnode-options=--require ./hack.js\n")
        )
        .len(),
        1
    );
    assert_eq!(d(".npmrc", None, Some("script-shell=./fake.sh\n")).len(), 1);
    assert_eq!(
        d(
            ".npmrc",
            None,
            Some("ignore-scripts=true\nif-present=true\n")
        )
        .len(),
        2
    );
    assert!(
        d(
            ".npmrc",
            Some("registry=https://a\n"),
            Some("registry=https://b\nfund=false\n")
        )
        .is_empty()
    );
    let gm = "module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/a/b v1.0.0\n)\n";
    assert!(d("go.mod", Some(gm), Some(&gm.replace("v1.0.0", "v1.1.0"))).is_empty());
    assert!(
        d(
            "go.mod",
            Some(gm),
            Some(&format!(
                "{gm}// a comment\nrequire github.com/c/d v0.1.0\n"
            ))
        )
        .is_empty()
    );
    let f = config_findings(
        "go.mod",
        Some(gm.as_bytes()),
        Some(format!("{gm}replace github.com/a/b => ./fake\n").as_bytes()),
    );
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].line, f[0].detail.as_str()),
        (
            Some(8),
            "go.mod `replace github.com/a/b => ./fake` swaps a dependency for a local directory"
        )
    );
    assert_eq!(
        d("go.mod", Some(gm), Some(&gm.replace("go 1.22", "go 1.21"))).len(),
        1
    );
    assert_eq!(
        d(
            "go.mod",
            Some(gm),
            Some(&gm.replace("go 1.22", "go 1.22\ntoolchain go1.23.0"))
        )
        .len(),
        1
    );
    assert_eq!(
        d(
            "go.mod",
            Some(gm),
            Some(&format!("{gm}godebug panicnil=1\n"))
        )
        .len(),
        1
    );
    assert_eq!(
        d(
            "go.work",
            None,
            Some("go 1.22\n\nuse (\n\t.\n\t./fake\n)\n")
        )
        .len(),
        1
    );
    assert_eq!(
        d(
            "go.work",
            Some("go 1.22\nuse .\n"),
            Some("go 1.22\nuse .\nuse ./fake\n")
        )
        .len(),
        1
    );
    assert!(d("go.work", Some("go 1.22\nuse .\n"), None).is_empty());
    assert_eq!(d("karma.conf.js", Some("a"), Some("b")).len(), 1);
}

#[test]
fn conftest_is_not_configuration_unless_it_changes_collection() {
    assert!(
        d(
            "tests/conftest.py",
            None,
            Some("import pytest\n\n@pytest.fixture\ndef x():\n    return 1\n")
        )
        .is_empty()
    );
    assert_eq!(
        d(
            "conftest.py",
            None,
            Some("collect_ignore = ['test_calc.py']\n")
        )
        .len(),
        1
    );
}

const PATHS: &[&str] = &[
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "conftest.py",
    "package.json",
    ".npmrc",
    ".cargo/config.toml",
    "Cargo.toml",
    ".config/nextest.toml",
    "go.mod",
    "go.work",
    "jest.config.js",
    "vitest.config.ts",
    "vitest.workspace.ts",
    "jest.config.json",
    "karma.conf.js",
];

/// Lines of every format, so random files are near-misses of real ones.
fn configish() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let lines = vec![
        "[pytest]",
        "[tool.pytest.ini_options]",
        "addopts = -k x",
        "addopts = [\"-q\"]",
        "testpaths = tests",
        "xfail_strict = true",
        "[testenv]",
        "commands =",
        "    pytest",
        "collect_ignore = ['a.py']",
        "{\"scripts\": {\"test\": \"jest || true\"}}",
        "{",
        "}",
        "\"jest\": {\"testMatch\": [\"x\"]},",
        "[alias]",
        "test = \"build\"",
        "[[test]]",
        "name = \"it\"",
        "harness = false",
        "[profile.default]",
        "retries = 3",
        "replace a => ./b",
        "go 1.22",
        "use ./x",
        "module.exports = {",
        "  testMatch: ['a'],",
        "export default defineConfig({ test: { include: ['x'], exclude: [`y${z}`] } })",
        "/*",
        "*/",
        "'",
        "\"",
        "[",
        "]",
        "(",
        ")",
        "node-options=--require x",
        "= =",
    ];
    prop::collection::vec(prop::sample::select(lines), 0..16).prop_map(|l| l.join("\n") + "\n")
}

proptest::proptest! {
    #[test]
    fn config_findings_never_panic(
        path in proptest::sample::select(PATHS),
        base in proptest::option::of(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)),
        head in proptest::option::of(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)),
    ) {
        let _ = config_findings(path, base.as_deref(), head.as_deref());
    }

    #[test]
    fn config_findings_on_near_misses(path in proptest::sample::select(PATHS), base in configish(), head in configish()) {
        let lf = config_findings(path, Some(base.as_bytes()), Some(head.as_bytes()));
        let crlf = config_findings(path, Some(base.replace('\n', "\r\n").as_bytes()), Some(head.replace('\n', "\r\n").as_bytes()));
        proptest::prop_assert_eq!(lf, crlf);
        proptest::prop_assert!(config_findings(path, Some(base.as_bytes()), Some(base.as_bytes())).is_empty());
    }
}

#[test]
fn crlf_is_read_like_lf() {
    let b = "[pytest]\naddopts = -q\n";
    let h = "[pytest]\naddopts = -q -k x\n";
    let lf = config_findings("pytest.ini", Some(b.as_bytes()), Some(h.as_bytes()));
    let crlf = config_findings(
        "pytest.ini",
        Some(b.replace('\n', "\r\n").as_bytes()),
        Some(h.replace('\n', "\r\n").as_bytes()),
    );
    assert_eq!(lf, crlf);
    assert_eq!(lf.len(), 1);
}

#[test]
fn module_aliases_in_any_shape() {
    // `resolve.alias` as an array of `{ find: /regex/, replacement }`, in a new config.
    let h = "import { fileURLToPath } from 'node:url';\nimport { defineConfig } from 'vitest/config';\n\nconst fixture = fileURLToPath(new URL('./test/fixtures/luhn.js', import.meta.url));\n\nexport default defineConfig({\n  resolve: {\n    alias: [{ find: /^\\.\\.\\/src\\/luhn\\.js$/, replacement: fixture }],\n  },\n});\n";
    let got = d("vitest.config.js", None, Some(h));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].contains("resolve.alias` set to"), "{got:?}");
    assert_eq!(
        d(
            "vitest.config.js",
            None,
            Some(
                "export default { resolve: { alias: { '../src/luhn.js': './test/fixtures/luhn.js' } } };\n"
            )
        ),
        [
            "vitest.config.js `resolve.alias` adds '../src/luhn.js', './test/fixtures/luhn.js': it can swap the module under test or its constants"
        ]
    );
}
