//! jest / vitest / vite configuration judged by meaning (rule 4).
//!
//! JS and TS configs are read approximately with the lexer: every object literal in the file
//! (inside `defineConfig(...)`, `mergeConfig(...)`, arrow functions and `projects: [...]`
//! included) yields its `key: value` pairs as dotted paths (`test.include`, `projects[].testMatch`,
//! `resolve.alias.@`) with the value's text and string literals. JSON configs (`jest.config.json`,
//! `package.json` `jest`) yield the same from their parsed value. Keys under `coverage`,
//! `typecheck`, `server`, `build`, `optimizeDeps`, `css`, `plugins`, `deps`, `benchmark`,
//! `browser` and friends are not test selection and are ignored.
//!
//! Findings (`test_config_changed`):
//! - selection: `testMatch`, `testRegex`, `roots`, `include` newly set (replacing the runner's
//!   default) or losing an entry; `includeSource`, `projects`/`workspace` losing entries;
//!   `dir`, `root`, `rootDir`, `testNamePattern`, `shard` set or changed;
//! - exclusion: `exclude`, `testPathIgnorePatterns`, `modulePathIgnorePatterns` gaining entries;
//! - outcomes: `passWithNoTests`, `allowOnly`, `dangerouslyIgnoreUnhandledErrors`, `update`
//!   turned on; `bail` set; `retry` raised; `testFailureExitCode` changed; custom `reporters`,
//!   `testResultsProcessor`, `testRunner`, `runner`, `testSequencer`, `snapshotResolver`,
//!   `resolver`, `filter`, or a custom `testEnvironment`/`environment` added;
//! - loaded code: `setupFiles`, `setupFilesAfterEnv`, `setupFilesAfterEach`, `globalSetup`,
//!   `snapshotSerializers`, local `transform`s gaining entries (the files themselves are judged by
//!   the content rules); `moduleNameMapper`, `alias`, `define`, `moduleDirectories`, `modulePaths`
//!   gaining or changing entries (they can swap the module under test or its constants).
//!
//! Honest: `testTimeout`, `hookTimeout`, `coverage*`, `globals`, `clearMocks`, a built-in
//! `environment`, `pool`, `maxWorkers`, `silent`, built-in reporters, new include paths.

use std::collections::{BTreeMap, BTreeSet};

use super::lex::{Lang, Lexed, lex, matching};
use super::runs::Hit;

/// One `key: value` of a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub path: Vec<String>,
    /// The value as written (strings quoted), whitespace collapsed.
    pub text: String,
    pub strings: Vec<String>,
    /// Line guess (from the lexed code; block comments can make it early).
    pub line: u32,
}

struct Walker<'a> {
    s: &'a str,
    c: &'a [u8],
    lx: &'a Lexed,
    out: Vec<Entry>,
    steps: usize,
}

const MAX_DEPTH: usize = 48;

impl Walker<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while self.c.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    }

    /// Where the value starting at `i` ends: a `,`, `;`, `}`, `]` or `)` outside brackets.
    fn value_end(&self, mut i: usize) -> usize {
        let mut depth = 0usize;
        while let Some(&b) = self.c.get(i) {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' | b',' | b';' if depth == 0 => return i,
                b')' | b']' | b'}' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        i
    }

    fn code(&self, from: usize, to: usize) -> &str {
        std::str::from_utf8(self.c.get(from..to).unwrap_or(&[])).unwrap_or("")
    }

    fn line(&self, at: usize) -> u32 {
        let n = self
            .c
            .get(..at)
            .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
        u32::try_from(n + 1).unwrap_or(u32::MAX)
    }

    fn strings_in(&self, from: usize, to: usize) -> Vec<String> {
        self.lx
            .strings
            .iter()
            .filter(|(at, _)| *at >= from && *at < to)
            .map(|(_, s)| s.clone())
            .collect()
    }

    /// The value's text with its strings put back.
    fn shown(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        let mut i = from;
        while i < to {
            if let Some(v) = self.lx.string_at(i) {
                s.push('\'');
                s.push_str(v);
                s.push('\'');
                i += 2;
                continue;
            }
            match self.c.get(i) {
                Some(b) if b.is_ascii_whitespace() => {
                    if !s.ends_with(' ') {
                        s.push(' ');
                    }
                }
                Some(_) => {
                    // Multi-byte characters: copy the whole character.
                    let rest = self.code(i, to);
                    if let Some(ch) = rest.chars().next() {
                        s.push(ch);
                        i += ch.len_utf8();
                        continue;
                    }
                    i += 1;
                    continue;
                }
                None => break,
            }
            i += 1;
        }
        s.trim().to_owned()
    }

    /// Finds object and array literals in `[from, to)` and reads them under `path`.
    fn scan(&mut self, from: usize, to: usize, path: &[String], depth: usize) {
        let mut i = from;
        while i < to && i < self.c.len() {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return;
            }
            match self.c[i] {
                b'{' => i = self.object(i, path, depth + 1),
                b'[' => i = self.array(i, path, depth + 1),
                _ => i += 1,
            }
        }
    }

    fn array(&mut self, at: usize, path: &[String], depth: usize) -> usize {
        let end = matching(self.s, at);
        if depth > MAX_DEPTH {
            return end;
        }
        let mut p = path.to_vec();
        p.push("[]".into());
        self.scan(at + 1, end.saturating_sub(1), &p, depth);
        end
    }

    fn object(&mut self, at: usize, path: &[String], depth: usize) -> usize {
        let end = matching(self.s, at);
        if depth > MAX_DEPTH {
            return end;
        }
        let close = end.saturating_sub(1);
        let mut j = at + 1;
        while j < close {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return end;
            }
            j = self.ws(j);
            if j >= close {
                break;
            }
            let b = self.c[j];
            if b == b',' || b == b';' {
                j += 1;
                continue;
            }
            // The key: an identifier, a string, a number or `[computed]`.
            let key_at = j;
            let key = if self.lx.string_at(j).is_some() {
                let k = self.lx.string_at(j).unwrap_or("").to_owned();
                j += 2;
                Some(k)
            } else if b == b'[' {
                j = matching(self.s, j);
                Some("[computed]".to_owned())
            } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
                let s = j;
                while self
                    .c
                    .get(j)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
                {
                    j += 1;
                }
                Some(self.code(s, j).to_owned())
            } else {
                None
            };
            let Some(key) = key else {
                // A spread or anything else: read it as an expression.
                let e = self.value_end(j + 1);
                self.scan(j, e, path, depth);
                j = e.max(j + 1);
                continue;
            };
            let k = self.ws(j);
            match self.c.get(k) {
                Some(b':') => {
                    let v = self.ws(k + 1);
                    let e = self.value_end(v);
                    let mut p = path.to_vec();
                    p.push(key);
                    self.out.push(Entry {
                        path: p.clone(),
                        text: self.shown(v, e),
                        strings: self.strings_in(v, e),
                        line: self.line(key_at),
                    });
                    self.scan(v, e, &p, depth);
                    j = e.max(v + 1);
                }
                Some(b',' | b'}') => {
                    let mut p = path.to_vec();
                    p.push(key.clone());
                    self.out.push(Entry {
                        path: p,
                        text: key,
                        strings: Vec::new(),
                        line: self.line(key_at),
                    });
                    j = k;
                }
                _ => {
                    // A method, or a statement in a function body read as an object.
                    let e = self.value_end(k);
                    self.scan(k, e, path, depth);
                    j = e.max(k + 1);
                }
            }
        }
        end
    }
}

/// The entries of a JS/TS config.
pub(crate) fn js_entries(text: &str, root_array: Option<&str>) -> Vec<Entry> {
    let lx = lex(text, Lang::Js);
    let code = lx.code.clone();
    let mut w = Walker {
        s: &code,
        c: code.as_bytes(),
        lx: &lx,
        out: Vec::new(),
        steps: 0,
    };
    if let Some(name) = root_array {
        // `export default ['packages/*', { test: {...} }]`: the top-level array lists projects.
        if let Some(at) = code
            .find("export default")
            .map(|p| p + 14)
            .or_else(|| code.find("module.exports").map(|p| p + 14))
        {
            let v = w.ws(code[at..].find(['[', '(']).map_or(at, |k| at + k));
            if let Some(open) = code[v..].find('[').map(|k| v + k) {
                let end = matching(&code, open);
                w.out.push(Entry {
                    path: vec![name.to_owned()],
                    text: w.shown(open, end),
                    strings: w.strings_in(open, end),
                    line: w.line(open),
                });
            }
        }
    }
    w.scan(0, code.len(), &[], 0);
    w.out
}

/// The entries of a JSON config value (a `jest.config.json`, or `package.json`'s `jest`).
pub(crate) fn json_entries(v: &serde_json::Value, text: &str) -> Vec<Entry> {
    fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    fn walk(
        v: &serde_json::Value,
        path: &mut Vec<String>,
        text: &str,
        out: &mut Vec<Entry>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    path.push(k.clone());
                    let mut s = Vec::new();
                    strings(x, &mut s);
                    let needle = format!("\"{k}\"");
                    let line = text
                        .lines()
                        .position(|l| l.contains(&needle))
                        .and_then(|i| u32::try_from(i + 1).ok())
                        .unwrap_or(1);
                    out.push(Entry {
                        path: path.clone(),
                        text: x.to_string(),
                        strings: s,
                        line,
                    });
                    walk(x, path, text, out, depth + 1);
                    path.pop();
                }
            }
            serde_json::Value::Array(a) => {
                path.push("[]".into());
                for x in a {
                    walk(x, path, text, out, depth + 1);
                }
                path.pop();
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), text, &mut out, 0);
    out
}

/// Parents under which keys are not about which tests run or how they pass.
const IGNORED_PARENTS: &[&str] = &[
    "coverage",
    "typecheck",
    "server",
    "build",
    "optimizeDeps",
    "css",
    "plugins",
    "deps",
    "benchmark",
    "browser",
    "preview",
    "worker",
    "ssr",
    "esbuild",
    "json",
    "environments",
    "experimental",
    "poolOptions",
    "sequence",
    "chaiConfig",
    "diff",
    "expect",
    "fakeTimers",
    "snapshotFormat",
    "globals",
    "env",
    "testEnvironmentOptions",
    "reporterOptions",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Replacing the default or losing entries narrows.
    Select,
    /// Losing entries narrows (adding widens, and unset means none).
    Keep,
    /// Setting or changing it narrows.
    Changed,
    /// Gaining entries hides tests.
    Ignore,
    /// Turning it on weakens: why.
    On(&'static str),
    /// Gaining entries loads code: what it is.
    Loads(&'static str),
    /// Gaining or changing entries swaps modules or values.
    Mapping,
}

fn kind_of(key: &str) -> Option<Kind> {
    Some(match key {
        "testMatch" | "testRegex" | "roots" | "include" => Kind::Select,
        "includeSource" | "projects" | "workspace" => Kind::Keep,
        "dir"
        | "root"
        | "rootDir"
        | "testNamePattern"
        | "shard"
        | "bail"
        | "retry"
        | "testFailureExitCode"
        | "testResultsProcessor"
        | "testRunner"
        | "runner"
        | "testSequencer"
        | "snapshotResolver"
        | "resolver"
        | "filter"
        | "testEnvironment"
        | "environment" => Kind::Changed,
        "exclude" | "testPathIgnorePatterns" | "modulePathIgnorePatterns" => Kind::Ignore,
        "passWithNoTests" => Kind::On("a run that finds no tests passes"),
        "allowOnly" => {
            Kind::On("a test marked `.only` no longer fails the run, so it can silence the rest")
        }
        "dangerouslyIgnoreUnhandledErrors" => Kind::On("unhandled errors no longer fail the run"),
        "update" | "updateSnapshot" => {
            Kind::On("snapshots are rewritten to what the code produces")
        }
        "setupFiles" | "setupFilesAfterEnv" | "setupFilesAfterEach" | "globalSetup" => {
            Kind::Loads("a setup file that runs before the tests")
        }
        "snapshotSerializers" => {
            Kind::Loads("a snapshot serializer, which decides what snapshots compare")
        }
        "reporters" | "reporter" => Kind::Loads("a custom reporter, which can rewrite the results"),
        "transform" => Kind::Loads("a local transform, which rewrites the code before it runs"),
        "moduleNameMapper" | "alias" | "define" | "moduleDirectories" | "modulePaths" => {
            Kind::Mapping
        }
        _ => return None,
    })
}

const BUILTIN_REPORTERS: &[&str] = &[
    "default",
    "verbose",
    "dot",
    "json",
    "junit",
    "github-actions",
    "summary",
    "basic",
    "tap",
    "tap-flat",
    "hanging-process",
    "html",
    "blob",
    "jest-junit",
    "hanging",
    "tree",
];
const BUILTIN_ENVIRONMENTS: &[&str] = &[
    "node",
    "jsdom",
    "happy-dom",
    "edge-runtime",
    "jest-environment-node",
    "jest-environment-jsdom",
    "jest-environment-jsdom-global",
];

fn in_test_context(path: &[String]) -> bool {
    let parents = &path[..path.len().saturating_sub(1)];
    if parents
        .iter()
        .any(|p| IGNORED_PARENTS.contains(&p.as_str()))
    {
        return false;
    }
    let key = path.last().map_or("", String::as_str);
    match key {
        // `alias` belongs to `resolve` (vite) or `test`; `define` to the top level.
        "alias" => parents
            .last()
            .is_none_or(|p| p == "resolve" || p == "test" || p == "[]"),
        "define" => parents.iter().all(|p| p == "[]" || p == "test"),
        // `include`/`exclude`/`root`/`dir` mean test selection only under `test` (vitest) or a
        // project entry; at the top of a vite config `root` is the app root.
        "include" | "exclude" | "dir" | "root" => {
            parents.last().is_some_and(|p| p == "test" || p == "[]")
        }
        _ => true,
    }
}

fn local(s: &str) -> bool {
    s.starts_with('.') || s.starts_with('/') || s.starts_with("<rootDir>")
}

/// What changed between two configs' entries, as findings. `file` names the file in details.
pub(crate) fn changes(file: &str, base: &[Entry], head: &[Entry]) -> Vec<Hit> {
    let index = |es: &[Entry]| -> BTreeMap<String, Entry> {
        let mut m: BTreeMap<String, Entry> = BTreeMap::new();
        for e in es {
            let k = e.path.join(".");
            match m.get_mut(&k) {
                // `projects[].include` from several projects: pooled.
                Some(x) => {
                    x.strings.extend(e.strings.iter().cloned());
                    x.text = format!("{} {}", x.text, e.text);
                }
                None => {
                    m.insert(k, e.clone());
                }
            }
        }
        m
    };
    let (b, h) = (index(base), index(head));
    let mut out = Vec::new();
    let keys: BTreeSet<&String> = b.keys().chain(h.keys()).collect();
    for k in keys {
        let (be, he) = (b.get(k), h.get(k));
        let Some(any) = he.or(be) else { continue };
        let Some(key) = any.path.last() else { continue };
        let Some(kind) = kind_of(key) else { continue };
        if !in_test_context(&any.path) {
            continue;
        }
        let line = he.map(|e| e.line);
        let mut push = |what: String| {
            out.push(Hit {
                line,
                detail: format!("{file} `{k}` {what}"),
            });
        };
        let strs = |e: Option<&Entry>| {
            e.map(|e| e.strings.iter().cloned().collect::<BTreeSet<_>>())
                .unwrap_or_default()
        };
        let (bs, hs) = (strs(be), strs(he));
        let lost: Vec<&String> = bs.difference(&hs).collect();
        let added: Vec<&String> = hs.difference(&bs).collect();
        let show = |v: &[&String]| {
            v.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match kind {
            Kind::Select => match (be, he) {
                (None, Some(h)) => push(format!(
                    "set to {}, replacing the runner's default test selection",
                    h.text
                )),
                (Some(b), Some(h)) if b.text != h.text => {
                    if !lost.is_empty() {
                        push(format!("no longer includes {}", show(&lost)));
                    } else if bs.is_empty() && hs.is_empty() {
                        push(format!("changed from {} to {}", b.text, h.text));
                    }
                }
                _ => {}
            },
            Kind::Keep => {
                if be.is_some() && he.is_none() {
                    push("removed".into());
                } else if !lost.is_empty() && he.is_some() {
                    push(format!("no longer includes {}", show(&lost)));
                }
            }
            Kind::Changed => {
                let Some(h) = he else { continue };
                if be.is_some_and(|b| b.text == h.text) {
                    continue;
                }
                let is_builtin_env = matches!(key.as_str(), "testEnvironment" | "environment")
                    && hs
                        .iter()
                        .all(|s| BUILTIN_ENVIRONMENTS.contains(&s.as_str()));
                let off = key == "bail"
                    && matches!(h.text.as_str(), "0" | "false" | "undefined" | "null");
                let lower_retry = key == "retry"
                    && h.text.parse::<u64>().unwrap_or(0)
                        <= be.and_then(|b| b.text.parse::<u64>().ok()).unwrap_or(0);
                if is_builtin_env || off || lower_retry {
                    continue;
                }
                let was = be.map_or_else(|| "unset".to_owned(), |b| b.text.clone());
                push(format!("changed to {} (was {was})", h.text));
            }
            Kind::Ignore => {
                if !added.is_empty() {
                    push(format!("now ignores {}", show(&added)));
                }
            }
            Kind::On(why) => {
                let on = |e: Option<&Entry>| e.is_some_and(|e| e.text == "true");
                if on(he) && !on(be) {
                    push(format!("turned on: {why}"));
                }
            }
            Kind::Loads(what) => {
                let new: Vec<&String> = added
                    .iter()
                    .copied()
                    .filter(|s| match key.as_str() {
                        "reporters" | "reporter" => !BUILTIN_REPORTERS.contains(&s.as_str()),
                        "transform" => local(s),
                        _ => true,
                    })
                    .collect();
                if !new.is_empty() {
                    push(format!("adds {}: {what}", show(&new)));
                }
            }
            Kind::Mapping => {
                // Children (`alias.@`, `define.__DEV__`) are compared one by one; a mapping
                // written as a variable or an array is compared by its strings.
                let prefix = format!("{k}.");
                let kids = |m: &BTreeMap<String, Entry>| -> BTreeMap<String, String> {
                    m.iter()
                        .filter(|(p, _)| p.starts_with(&prefix) && !p[prefix.len()..].contains('.'))
                        .map(|(p, e)| (p[prefix.len()..].to_owned(), e.text.clone()))
                        .collect()
                };
                let (bk, hk) = (kids(&b), kids(&h));
                let changed: Vec<String> = hk
                    .iter()
                    .filter(|(c, v)| bk.get(*c) != Some(*v))
                    .map(|(c, v)| format!("`{c}` → {v}"))
                    .collect();
                if !changed.is_empty() {
                    push(format!(
                        "maps {}: it can swap the module under test or its constants",
                        changed.join(", ")
                    ));
                } else if hk.is_empty() && !added.is_empty() {
                    push(format!(
                        "adds {}: it can swap the module under test or its constants",
                        show(&added)
                    ));
                }
            }
        }
    }
    out
}

/// A JS/TS config file (jest, vitest, vite, vitest workspace).
pub(crate) fn js_config(file: &str, base: &str, head: &str) -> Vec<Hit> {
    let name = file.rsplit('/').next().unwrap_or(file);
    let workspace = (name.starts_with("vitest.workspace.") || name.starts_with("vitest.projects."))
        .then_some("projects");
    if name.ends_with(".json") {
        let parse = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
        let (Some(b), Some(h)) = (parse(base).or(Some(serde_json::Value::Null)), parse(head))
        else {
            return Vec::new();
        };
        if !h.is_object() && !h.is_array() {
            return Vec::new();
        }
        return changes(file, &json_entries(&b, base), &json_entries(&h, head));
    }
    changes(
        file,
        &js_entries(base, workspace),
        &js_entries(head, workspace),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(file: &str, b: &str, h: &str) -> Vec<String> {
        js_config(file, b, h)
            .into_iter()
            .map(|h| h.detail)
            .collect()
    }

    const VITEST: &str = "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  plugins: [react()],\n  resolve: { alias: { '@': '/src' } },\n  test: {\n    include: ['src/**/*.test.ts'],\n    environment: 'node',\n    setupFiles: ['./test/setup.ts'],\n    coverage: { include: ['src/**'], exclude: ['src/gen/**'] },\n  },\n});\n";
    const JEST: &str = "/** @type {import('jest').Config} */\nmodule.exports = {\n  testEnvironment: 'node',\n  testMatch: ['**/*.test.js'],\n  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],\n};\n";

    #[test]
    fn entries_are_found() {
        let e = js_entries(VITEST, None);
        let paths: Vec<String> = e.iter().map(|e| e.path.join(".")).collect();
        for p in [
            "test.include",
            "test.environment",
            "resolve.alias.@",
            "test.coverage.exclude",
        ] {
            assert!(paths.contains(&p.to_owned()), "{p} in {paths:?}");
        }
        let inc = e
            .iter()
            .find(|e| e.path.join(".") == "test.include")
            .map(|e| (e.strings.clone(), e.line));
        assert_eq!(inc, Some((vec!["src/**/*.test.ts".to_owned()], 7)));
    }

    #[test]
    fn vitest_cheats() {
        let f = "vitest.config.ts";
        for (from, to, want) in [
            (
                "    environment: 'node',\n",
                "    environment: 'node',\n    exclude: ['**/math.test.ts'],\n",
                "vitest.config.ts `test.exclude` now ignores '**/math.test.ts'",
            ),
            (
                "    environment: 'node',\n",
                "    environment: 'node',\n    passWithNoTests: true,\n",
                "vitest.config.ts `test.passWithNoTests` turned on: a run that finds no tests passes",
            ),
            (
                "['src/**/*.test.ts']",
                "['src/one.test.ts']",
                "vitest.config.ts `test.include` no longer includes 'src/**/*.test.ts'",
            ),
            (
                "['./test/setup.ts']",
                "['./test/setup.ts', './test/fake.ts']",
                "vitest.config.ts `test.setupFiles` adds './test/fake.ts': a setup file that runs before the tests",
            ),
            (
                "{ '@': '/src' }",
                "{ '@': '/fake' }",
                "vitest.config.ts `resolve.alias` maps `@` → '/fake': it can swap the module under test or its constants",
            ),
            (
                "  plugins: [react()],\n",
                "  plugins: [react()],\n  define: { __LIMIT__: 3 },\n",
                "vitest.config.ts `define` maps `__LIMIT__` → 3: it can swap the module under test or its constants",
            ),
            (
                "    environment: 'node',\n",
                "    environment: 'node',\n    reporters: ['default', './forge.js'],\n",
                "vitest.config.ts `test.reporters` adds './forge.js': a custom reporter, which can rewrite the results",
            ),
            (
                "    environment: 'node',\n",
                "    environment: 'node',\n    allowOnly: true,\n",
                "vitest.config.ts `test.allowOnly` turned on: a test marked `.only` no longer fails the run, so it can silence the rest",
            ),
            (
                "    environment: 'node',\n",
                "    environment: 'node',\n    retry: 3,\n",
                "vitest.config.ts `test.retry` changed to 3 (was unset)",
            ),
        ] {
            assert_eq!(d(f, VITEST, &VITEST.replace(from, to)), [want], "{to}");
        }
    }

    #[test]
    fn jest_cheats() {
        let f = "jest.config.js";
        for (from, to) in [
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: 'node',\n  testPathIgnorePatterns: ['/node_modules/', 'math'],\n",
            ),
            ("['**/*.test.js']", "['**/one.test.js']"),
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: 'node',\n  moduleNameMapper: { '^../src/math$': '<rootDir>/fake.js' },\n",
            ),
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: 'node',\n  bail: 1,\n",
            ),
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: 'node',\n  testResultsProcessor: './forge.js',\n",
            ),
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: './env.js',\n",
            ),
            (
                "  testEnvironment: 'node',\n",
                "  testEnvironment: 'node',\n  testFailureExitCode: 0,\n",
            ),
        ] {
            assert_eq!(d(f, JEST, &JEST.replace(from, to)).len(), 1, "{to}");
        }
        // jest.config.json and the workspace file.
        assert_eq!(
            d(
                "jest.config.json",
                "{\"testMatch\": [\"**/*.test.js\"]}",
                "{\"testMatch\": [\"**/a.test.js\"]}"
            )
            .len(),
            1
        );
        assert_eq!(
            d(
                "vitest.workspace.ts",
                "export default ['packages/a', 'packages/b']\n",
                "export default ['packages/a']\n"
            ),
            ["vitest.workspace.ts `projects` no longer includes 'packages/b'"]
        );
    }

    proptest::proptest! {
        #[test]
        fn js_entries_never_panic(src in "[a-zA-Z:,.'\"`{}()\\[\\] /*$\n=>é]{0,300}") {
            let _ = js_config("vitest.config.ts", &src, VITEST);
            let _ = js_config("vitest.workspace.ts", VITEST, &src);
        }
    }

    #[test]
    fn honest_js_config_changes() {
        for (f, b, h) in [
            ("vitest.config.ts", VITEST, VITEST.replace("['src/**/*.test.ts']", "['src/**/*.test.ts', 'tests/**/*.test.ts']")),
            ("vitest.config.ts", VITEST, VITEST.replace("    environment: 'node',\n", "    environment: 'jsdom',\n    testTimeout: 20000,\n    hookTimeout: 20000,\n    globals: true,\n    pool: 'forks',\n    clearMocks: true,\n")),
            ("vitest.config.ts", VITEST, VITEST.replace("exclude: ['src/gen/**']", "exclude: ['src/gen/**', 'src/vendor/**'], thresholds: { lines: 80 }")),
            ("vitest.config.ts", VITEST, VITEST.replace("  plugins: [react()],\n", "  plugins: [react(), tsconfigPaths()],\n  server: { port: 3000 },\n  build: { outDir: 'dist' },\n")),
            ("vitest.config.ts", VITEST, VITEST.replace("    environment: 'node',\n", "    environment: 'node',\n    reporters: ['default', 'junit'],\n")),
            ("vitest.config.ts", VITEST, format!("// A comment\n{VITEST}")),
            ("jest.config.js", JEST, JEST.replace("  testEnvironment: 'node',\n", "  testEnvironment: 'jsdom',\n  testTimeout: 10000,\n  collectCoverage: true,\n  coveragePathIgnorePatterns: ['/gen/'],\n")),
            ("jest.config.js", JEST, JEST.replace("['**/*.test.js']", "['**/*.test.js', '**/*.spec.js']")),
            ("jest.config.js", JEST, JEST.replace("  testEnvironment: 'node',\n", "  testEnvironment: 'node',\n  transform: { '^.+\\\\.tsx?$': 'ts-jest' },\n")),
            ("vite.config.ts", "export default { root: 'app', build: { outDir: 'x' } }", "export default { root: 'web', build: { outDir: 'y' } }".to_owned()),
            ("vitest.config.ts", VITEST, "this is { not [ valid".to_owned()),
        ] {
            assert_eq!(d(f, b, &h), Vec::<String>::new(), "{h}");
        }
    }
}
