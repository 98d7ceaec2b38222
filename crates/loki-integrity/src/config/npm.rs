//! `package.json`: `scripts.test` read as a shell script (the scripts it runs resolved) and
//! compared like a CI step, `pretest` gaining commands that change files; `.npmrc` settings that
//! preload code or stop scripts failing.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::jsconfig;
use crate::shell::{Opts, basename, split_words};
use crate::testcmd::runs::{self, Ctx, Hit, Side, Src};
use crate::testcmd::{self as testcmd, Mode};
use loki_syntax::cfgparse;

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

pub(super) fn package_json(base: &str, head: &str) -> Vec<Hit> {
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
        crate::shell::parse(s, None)
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
    // A module resolution condition only a test runner asks for (`"test"`, `"vitest"`, `"jest"`)
    // in `exports`/`imports`: under test the package resolves to other code than it ships.
    let conditions = |v: &serde_json::Value| -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut stack: Vec<(&serde_json::Value, String)> = ["exports", "imports"]
            .iter()
            .filter_map(|k| v.get(*k).map(|x| (x, (*k).to_owned())))
            .collect();
        while let Some((x, at)) = stack.pop() {
            if let serde_json::Value::Object(m) = x {
                for (k, child) in m {
                    if matches!(k.as_str(), "test" | "vitest" | "jest" | "testing") {
                        found.insert(format!("{at} → {k}"));
                    }
                    stack.push((child, format!("{at} → {k}")));
                }
            }
        }
        found
    };
    for c in conditions(&h).difference(&conditions(&b)) {
        out.push(Hit {
            line: line_of(head, |l| {
                let key = c.rsplit(" → ").next().unwrap_or("");
                l.trim_start().starts_with(&format!("\"{key}\""))
            }),
            detail: format!(
                "package.json adds the resolution condition `{c}`: under a test runner the package resolves to other code than it ships"
            ),
        });
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

pub(super) fn npmrc(base: &str, head: &str) -> Vec<Hit> {
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
