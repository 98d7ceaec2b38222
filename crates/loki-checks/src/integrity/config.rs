//! Test configuration and CI rules: which files configure how tests run, and which edits to a CI
//! workflow stop it from proving anything.

use std::collections::BTreeSet;

use super::lex::{Lang, lex, normalize};

/// A CI configuration file, by path.
pub(crate) fn is_ci(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
    (yaml && path.starts_with(".github/workflows/"))
        || path == ".gitlab-ci.yml"
        || path == ".circleci/config.yml"
        || path == "azure-pipelines.yml"
        || path == "bitbucket-pipelines.yml"
        || name == "Jenkinsfile"
}

/// Files whose every change is a test-configuration change, with the reason shown in a finding.
pub(crate) fn whole_file_config(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    if name == "conftest.py" {
        Some("pytest conftest.py")
    } else if name == "pytest.ini" {
        Some("pytest configuration")
    } else if matches!(stem, "jest" | "vitest" | "karma") && name.contains(".config.")
        || name.starts_with("vitest.workspace.")
    {
        Some("JS test runner configuration")
    } else if matches!(stem, "jest" | "vitest") && name.contains(".setup.")
        || matches!(
            stem,
            "setupTests" | "setup-tests" | "test-setup" | "testSetup"
        )
    {
        Some("JS test setup file")
    } else if path == ".cargo/config.toml"
        || path == ".cargo/config"
        || path.ends_with("/.cargo/config.toml")
    {
        Some("cargo configuration")
    } else if path.ends_with(".config/nextest.toml") || name == "nextest.toml" {
        Some("nextest configuration")
    } else {
        None
    }
}

/// Lines of INI/TOML sections whose header starts with one of `headers`, comments and blank lines
/// dropped, so reformatting elsewhere in the file is not a test-config change.
fn sections(text: &str, headers: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = headers.iter().any(|h| t.starts_with(h));
            if inside {
                out.push(t.to_owned());
            }
            continue;
        }
        if inside && !t.is_empty() && !t.starts_with('#') && !t.starts_with(';') {
            out.push(t.to_owned());
        }
    }
    out
}

/// For files where only part matters: what changed, in words, or `None` when the test part is equal.
pub(crate) fn partial_config_change(path: &str, base: &[u8], head: &[u8]) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (b, h) = (normalize(base), normalize(head));
    let section = |headers: &[&str], what: &str| {
        (sections(&b, headers) != sections(&h, headers)).then(|| format!("{what} changed"))
    };
    match name {
        "tox.ini" => section(&["[pytest]"], "the [pytest] section of tox.ini"),
        "setup.cfg" => section(&["[tool:pytest]"], "the [tool:pytest] section of setup.cfg"),
        "pyproject.toml" => section(
            &["[tool.pytest"],
            "the [tool.pytest] section of pyproject.toml",
        ),
        "go.mod" => go_mod_change(&b, &h),
        "package.json" => package_json_change(&b, &h),
        _ => None,
    }
}

/// go.mod has no test flags; what changes how tests build is everything except dependency
/// versions (`replace` can swap a module for a local fake, `go`/`toolchain`/`godebug` change
/// semantics). So any change outside `require` directives is flagged; a dependency bump is not.
fn go_mod_change(base: &str, head: &str) -> Option<String> {
    fn non_require(text: &str) -> Vec<String> {
        let code = lex(text, Lang::Go).code;
        let mut out = Vec::new();
        let mut in_require = false;
        for line in code.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if in_require {
                in_require = line != ")";
                continue;
            }
            if line.starts_with("require") {
                in_require = line.ends_with('(');
                continue;
            }
            out.push(line.to_owned());
        }
        out
    }
    (non_require(base) != non_require(head)).then(|| {
        "go.mod changed outside its require directives (replace, go, toolchain or godebug)".into()
    })
}

/// The parts of package.json that decide how tests run.
const PACKAGE_TEST_KEYS: &[&str] = &[
    "/scripts/test",
    "/scripts/pretest",
    "/scripts/posttest",
    "/jest",
];

fn package_json_change(base: &str, head: &str) -> Option<String> {
    let (Ok(b), Ok(h)) = (
        serde_json::from_str::<serde_json::Value>(base),
        serde_json::from_str::<serde_json::Value>(head),
    ) else {
        // An unparseable package.json cannot run a test script at all; the suite says so.
        return None;
    };
    let changed: Vec<&str> = PACKAGE_TEST_KEYS
        .iter()
        .copied()
        .filter(|k| b.pointer(k) != h.pointer(k))
        .collect();
    (!changed.is_empty()).then(|| {
        format!(
            "package.json {} changed",
            changed
                .iter()
                .map(|k| k.trim_start_matches('/').replace('/', "."))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Keys of jest/vitest configuration whose values name setup files.
const SETUP_KEYS: &[&str] = &[
    "setupFiles",
    "setupFilesAfterEnv",
    "globalSetup",
    "globalTeardown",
    "testEnvironment",
];

/// Setup files a jest/vitest config or a package.json `jest` key names, as repository paths.
pub(crate) fn referenced_setup_files(path: &str, bytes: &[u8]) -> BTreeSet<String> {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut names = Vec::new();
    let text = normalize(bytes);
    if path.rsplit('/').next() == Some("package.json") {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            for k in SETUP_KEYS {
                match v.pointer(&format!("/jest/{k}")) {
                    Some(serde_json::Value::String(s)) => names.push(s.clone()),
                    Some(serde_json::Value::Array(a)) => {
                        names.extend(a.iter().filter_map(|x| x.as_str().map(str::to_owned)));
                    }
                    _ => {}
                }
            }
        }
    } else {
        let l = lex(&text, Lang::Js);
        for k in SETUP_KEYS {
            for p in super::lex::find_token(&l.code, k) {
                let after = &l.code[p + k.len()..];
                // The value: up to the end of an array, or the next comma for a single string.
                let end = if after
                    .trim_start()
                    .trim_start_matches(':')
                    .trim_start()
                    .starts_with('[')
                {
                    after.find(']').unwrap_or(after.len())
                } else {
                    after.find([',', '}', '\n']).unwrap_or(after.len())
                };
                names.extend(
                    l.strings
                        .iter()
                        .filter(|(at, _)| *at > p && *at < p + k.len() + end)
                        .map(|(_, s)| s.clone()),
                );
            }
        }
    }
    names
        .iter()
        .filter_map(|n| {
            let rel = n.strip_prefix("<rootDir>/").unwrap_or(n);
            (rel.starts_with('.') || n.starts_with("<rootDir>/")).then(|| join(dir, rel))
        })
        .collect()
}

/// `dir/rel` with `.` and `..` resolved (never above the root).
pub(crate) fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

/// Commands that run tests in CI steps.
const CI_TEST_COMMANDS: &[&str] = &[
    "cargo test",
    "cargo nextest",
    "nextest run",
    "pytest",
    "npm test",
    "npm run test",
    "yarn test",
    "pnpm test",
    "go test",
    "jest",
    "vitest",
    "node --test",
    "tox",
];
/// Flags that narrow which tests run.
const CI_TEST_FILTERS: &[&str] = &[
    " -k ",
    "--skip",
    " -run ",
    " -run=",
    "--testNamePattern",
    "--testPathIgnorePatterns",
    "--exclude",
    "--deselect",
    "--ignore ",
    "--ignore=",
    " -E ",
    " -t ",
];
/// Lines that make a failing step or job pass or never run.
const CI_WEAKENERS: &[(&str, &str)] = &[
    ("continue-on-error: true", "continue-on-error: true"),
    ("allow_failure: true", "allow_failure: true"),
    ("|| true", "|| true"),
    ("|| exit 0", "|| exit 0"),
    ("|| :", "|| :"),
    ("if: false", "if: false"),
    ("if: ${{ false }}", "if: false"),
    ("when: never", "when: never"),
];

fn ci_lines(bytes: &[u8]) -> Vec<String> {
    lex(&normalize(bytes), Lang::Hash)
        .code
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

fn runs_tests(line: &str) -> bool {
    CI_TEST_COMMANDS.iter().any(|c| line.contains(c))
}

/// The ways an edited CI file was weakened, in words (empty when it was not).
pub(crate) fn ci_weakenings(base: &[u8], head: &[u8]) -> Vec<String> {
    let (b, h) = (ci_lines(base), ci_lines(head));
    let count = |lines: &[String], f: &dyn Fn(&str) -> bool| lines.iter().filter(|l| f(l)).count();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (pat, shown) in CI_WEAKENERS {
        let f = |l: &str| l.contains(pat);
        if count(&h, &f) > count(&b, &f) && seen.insert(*shown) {
            out.push(format!("added `{shown}`"));
        }
    }
    let tb = count(&b, &runs_tests);
    let th = count(&h, &runs_tests);
    if th < tb {
        out.push(format!(
            "removed a step that runs tests ({tb} test commands at base, {th} now)"
        ));
    }
    let filtered =
        |l: &str| runs_tests(l) && CI_TEST_FILTERS.iter().any(|f| format!("{l} ").contains(f));
    if count(&h, &filtered) > count(&b, &filtered) {
        out.push("added a filter to a test command (-k, --skip, -run, --testNamePattern, --exclude, ...)".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_files() {
        for p in [
            "conftest.py",
            "a/pytest.ini",
            "jest.config.ts",
            "vitest.config.mjs",
            ".cargo/config.toml",
            ".config/nextest.toml",
            "src/setupTests.js",
            "jest.setup.js",
        ] {
            assert!(whole_file_config(p).is_some(), "{p}");
        }
        assert!(whole_file_config("src/config.ts").is_none());
        assert!(
            partial_config_change(
                "pyproject.toml",
                b"[project]\nname='a'\n[tool.pytest.ini_options]\naddopts='-q'\n",
                b"[project]\nname='b'\n[tool.pytest.ini_options]\naddopts='-q'\n"
            )
            .is_none()
        );
        assert!(
            partial_config_change(
                "pyproject.toml",
                b"[tool.pytest.ini_options]\naddopts='-q'\n",
                b"[tool.pytest.ini_options]\naddopts='-q -k not slow'\n"
            )
            .is_some()
        );
        assert!(partial_config_change("tox.ini", b"[tox]\na=1\n", b"[tox]\na=2\n").is_none());
        assert!(
            partial_config_change("setup.cfg", b"", b"[tool:pytest]\naddopts = -x\n").is_some()
        );
        let gm = b"module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/a/b v1.0.0\n)\n";
        assert!(partial_config_change("go.mod", gm, &gm.replace_all("v1.0.0", "v1.1.0")).is_none());
        let mut replaced = gm.to_vec();
        replaced.extend_from_slice(b"replace github.com/a/b => ./fake\n");
        assert!(partial_config_change("go.mod", gm, &replaced).is_some());
        let pj = |t: &str| {
            format!("{{\"name\":\"x\",\"scripts\":{{\"test\":\"{t}\",\"build\":\"tsc\"}}}}")
        };
        assert!(
            partial_config_change(
                "package.json",
                pj("jest").as_bytes(),
                pj("jest").replace("tsc", "tsc -b").as_bytes()
            )
            .is_none()
        );
        assert_eq!(
            partial_config_change(
                "package.json",
                pj("jest").as_bytes(),
                pj("jest --passWithNoTests").as_bytes()
            )
            .as_deref(),
            Some("package.json scripts.test changed")
        );
    }

    trait ReplaceAll {
        fn replace_all(&self, a: &str, b: &str) -> Vec<u8>;
    }
    impl ReplaceAll for [u8] {
        fn replace_all(&self, a: &str, b: &str) -> Vec<u8> {
            String::from_utf8_lossy(self).replace(a, b).into_bytes()
        }
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
    fn ci_weakening() {
        let base = b"jobs:\n  test:\n    steps:\n      - run: cargo test --workspace\n      - run: pytest -q\n";
        assert!(ci_weakenings(base, base).is_empty());
        let comment_only = b"jobs:\n  test:\n    steps:\n      - run: cargo test --workspace # || true\n      - run: pytest -q\n";
        assert!(ci_weakenings(base, comment_only).is_empty());
        let w = ci_weakenings(base, b"jobs:\n  test:\n    continue-on-error: true\n    steps:\n      - run: cargo test --workspace || true\n");
        assert_eq!(w.len(), 3, "{w:?}");
        let w = ci_weakenings(base, b"jobs:\n  test:\n    steps:\n      - run: cargo test --workspace -- --skip slow\n      - run: pytest -q -k 'not db'\n");
        assert_eq!(
            w,
            [
                "added a filter to a test command (-k, --skip, -run, --testNamePattern, --exclude, ...)"
            ]
        );
        assert_eq!(ci_weakenings(base, b"jobs:\n  test:\n    if: false\n    steps:\n      - run: cargo test --workspace\n      - run: pytest -q\n"), ["added `if: false`"]);
        assert!(is_ci(".github/workflows/ci.yml") && is_ci("Jenkinsfile") && !is_ci("docs/ci.yml"));
    }
}
