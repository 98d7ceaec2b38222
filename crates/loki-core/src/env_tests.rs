use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::*;

/// The workspace root: this crate is `<root>/crates/loki-core`.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, skipping build output.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&workspace().join("crates"), &mut files);
    rust_files(&workspace().join("xtask"), &mut files);
    files
}

/// The 1-based lines of `text` that read a `LOKI_*` variable directly, by name.
fn direct_reads(text: &str) -> Vec<usize> {
    // Built from parts so this file does not match itself.
    let needles = ["var", "var_os", "option_env!"].map(|f| format!("{f}(\"LOKI_"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| needles.iter().any(|n| l.contains(n.as_str())))
        .map(|(i, _)| i + 1)
        .collect()
}

/// Variable names in string literals of `text`: the longest run of `[A-Z0-9_]` after each
/// `"LOKI_`, without a trailing `_` (a prefix such as `LOKI_RECEIPT_` names no variable).
/// Identifiers (`LOKI_DIR`) and prose (`LOKI_NAME=value`) are not variables.
fn loki_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("\"LOKI_") {
        let tail = &rest[i + 1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        if !name.ends_with('_') {
            names.insert(name.to_string());
        }
        rest = &tail[end..];
    }
    names
}

#[test]
fn the_scanners_find_what_they_look_for() {
    let sample = "let a = 1;\nlet h = std::env::var(\"LOKI_X\");\nstd::env::var_os(\"LOKI_Y\")\n";
    assert_eq!(direct_reads(sample), vec![2, 3]);
    assert_eq!(direct_reads("LOKI_HOME.get_os()"), Vec::<usize>::new());
    let names = loki_names(
        "\"LOKI_HOME\", \"LOKI_RECEIPT_\", \"LOKI_RUN_CAP_S=1\", LOKI_DIR and LOKI_NAME=value",
    );
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["LOKI_HOME", "LOKI_RUN_CAP_S"]
    );
}

/// The registry stays the one place: a direct read of a `LOKI_*` variable anywhere else in the
/// workspace fails here with its file and line.
#[test]
fn no_loki_variable_is_read_outside_the_registry() {
    let files = sources();
    assert!(
        files.len() > 100,
        "only {} source files found under {}",
        files.len(),
        workspace().display()
    );
    let registry = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/env.rs");
    let mut found = Vec::new();
    for f in &files {
        if f.ends_with("loki-core/src/env.rs") || f.ends_with("loki-core/src/env_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for line in direct_reads(&text) {
            found.push(format!("{}:{line}", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "read these through loki_core::env (add the variable to {} if it is new):\n{}",
        registry.display(),
        found.join("\n")
    );
}

/// Every `LOKI_*` name the product's code mentions is a variable of the registry or of the
/// configuration, so `loki --help` and this list cannot fall behind the code.
#[test]
fn every_loki_name_in_the_code_is_registered() {
    let known: BTreeSet<String> = all().into_iter().map(|l| l.name).collect();
    let mut unknown = Vec::new();
    for f in sources() {
        let s = f.to_string_lossy();
        // Integration tests and benchmarks may name fixture variables of their own, and this
        // file names unset ones on purpose.
        if s.contains("/tests/") || s.contains("/benches/") || s.ends_with("src/env_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for name in loki_names(&text) {
            if !known.contains(&name) {
                unknown.push(format!("{name} in {s}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "register these in loki_core::env: {unknown:#?}"
    );
}

#[test]
fn all_lists_the_registry_then_every_configuration_variable_once() {
    let listed = all();
    let names: Vec<&str> = listed.iter().map(|l| l.name.as_str()).collect();
    let own: Vec<&str> = VARS.iter().map(|v| v.name).collect();
    assert_eq!(&names[..VARS.len()], own.as_slice());
    for expected in [
        "LOKI_RUN_CAP_S",
        "LOKI_OUTPUT_COLOR",
        "LOKI_PROVIDER",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(
        unique.len(),
        names.len(),
        "a name is listed twice: {names:?}"
    );
    let cap = listed.iter().find(|l| l.name == "LOKI_RUN_CAP_S").unwrap();
    assert_eq!(cap.doc, "config run.cap_s: run cap in seconds");
}

#[test]
fn a_variable_reads_the_process_environment() {
    // PATH is set for every test process; the other name is set for none.
    let path = Var {
        name: "PATH",
        scope: Scope::Tests,
        doc: "",
    };
    assert_eq!(path.get_os(), std::env::var_os("PATH"));
    assert!(path.is_on());
    let unset = Var {
        name: "LOKI_SURELY_UNSET_IN_THIS_TEST",
        scope: Scope::Tests,
        doc: "",
    };
    assert_eq!(unset.get(), None);
    assert!(!unset.is_on());
    assert!(process_vars().iter().any(|(k, _)| k == "PATH"));
}

#[test]
fn help_lists_what_a_user_may_set() {
    insta::assert_snapshot!(help_text());
}

#[test]
fn loki_secrets_are_its_key_variables_not_the_users_conventional_names() {
    for name in [
        RECEIPT_SIGNING_KEY.name,
        RECEIPT_SIGNING_KEY_FILE.name,
        "LOKI_OPENAI_API_KEY",
        "LOKI_ANTHROPIC_API_KEY",
    ] {
        assert!(is_loki_secret(name), "{name}");
    }
    for name in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "LOKI_RUN_CAP_S",
        "PATH",
    ] {
        assert!(!is_loki_secret(name), "{name}");
    }
}
