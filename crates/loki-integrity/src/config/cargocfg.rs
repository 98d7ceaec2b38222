//! Cargo and nextest configuration judged by meaning (rule 4).
//!
//! - `.cargo/config.toml` / `.cargo/config`: an `[alias]` for `test`/`t`/`nextest` changed, or an
//!   alias that runs tests narrowed like a CI command; `rustflags`/`rustdocflags` (`[build]`,
//!   `[target.*]`) gaining `--cfg` or turning off debug assertions or overflow checks; `[env]`
//!   entries added or changed (beyond logging and colour); a `[target.*] runner`; `[source]`
//!   replacement; `[patch]`; a `rustc-wrapper` other than a compiler cache; `[profile.*]` turning
//!   off `debug-assertions`/`overflow-checks`.
//! - `Cargo.toml`: on a test target that existed at base (`[lib]`, `[[test]]`, `[[bin]]`,
//!   `[[example]]`), `harness = false`, `test = false`, `doctest = false` added or
//!   `required-features` grown; `autotests = false`; `[patch.*]`/`[replace]` entries added or
//!   changed; `[profile.dev|test]` (and their `package` overrides) turning off `debug-assertions`
//!   or `overflow-checks`. Dependency bumps, new targets and new features are honest.
//! - nextest (`.config/nextest.toml`): a profile's `default-filter` added or changed, `retries`
//!   raised, `run-extra-args`; `overrides` gaining `retries`, `default-filter` or `run-extra-args`;
//!   setup or wrapper `scripts` added or changed. `fail-fast`, timeouts, threads, reporting: honest.

use std::collections::{BTreeMap, BTreeSet};

use crate::shell::split_words;
use crate::testcmd::runs::Hit;
use crate::testcmd::{self as testcmd, Mode};
use loki_syntax::cfgparse::{self, Node, Tv};

fn hit(line: Option<u32>, detail: String) -> Hit {
    Hit { line, detail }
}

fn words_of(n: &Node) -> Vec<String> {
    match &n.v {
        Tv::Str(s) => split_words(s),
        Tv::Arr(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn tab(n: Option<&Node>) -> BTreeMap<&str, &Node> {
    n.and_then(Node::table)
        .map(|t| t.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

/// Entries of table `at` in `h` that are new or different from `b`.
fn changed_entries<'a>(b: &'a Node, h: &'a Node, at: &[&str]) -> Vec<(String, &'a Node)> {
    let (bt, ht) = (tab(b.at(at)), tab(h.at(at)));
    ht.into_iter()
        .filter(|(k, v)| bt.get(k).is_none_or(|x| x.v != v.v))
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

fn off(n: Option<&Node>) -> bool {
    n.is_some_and(|n| n.as_bool() == Some(false) || n.as_str() == Some("false"))
}

/// `[profile.<p>]` (and `[profile.<p>.package.*]`) turning off runtime checks, for `profiles`.
fn profile_checks(file: &str, b: &Node, h: &Node, profiles: &[&str], out: &mut Vec<Hit>) {
    for p in profiles {
        let mut tables: Vec<(String, Option<&Node>, Option<&Node>)> = vec![(
            format!("profile.{p}"),
            b.at(&["profile", p]),
            h.at(&["profile", p]),
        )];
        for (pkg, hn) in tab(h.at(&["profile", p, "package"])) {
            tables.push((
                format!("profile.{p}.package.{pkg}"),
                b.at(&["profile", p, "package", pkg]),
                Some(hn),
            ));
        }
        for (name, bn, hn) in tables {
            let Some(hn) = hn else { continue };
            for key in ["debug-assertions", "overflow-checks"] {
                if off(hn.get(key)) && !off(bn.and_then(|n| n.get(key))) {
                    out.push(hit(
                        hn.get(key).map(|n| n.line),
                        format!("{file} `[{name}] {key} = false` turns off checks the tests rely on (`debug_assert!`, overflow panics)"),
                    ));
                }
            }
        }
    }
}

fn rustflags(file: &str, b: &Node, h: &Node, at: &[&str], out: &mut Vec<Hit>) {
    for key in ["rustflags", "rustdocflags"] {
        let mut p: Vec<&str> = at.to_vec();
        p.push(key);
        let Some(hn) = h.at(&p) else { continue };
        let bw = b.at(&p).map(words_of).unwrap_or_default();
        for c in testcmd::rustflags_changes(&bw, &words_of(hn)) {
            out.push(hit(
                Some(hn.line),
                format!("{file} `[{}] {key}` {}", at.join("."), c.text),
            ));
        }
    }
}

const HARMLESS_ENV: &[&str] = &[
    "RUST_BACKTRACE",
    "RUST_LOG",
    "CARGO_TERM_COLOR",
    "TERM",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "RUST_LIB_BACKTRACE",
];
const CACHES: &[&str] = &["sccache", "cachepot", "ccache"];

/// `.cargo/config.toml` findings.
pub fn cargo_config(file: &str, base: &str, head: &str) -> Vec<Hit> {
    let empty = Node {
        v: Tv::Tab(BTreeMap::new()),
        line: 1,
    };
    let Some(h) = cfgparse::toml(head) else {
        return Vec::new();
    };
    let b = cfgparse::toml(base).unwrap_or_else(|| empty.clone());
    let mut out = Vec::new();
    aliases(file, &b, &h, &mut out);
    rustflags(file, &b, &h, &["build"], &mut out);
    targets_config(file, &b, &h, &mut out);
    replaced_code(file, &b, &h, &mut out);
    profile_checks(file, &b, &h, &["dev", "test"], &mut out);
    out
}

/// `[alias]`: `test`/`t`/`nextest` redefined, or an alias that ran tests narrowed or no longer
/// running them.
fn aliases(file: &str, b: &Node, h: &Node, out: &mut Vec<Hit>) {
    for (name, v) in changed_entries(b, h, &["alias"]) {
        let hw = words_of(v);
        let bw = b.at(&["alias", &name]).map(words_of).unwrap_or_default();
        let cargo = |w: &[String]| {
            let mut c = vec!["cargo".to_owned()];
            c.extend_from_slice(w);
            testcmd::identify(&c, &[])
        };
        if matches!(name.as_str(), "test" | "t" | "nextest") {
            out.push(hit(
                Some(v.line),
                format!(
                    "{file} `[alias] {name}` redefines `cargo {name}` as `cargo {}`",
                    hw.join(" ")
                ),
            ));
            continue;
        }
        match (cargo(&bw), cargo(&hw)) {
            (Some(bc), Some(hc)) if std::ptr::eq(bc.spec, hc.spec) => {
                let changes = testcmd::compare_args(bc.spec, &bc.args, &hc.args, Mode::Config);
                if !changes.is_empty() {
                    let what = changes
                        .into_iter()
                        .map(|c| c.text)
                        .collect::<Vec<_>>()
                        .join("; ");
                    out.push(hit(
                        Some(v.line),
                        format!("{file} `[alias] {name}` runs fewer tests: {what}"),
                    ));
                }
            }
            (Some(_), None) => out.push(hit(
                Some(v.line),
                format!(
                    "{file} `[alias] {name}` no longer runs tests (`cargo {}`)",
                    hw.join(" ")
                ),
            )),
            _ => {}
        }
    }
}

/// `[target.*]`: its `rustflags` and a new or changed `runner`.
fn targets_config(file: &str, b: &Node, h: &Node, out: &mut Vec<Hit>) {
    for (triple, t) in tab(h.get("target")) {
        rustflags(file, b, h, &["target", triple], out);
        if let Some(r) = t.get("runner")
            && b.at(&["target", triple, "runner"])
                .is_none_or(|x| x.v != r.v)
        {
            out.push(hit(Some(r.line), format!("{file} `[target.{triple}] runner = {}` runs every test binary through another program, which decides the result", r.render())));
        }
    }
}

/// What swaps the code or its inputs: `[env]` entries beyond logging and colour, `[source]`
/// replacement, `[patch]`, and a `rustc-wrapper` other than a compiler cache.
fn replaced_code(file: &str, b: &Node, h: &Node, out: &mut Vec<Hit>) {
    for (k, v) in changed_entries(b, h, &["env"]) {
        if !HARMLESS_ENV.contains(&k.as_str()) {
            out.push(hit(
                Some(v.line),
                format!(
                    "{file} `[env] {k}` set to {}: the code under test reads its environment",
                    v.render()
                ),
            ));
        }
    }
    for (k, v) in changed_entries(b, h, &["source"]) {
        out.push(hit(
            Some(v.line),
            format!(
                "{file} `[source.{k}]` replaces where dependencies come from ({})",
                v.render()
            ),
        ));
    }
    for (k, v) in changed_entries(b, h, &["patch"]) {
        out.push(hit(
            Some(v.line),
            format!(
                "{file} `[patch.{k}]` swaps dependencies for other code ({})",
                v.render()
            ),
        ));
    }
    for key in ["rustc-wrapper", "rustc-workspace-wrapper"] {
        if let Some(w) = h.at(&["build", key]) {
            let cmd = w.as_str().unwrap_or("");
            let name = cmd
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(cmd)
                .trim_end_matches(".exe");
            if b.at(&["build", key]).is_none_or(|x| x.v != w.v) && !CACHES.contains(&name) {
                out.push(hit(
                    Some(w.line),
                    format!(
                        "{file} `[build] {key} = {}` runs the compiler through another program",
                        w.render()
                    ),
                ));
            }
        }
    }
}

/// Test targets of a manifest by kind and name, with their table.
fn targets(doc: &Node) -> BTreeMap<String, &Node> {
    let mut out = BTreeMap::new();
    if let Some(lib) = doc.get("lib") {
        out.insert("[lib]".to_owned(), lib);
    }
    for kind in ["test", "bin", "example"] {
        for t in doc.get(kind).and_then(Node::array).unwrap_or(&[]) {
            let name = t
                .get("name")
                .and_then(Node::as_str)
                .or_else(|| t.get("path").and_then(Node::as_str))
                .unwrap_or("?");
            out.insert(format!("[[{kind}]] {name}"), t);
        }
    }
    out
}

/// `Cargo.toml` findings.
pub fn cargo_manifest(file: &str, existed: bool, base: &str, head: &str) -> Vec<Hit> {
    let (Some(b), Some(h)) = (cfgparse::toml(base), cfgparse::toml(head)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (bt, ht) = (targets(&b), targets(&h));
    for (name, ht) in &ht {
        let Some(bt) = bt.get(name) else { continue };
        for (key, what) in [
            (
                "harness",
                "its tests now run under a custom `main` that decides what passing means",
            ),
            ("test", "`cargo test` no longer runs its tests"),
            ("doctest", "its doctests no longer run"),
        ] {
            if off(ht.get(key)) && !off(bt.get(key)) {
                out.push(hit(
                    ht.get(key).map(|n| n.line),
                    format!("{file} `{name}`: `{key} = false` added, so {what}"),
                ));
            }
        }
        let feats = |n: &Node| {
            n.get("required-features")
                .map(Node::strings)
                .unwrap_or_default()
                .into_iter()
                .collect::<BTreeSet<_>>()
        };
        let added: Vec<String> = feats(ht).difference(&feats(bt)).cloned().collect();
        if !added.is_empty() {
            out.push(hit(ht.get("required-features").map(|n| n.line), format!("{file} `{name}`: `required-features` adds {}, so cargo skips it unless they are enabled", added.join(", "))));
        }
    }
    // A new manifest declares a new package: how it lists its tests is where it starts.
    for section in ["package", "project"].into_iter().filter(|_| existed) {
        let (bn, hn) = (b.at(&[section, "autotests"]), h.at(&[section, "autotests"]));
        if off(hn) && !off(bn) {
            out.push(hit(
                hn.map(|n| n.line),
                format!(
                    "{file} `autotests = false`: test files not listed as `[[test]]` no longer run"
                ),
            ));
        }
    }
    for (k, v) in changed_entries(&b, &h, &["patch"]) {
        out.push(hit(
            Some(v.line),
            format!(
                "{file} `[patch.{k}]` swaps dependencies for other code ({})",
                v.render()
            ),
        ));
    }
    for (k, v) in changed_entries(&b, &h, &["replace"]) {
        out.push(hit(
            Some(v.line),
            format!(
                "{file} `[replace]` swaps `{k}` for other code ({})",
                v.render()
            ),
        ));
    }
    profile_checks(file, &b, &h, &["dev", "test"], &mut out);
    out
}

fn retries(n: Option<&Node>) -> u64 {
    let Some(n) = n else { return 0 };
    let count = n.get("count").unwrap_or(n);
    match &count.v {
        Tv::Other(s) => s.parse().unwrap_or(0),
        _ => 0,
    }
}

/// nextest configuration findings.
pub fn nextest(file: &str, base: &str, head: &str) -> Vec<Hit> {
    let empty = Node {
        v: Tv::Tab(BTreeMap::new()),
        line: 1,
    };
    let Some(h) = cfgparse::toml(head) else {
        return Vec::new();
    };
    let b = cfgparse::toml(base).unwrap_or_else(|| empty.clone());
    let mut out = Vec::new();
    for (p, hp) in tab(h.get("profile")) {
        let bp = b.at(&["profile", p]);
        if let Some(f) = hp.get("default-filter")
            && bp
                .and_then(|x| x.get("default-filter"))
                .is_none_or(|x| x.v != f.v)
        {
            out.push(hit(
                Some(f.line),
                format!(
                    "{file} `[profile.{p}] default-filter = {}` runs only the tests it selects",
                    f.render()
                ),
            ));
        }
        if retries(hp.get("retries")) > retries(bp.and_then(|x| x.get("retries"))) {
            let r = hp.get("retries");
            out.push(hit(r.map(|n| n.line), format!("{file} `[profile.{p}] retries` raised: a test that fails and then passes on a retry counts as passing")));
        }
        if let Some(a) = hp.get("run-extra-args")
            && bp
                .and_then(|x| x.get("run-extra-args"))
                .is_none_or(|x| x.v != a.v)
        {
            out.push(hit(
                Some(a.line),
                format!(
                    "{file} `[profile.{p}] run-extra-args = {}` changes how test binaries run",
                    a.render()
                ),
            ));
        }
        let b_over: Vec<&Node> = bp
            .and_then(|x| x.get("overrides"))
            .and_then(Node::array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        for o in hp.get("overrides").and_then(Node::array).unwrap_or(&[]) {
            if b_over.iter().any(|x| x.v == o.v) {
                continue;
            }
            let matters = retries(o.get("retries")) > 0
                || o.get("run-extra-args").is_some()
                || o.get("default-filter").is_some();
            if matters {
                out.push(hit(Some(o.line), format!("{file} `[[profile.{p}.overrides]]` {} retries or changes how the matched tests run", o.render())));
            }
        }
        let b_scripts: Vec<&Node> = bp
            .and_then(|x| x.get("scripts"))
            .and_then(Node::array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        for s in hp.get("scripts").and_then(Node::array).unwrap_or(&[]) {
            if !b_scripts.iter().any(|x| x.v == s.v) {
                out.push(hit(
                    Some(s.line),
                    format!(
                        "{file} `[[profile.{p}.scripts]]` {} runs scripts around the tests",
                        s.render()
                    ),
                ));
            }
        }
    }
    for root in ["scripts", "script"] {
        for (kind, t) in tab(h.get(root)) {
            match &t.v {
                Tv::Tab(entries) => {
                    for (name, v) in entries {
                        if b.at(&[root, kind, name]).is_none_or(|x| x.v != v.v) {
                            out.push(hit(Some(v.line), format!("{file} `[{root}.{kind}.{name}]` {} runs around the tests and can change their results", v.render())));
                        }
                    }
                }
                _ => {
                    if b.at(&[root, kind]).is_none_or(|x| x.v != t.v) {
                        out.push(hit(Some(t.line), format!("{file} `[{root}.{kind}]` runs around the tests and can change their results")));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(hits: Vec<Hit>) -> Vec<String> {
        hits.into_iter().map(|h| h.detail).collect()
    }

    #[test]
    fn cargo_config_cheats_and_honest_changes() {
        let f = ".cargo/config.toml";
        let c = |b: &str, h: &str| d(cargo_config(f, b, h));
        assert_eq!(
            c("", "[alias]\ntest = \"build\"\n"),
            [".cargo/config.toml `[alias] test` redefines `cargo test` as `cargo build`"]
        );
        assert_eq!(
            c(
                "[alias]\nci = \"test --workspace\"\n",
                "[alias]\nci = \"test --lib\"\n"
            )
            .len(),
            1
        );
        assert_eq!(
            c("", "[build]\nrustflags = [\"--cfg\", \"fake_clock\"]\n").len(),
            1
        );
        assert_eq!(
            c(
                "",
                "[target.x86_64-unknown-linux-gnu]\nrustflags = \"-C overflow-checks=off\"\n"
            )
            .len(),
            1
        );
        assert_eq!(c("", "[target.'cfg(unix)']\nrunner = \"true\"\n").len(), 1);
        assert_eq!(c("", "[env]\nFAKE_MODE = \"1\"\n").len(), 1);
        assert_eq!(c("", "[source.crates-io]\nreplace-with = \"vendored\"\n[source.vendored]\ndirectory = \"vendor\"\n").len(), 2);
        assert_eq!(
            c(
                "",
                "[patch.crates-io]\nserde = { path = \"../fake-serde\" }\n"
            )
            .len(),
            1
        );
        assert_eq!(c("", "[profile.dev]\ndebug-assertions = false\n").len(), 1);
        assert_eq!(c("", "[build]\nrustc-wrapper = \"./wrap.sh\"\n").len(), 1);
        for (b, h) in [
            (
                "",
                "[build]\njobs = 2\ntarget-dir = \"target\"\nrustc-wrapper = \"sccache\"\n",
            ),
            (
                "",
                "[build]\nrustflags = [\"-D\", \"warnings\"]\n[env]\nRUST_BACKTRACE = \"1\"\n",
            ),
            ("", "[alias]\nxtask = \"run --package xtask --\"\n"),
            (
                "[alias]\nci = \"test --lib\"\n",
                "[alias]\nci = \"test --workspace\"\n",
            ),
            (
                "[net]\nretry = 2\n",
                "[net]\nretry = 3\n[term]\ncolor = \"always\"\n",
            ),
            ("", "[profile.dev]\nopt-level = 1\ndebug = false\n"),
            ("", "not toml = = ["),
        ] {
            assert_eq!(c(b, h), Vec::<String>::new(), "{h}");
        }
    }

    #[test]
    fn manifest_cheats_and_honest_changes() {
        let base = "[package]\nname = \"a\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1.0\"\n\n[[test]]\nname = \"it\"\n\n[[bench]]\nname = \"b\"\n";
        let m = |h: &str| d(cargo_manifest("Cargo.toml", true, base, h));
        assert_eq!(
            m(&base.replace("name = \"it\"\n", "name = \"it\"\nharness = false\n")),
            [
                "Cargo.toml `[[test]] it`: `harness = false` added, so its tests now run under a custom `main` that decides what passing means"
            ]
        );
        assert_eq!(
            m(&base.replace("name = \"it\"\n", "name = \"it\"\ntest = false\n")).len(),
            1
        );
        assert_eq!(
            m(&base.replace(
                "name = \"it\"\n",
                "name = \"it\"\nrequired-features = [\"never\"]\n"
            ))
            .len(),
            1
        );
        assert_eq!(
            m(&base.replace(
                "version = \"0.1.0\"\n",
                "version = \"0.1.0\"\nautotests = false\n"
            ))
            .len(),
            1
        );
        assert_eq!(
            m(&format!("{base}[lib]\ndoctest = false\n")),
            Vec::<String>::new(),
            "a [lib] table new at head is a new target"
        );
        let with_lib = format!("{base}[lib]\npath = \"src/lib.rs\"\n");
        assert_eq!(
            d(cargo_manifest(
                "Cargo.toml",
                true,
                &with_lib,
                &with_lib.replace(
                    "path = \"src/lib.rs\"\n",
                    "path = \"src/lib.rs\"\ndoctest = false\n"
                )
            ))
            .len(),
            1
        );
        assert_eq!(
            m(&format!(
                "{base}[patch.crates-io]\nserde = {{ path = \"../serde\" }}\n"
            ))
            .len(),
            1
        );
        assert_eq!(
            m(&format!("{base}[profile.test]\noverflow-checks = false\n")).len(),
            1
        );
        for h in [
            base.replace("serde = \"1.0\"", "serde = \"1.0.200\"\nanyhow = \"1\""),
            format!("{base}\n[[test]]\nname = \"golden\"\nharness = false\n"),
            base.replace("name = \"b\"\n", "name = \"b\"\nharness = false\n"),
            format!("{base}[features]\nextra = []\n[profile.release]\nlto = true\n"),
            base.replace("version = \"0.1.0\"", "version = \"0.2.0\""),
        ] {
            assert_eq!(m(&h), Vec::<String>::new(), "{h}");
        }
    }

    #[test]
    fn nextest_cheats_and_honest_changes() {
        let n = |b: &str, h: &str| d(nextest(".config/nextest.toml", b, h));
        assert_eq!(
            n(
                "[profile.default]\n",
                "[profile.default]\ndefault-filter = 'not test(add)'\n"
            )
            .len(),
            1
        );
        assert_eq!(
            n(
                "[profile.default]\nretries = 0\n",
                "[profile.default]\nretries = 3\n"
            )
            .len(),
            1
        );
        assert_eq!(
            n(
                "[profile.default]\n",
                "[profile.default]\nretries = { backoff = \"fixed\", count = 2 }\n"
            )
            .len(),
            1
        );
        assert_eq!(
            n(
                "",
                "[[profile.default.overrides]]\nfilter = 'test(flaky)'\nretries = 5\n"
            )
            .len(),
            1
        );
        assert_eq!(n("", "[scripts.setup.db]\ncommand = 'fake-db'\n[[profile.default.scripts]]\nfilter = 'all()'\nsetup = 'db'\n").len(), 2);
        for (b, h) in [
            (
                "[profile.default]\n",
                "[profile.default]\nfail-fast = false\nslow-timeout = \"60s\"\ntest-threads = 4\nstatus-level = \"all\"\n",
            ),
            (
                "[profile.default]\nretries = 2\n",
                "[profile.default]\nretries = 1\n",
            ),
            (
                "",
                "[profile.ci.junit]\npath = \"junit.xml\"\n[[profile.default.overrides]]\nfilter = 'test(slow)'\nslow-timeout = \"5m\"\n",
            ),
        ] {
            assert_eq!(n(b, h), Vec::<String>::new(), "{h}");
        }
    }
}
