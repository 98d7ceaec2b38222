//! Test configuration (rules 4 and 11): the files that decide how tests are collected and run,
//! judged by what a change to them means ([`config_findings`]), which CI files the CI rules read
//! ([`is_ci`]), and which setup files a jest/vitest config names ([`referenced_setup_files`]).
//! Pure over bytes, never panics; files over [`MAX_SCAN_BYTES`] are judged by path only.
//!
//! Each format has its own reader and rules; every finding is `test_config_changed` with the
//! file, the line of the key in the head file, the key and what changed:
//! - pytest (`pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`) and `conftest.py`
//!   collection settings: `pytestcfg`;
//! - jest / vitest / vite configs and workspace files: `jsconfig`;
//! - `package.json`: `scripts.test` read as a shell script (the scripts it runs through
//!   `npm run`/`pnpm`/`yarn` resolved) and compared like a CI step ([`crate::testcmd::runs`]); `pretest`
//!   gaining commands that change files; the `jest` key by the jest rules;
//! - `.npmrc`: `node-options` preloading code, `script-shell`, `ignore-scripts` and `if-present`
//!   turned on;
//! - cargo (`.cargo/config*`, `Cargo.toml`) and nextest: `cargocfg`;
//! - `go.mod`: `replace`, `go`, `toolchain` and `godebug` changes (requirement bumps are honest);
//!   `go.work` added, or its `use`/`replace`/`go`/`toolchain` changed;
//! - Maven: `pom.xml` Surefire/Failsafe configuration, test properties and test directories,
//!   `.mvn/maven.config` and `.mvn/jvm.config` (any change), and `junit-platform.properties`
//!   key by key: `maven`;
//! - karma configs: any change (no reader).
//!
//! Plain fixtures and helpers in `conftest.py`, and the content of setup files a jest/vitest
//! config names, are judged by the outcome and test-code rules, not as configuration.
//!
//! # Submodules
//! - `npm`: `package.json` (`scripts.test` as a shell script, `pretest`) and `.npmrc`;
//! - `go`: `go.mod` and `go.work` directives;
//! - `pytestcfg`, `jsconfig`, `cargocfg`, `maven`: the pytest, jest/vitest, cargo/nextest and
//!   Maven/JUnit Platform readers.

mod cargocfg;
mod go;
mod jsconfig;
mod maven;
mod npm;
mod pytestcfg;

use std::collections::BTreeSet;

use crate::shell::join;
use crate::testcmd::runs::Hit;
use go::{go_mod, go_work};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::MAX_SCAN_BYTES;
use loki_syntax::lex::{Lang, lex, normalize};
use npm::{npmrc, package_json};

/// A CI configuration file, by path.
pub fn is_ci(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
    (yaml && path.starts_with(".github/workflows/"))
        || (yaml && name.starts_with("action.") && path.contains(".github/actions/"))
        || path == ".gitlab-ci.yml"
        || path == ".circleci/config.yml"
        || matches!(
            path,
            ".travis.yml"
                | "appveyor.yml"
                | ".appveyor.yml"
                | ".drone.yml"
                | ".woodpecker.yml"
                | ".cirrus.yml"
                | ".buildkite/pipeline.yml"
        )
        || path == "azure-pipelines.yml"
        || path == "bitbucket-pipelines.yml"
        || name == "Jenkinsfile"
}

/// Which reader judges a file, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pytest,
    Conftest,
    PackageJson,
    Npmrc,
    CargoConfig,
    CargoManifest,
    Nextest,
    GoMod,
    GoWork,
    JsConfig,
    Karma,
    MavenPom,
    MavenConfig,
    JunitPlatform,
}

fn kind_of(path: &str) -> Option<Kind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    Some(match name {
        "pytest.ini" | ".pytest.ini" | "tox.ini" | "setup.cfg" | "pyproject.toml" => Kind::Pytest,
        "conftest.py" => Kind::Conftest,
        "package.json" => Kind::PackageJson,
        ".npmrc" => Kind::Npmrc,
        "Cargo.toml" => Kind::CargoManifest,
        "go.mod" => Kind::GoMod,
        "go.work" => Kind::GoWork,
        "nextest.toml" => Kind::Nextest,
        "pom.xml" => Kind::MavenPom,
        "junit-platform.properties" => Kind::JunitPlatform,
        "maven.config" | "jvm.config" if path.ends_with(&format!(".mvn/{name}")) => {
            Kind::MavenConfig
        }
        "config.toml" | "config"
            if path == ".cargo/config.toml"
                || path == ".cargo/config"
                || path.ends_with("/.cargo/config.toml")
                || path.ends_with("/.cargo/config") =>
        {
            Kind::CargoConfig
        }
        _ if matches!(stem, "jest" | "vitest" | "vite") && name.contains(".config.") => {
            Kind::JsConfig
        }
        _ if name.starts_with("vitest.workspace.") || name.starts_with("vitest.projects.") => {
            Kind::JsConfig
        }
        _ if stem == "karma" && name.contains(".conf") => Kind::Karma,
        _ => return None,
    })
}

/// The test-configuration findings for one changed file.
pub fn config_findings(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> Vec<Finding> {
    let Some(kind) = kind_of(path) else {
        return Vec::new();
    };
    if base == head || (base.is_none() && head.is_none()) {
        return Vec::new();
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let too_big = |b: Option<&[u8]>| b.is_some_and(|b| b.len() > MAX_SCAN_BYTES);
    let hits = if too_big(base) || too_big(head) {
        vec![Hit {
            line: None,
            detail: format!("{name} changed and is too large to read"),
        }]
    } else {
        let (b, h) = (
            base.map(normalize).unwrap_or_default(),
            head.map(normalize).unwrap_or_default(),
        );
        match kind {
            Kind::Pytest => pytestcfg::pytest_config(name, &b, &h),
            Kind::Conftest => pytestcfg::conftest(&b, &h),
            Kind::PackageJson => package_json(&b, &h),
            Kind::Npmrc => npmrc(&b, &h),
            Kind::CargoConfig => cargocfg::cargo_config(path, &b, &h),
            Kind::CargoManifest => cargocfg::cargo_manifest(name, base.is_some(), &b, &h),
            Kind::Nextest => cargocfg::nextest(path, &b, &h),
            Kind::GoMod => go_mod(base.is_some(), &b, &h),
            // Without go.work, modules build against their required versions again.
            Kind::GoWork if head.is_none() => Vec::new(),
            Kind::GoWork => go_work(base.is_some(), &b, &h),
            Kind::JsConfig => jsconfig::js_config(name, &b, &h),
            Kind::MavenPom => maven::pom(base.is_some(), &b, &h),
            Kind::MavenConfig => maven::mvn_config(name, base.is_some(), head.is_some()),
            Kind::JunitPlatform => maven::junit_platform(&b, &h),
            Kind::Karma => vec![Hit {
                line: None,
                detail: format!(
                    "karma configuration {}",
                    if head.is_none() {
                        "deleted"
                    } else if base.is_none() {
                        "added"
                    } else {
                        "changed"
                    }
                ),
            }],
        }
    };
    let mut hits = hits;
    hits.sort();
    hits.dedup();
    hits.into_iter()
        .map(|Hit { line, detail }| {
            let f = Finding::new(FindingKind::TestConfigChanged, path, detail);
            match line {
                Some(l) => f.at_line(l),
                None => f,
            }
        })
        .collect()
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
pub fn referenced_setup_files(path: &str, bytes: &[u8]) -> BTreeSet<String> {
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
            for p in loki_syntax::lex::find_token(&l.code, k) {
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

#[cfg(test)]
mod tests;
