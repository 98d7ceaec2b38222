//! Test configuration (rules 4 and 11): the files that decide how tests are collected and run,
//! judged by what a change to them means, and which CI files the CI rules read.
//!
//! Each format has its own reader and rules; every finding is `test_config_changed` with the
//! file, the line of the key in the head file, the key and what changed:
//! - pytest (`pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`) and `conftest.py`
//!   collection settings: [`super::pytestcfg`];
//! - jest / vitest / vite configs and workspace files: [`super::jsconfig`];
//! - `package.json`: `scripts.test` read as a shell script (the scripts it runs through
//!   `npm run`/`pnpm`/`yarn` resolved) and compared like a CI step ([`super::runs`]); `pretest`
//!   gaining commands that change files; the `jest` key by the jest rules;
//! - `.npmrc`: `node-options` preloading code, `script-shell`, `ignore-scripts` and `if-present`
//!   turned on;
//! - cargo (`.cargo/config*`, `Cargo.toml`) and nextest: [`super::cargocfg`];
//! - `go.mod`: `replace`, `go`, `toolchain` and `godebug` changes (requirement bumps are honest);
//!   `go.work` added, or its `use`/`replace`/`go`/`toolchain` changed;
//! - karma configs: any change (no reader).
//!
//! Plain fixtures and helpers in `conftest.py`, and the content of setup files a jest/vitest
//! config names, are judged by the outcome and test-code rules, not as configuration.

use std::collections::{BTreeMap, BTreeSet};

use super::cfgparse;
use super::lex::{Lang, lex, normalize};
use super::runs::{self, Ctx, Hit, Side, Src};
use super::shell::{Opts, basename, split_words};
use super::testcmd::{self, Mode};
use super::{Finding, FindingKind, MAX_SCAN_BYTES, cargocfg, jsconfig, pytestcfg};

/// A CI configuration file, by path.
pub(crate) fn is_ci(path: &str) -> bool {
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
pub(crate) fn config_findings(
    path: &str,
    base: Option<&[u8]>,
    head: Option<&[u8]>,
) -> Vec<Finding> {
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

fn line_of(text: &str, pred: impl Fn(&str) -> bool) -> Option<u32> {
    text.lines()
        .position(pred)
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// The script a package manager command runs (`npm run x`, `pnpm x`, `yarn test`), by name.
fn script_name(words: &[String]) -> Option<String> {
    // Past wrappers: `nyc npm run mocha`, `cross-env X=1 npm test`.
    let k = words
        .iter()
        .take(4)
        .position(|w| matches!(basename(w), "npm" | "pnpm" | "yarn" | "bun"))?;
    let words = &words[k..];
    let pm = basename(words.first()?);
    if !matches!(pm, "npm" | "pnpm" | "yarn" | "bun") {
        return None;
    }
    let rest: Vec<&String> = words[1..].iter().filter(|w| !w.starts_with('-')).collect();
    let sub = rest.first()?.as_str();
    match sub {
        "test" | "t" | "tst" => Some("test".into()),
        "run" | "run-script" => rest.get(1).map(|s| (*s).clone()),
        "install" | "ci" | "i" | "add" | "exec" | "dlx" | "x" | "workspace" => None,
        s if pm != "npm" => Some(s.to_owned()),
        _ => None,
    }
}

/// `npm-run-all -s test:*`, `run-s lint test`, `run-p test:*`: the scripts it runs, in order,
/// as one script (each must pass).
fn run_all(words: &[String], scripts: &BTreeMap<String, String>) -> Option<String> {
    let tool = basename(words.first()?);
    if !matches!(tool, "npm-run-all" | "run-s" | "run-p" | "npm-run-all2") {
        return None;
    }
    let mut bodies = Vec::new();
    for pat in words[1..].iter().filter(|w| !w.starts_with('-')) {
        match pat.strip_suffix('*') {
            Some(prefix) => bodies.extend(
                scripts
                    .iter()
                    .filter(|(k, _)| k.starts_with(prefix))
                    .map(|(_, v)| v.clone()),
            ),
            None => bodies.extend(scripts.get(pat.as_str()).cloned()),
        }
    }
    (!bodies.is_empty()).then(|| {
        bodies
            .iter()
            .map(|b| format!("( {b} )"))
            .collect::<Vec<_>>()
            .join(" && ")
    })
}

fn package_side(v: &serde_json::Value, text: &str) -> Side {
    let scripts: BTreeMap<String, String> = v
        .get("scripts")
        .and_then(serde_json::Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let mut side = Side::default();
    let Some(test) = scripts.get("test") else {
        return side;
    };
    let line = line_of(text, |l| l.trim_start().starts_with("\"test\""));
    side.jobs
        .insert("scripts.test".into(), ("`scripts.test`".into(), line));
    let resolve = |w: &[String]| {
        if let Some(n) = script_name(w) {
            return scripts.get(&n).cloned();
        }
        run_all(w, &scripts)
    };
    let ctx = Ctx {
        job: "scripts.test".into(),
        place: "`scripts.test`".into(),
        // npm runs scripts with `sh -c`: no `-e`, no `pipefail`.
        opts: Opts::default(),
        ..Ctx::default()
    };
    runs::script_runs(&Src::one(test, line), &ctx, Some(&resolve), &mut side);
    side
}

/// Commands that change files: in `pretest` they can rewrite the tests before they run.
const MUTATORS: &[&str] = &[
    "rm", "mv", "cp", "sed", "perl", "git", "truncate", "find", "ln", "patch", "rsync", "tee",
    "shx", "rimraf", "del", "cpy",
];

fn package_json(base: &str, head: &str) -> Vec<Hit> {
    let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
    let Some(h) = parse(head) else {
        // An unparseable package.json cannot run a test script at all; the suite says so.
        return Vec::new();
    };
    let b = parse(base).unwrap_or(serde_json::Value::Null);
    let mut out: Vec<Hit> =
        runs::compare(&package_side(&b, base), &package_side(&h, head), Mode::Ci)
            .into_iter()
            .map(|x| Hit {
                line: x.line,
                detail: format!("package.json: {}", x.detail),
            })
            .collect();
    let pretest = |v: &serde_json::Value| -> BTreeSet<String> {
        let s = v
            .pointer("/scripts/pretest")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        super::shell::parse(s, None)
            .list
            .simples()
            .iter()
            .map(|c| c.words.join(" "))
            .collect()
    };
    let (bp, hp) = (pretest(&b), pretest(&h));
    for c in hp.difference(&bp) {
        let words = split_words(c);
        let first = words.first().map_or("", |w| basename(w));
        let inline = matches!(first, "node" | "python" | "python3")
            && words.iter().any(|w| w == "-e" || w == "-c");
        // Cleaning build output is housekeeping; touching test files, or restoring files from
        // git, can change what the tests check.
        let on_tests = words.iter().skip(1).any(|w| {
            let w = w.to_ascii_lowercase();
            w.contains("test") || w.contains("spec") || w.contains("snap") || w.contains("fixture")
        });
        let git_rewrite = first == "git"
            && words.get(1).is_some_and(|s| {
                matches!(
                    s.as_str(),
                    "checkout" | "restore" | "apply" | "stash" | "reset" | "am" | "cherry-pick"
                )
            });
        if (MUTATORS.contains(&first) && on_tests) || git_rewrite || (inline && on_tests) {
            out.push(Hit {
                line: line_of(head, |l| l.trim_start().starts_with("\"pretest\"")),
                detail: format!("package.json `scripts.pretest` now runs `{}`, which can change the tests before they run", runs::short(c)),
            });
        }
    }
    let jest = |v: &serde_json::Value, text: &str| {
        let wrapped = serde_json::json!({ "jest": v.get("jest").cloned().unwrap_or(serde_json::Value::Null) });
        jsconfig::json_entries(&wrapped, text)
    };
    out.extend(jsconfig::changes(
        "package.json",
        &jest(&b, base),
        &jest(&h, head),
    ));
    out
}

fn npmrc(base: &str, head: &str) -> Vec<Hit> {
    let read = |t: &str| -> BTreeMap<String, (String, u32)> {
        cfgparse::ini(t)
            .into_iter()
            .flat_map(|s| s.entries)
            .map(|e| {
                (
                    e.key.trim_matches('"').to_ascii_lowercase(),
                    (e.value.trim_matches('"').to_owned(), e.line),
                )
            })
            .collect()
    };
    let (b, h) = (read(base), read(head));
    let mut out = Vec::new();
    let get = |m: &BTreeMap<String, (String, u32)>, k: &str| {
        m.get(k).map(|v| v.0.clone()).unwrap_or_default()
    };
    if let Some((v, line)) = h.get("node-options") {
        let changes = testcmd::compare_args(
            &testcmd::JS,
            &split_words(&get(&b, "node-options")),
            &split_words(v),
            Mode::Ci,
        );
        if !changes.is_empty() {
            out.push(Hit {
                line: Some(*line),
                detail: format!(
                    ".npmrc `node-options` {}",
                    changes
                        .into_iter()
                        .map(|c| c.text)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            });
        }
    }
    if let Some((v, line)) = h.get("script-shell")
        && get(&b, "script-shell") != *v
    {
        out.push(Hit { line: Some(*line), detail: format!(".npmrc `script-shell = {v}` runs every script, the test script included, through another program") });
    }
    for (k, why) in [
        ("ignore-scripts", "`pretest` and `posttest` no longer run"),
        ("if-present", "a missing test script now passes"),
    ] {
        if let Some((v, line)) = h.get(k)
            && v == "true"
            && get(&b, k) != "true"
        {
            out.push(Hit {
                line: Some(*line),
                detail: format!(".npmrc `{k} = true`: {why}"),
            });
        }
    }
    out
}

/// go.mod / go.work directives: (verb, arguments, line), blocks expanded, comments dropped.
fn go_directives(text: &str) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.split("//").next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(v) = &block {
            if l == ")" {
                block = None;
            } else {
                out.push((
                    v.clone(),
                    l.split_whitespace().collect::<Vec<_>>().join(" "),
                    line,
                ));
            }
            continue;
        }
        let (verb, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
        let rest = rest.trim();
        if rest == "(" {
            block = Some(verb.to_owned());
            continue;
        }
        out.push((
            verb.to_owned(),
            rest.split_whitespace().collect::<Vec<_>>().join(" "),
            line,
        ));
    }
    out
}

fn one(d: &[(String, String, u32)], verb: &str) -> Option<(String, u32)> {
    d.iter()
        .rev()
        .find(|(v, _, _)| v == verb)
        .map(|(_, a, l)| (a.clone(), *l))
}

fn replaces(d: &[(String, String, u32)]) -> BTreeMap<String, (String, u32)> {
    d.iter()
        .filter(|(v, _, _)| v == "replace")
        .filter_map(|(_, a, l)| {
            let (from, to) = a.split_once("=>")?;
            Some((from.trim().to_owned(), (to.trim().to_owned(), *l)))
        })
        .collect()
}

fn go_common(
    file: &str,
    b: &[(String, String, u32)],
    h: &[(String, String, u32)],
    existed: bool,
    out: &mut Vec<Hit>,
) {
    // A new module's `go` line is where it starts, not a change.
    for verb in ["go", "toolchain"].into_iter().filter(|_| existed) {
        let (bv, hv) = (one(b, verb), one(h, verb));
        if bv.as_ref().map(|x| &x.0) != hv.as_ref().map(|x| &x.0) {
            let show = |v: &Option<(String, u32)>| {
                v.as_ref()
                    .map_or_else(|| "unset".to_owned(), |x| format!("`{}`", x.0))
            };
            out.push(Hit {
                line: hv.as_ref().map(|x| x.1),
                detail: format!("{file} `{verb}` changed from {} to {}: the language and toolchain version change how the code behaves", show(&bv), show(&hv)),
            });
        }
    }
    let (br, hr) = (replaces(b), replaces(h));
    for (from, (to, line)) in &hr {
        if br.get(from).map(|x| &x.0) != Some(to) {
            let what = if to.starts_with('.') || to.starts_with('/') {
                "a local directory"
            } else {
                "another module"
            };
            out.push(Hit {
                line: Some(*line),
                detail: format!("{file} `replace {from} => {to}` swaps a dependency for {what}"),
            });
        }
    }
}

fn go_mod(existed: bool, base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (go_directives(base), go_directives(head));
    let mut out = Vec::new();
    go_common("go.mod", &b, &h, existed, &mut out);
    let debug = |d: &[(String, String, u32)]| -> BTreeMap<String, u32> {
        d.iter()
            .filter(|(v, _, _)| v == "godebug")
            .map(|(_, a, l)| (a.clone(), *l))
            .collect()
    };
    let (bd, hd) = (debug(&b), debug(&h));
    for (k, line) in hd.iter().filter(|(k, _)| !bd.contains_key(*k)) {
        out.push(Hit {
            line: Some(*line),
            detail: format!("go.mod `godebug {k}` changes runtime behaviour"),
        });
    }
    out
}

fn go_work(existed: bool, base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (go_directives(base), go_directives(head));
    let uses = |d: &[(String, String, u32)]| -> BTreeMap<String, u32> {
        d.iter()
            .filter(|(v, _, _)| v == "use")
            .map(|(_, a, l)| (a.clone(), *l))
            .collect()
    };
    let (bu, hu) = (uses(&b), uses(&h));
    if !existed {
        if h.is_empty() {
            return Vec::new();
        }
        let list = hu
            .keys()
            .map(|u| format!("`{u}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return vec![Hit {
            line: hu.values().next().copied().or(Some(1)),
            detail: format!(
                "go.work added: `go test` now builds in workspace mode with the local modules {list} instead of the required versions"
            ),
        }];
    }
    let mut out = Vec::new();
    for (u, line) in hu.iter().filter(|(u, _)| !bu.contains_key(*u)) {
        out.push(Hit {
            line: Some(*line),
            detail: format!(
                "go.work `use {u}` builds against a local module instead of the required version"
            ),
        });
    }
    go_common("go.work", &b, &h, true, &mut out);
    out
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

#[cfg(test)]
mod tests {
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
            [
                "package.json: `jest src/one` (`scripts.test`) runs fewer tests: now runs only `src/one`"
            ]
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
}
