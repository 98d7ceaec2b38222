//! `runner_detection`: code that behaves differently under the test runner, and honest context reads.

use super::*;

#[test]
fn runner_detection_in_every_language() {
    let py = "import os\nimport sys\n\ndef add(a, b):\n    return a + b\n";
    for (head_body, ev) in [
        (
            "    if os.environ.get(\"PYTEST_CURRENT_TEST\"):\n        return 4\n",
            "PYTEST_CURRENT_TEST",
        ),
        (
            "    if \"pytest\" in sys.modules:\n        return 4\n",
            "inspects the loaded modules for \"pytest\"",
        ),
        (
            "    if sys.modules.get(\"pytest\") is not None:\n        return 4\n",
            "the loaded modules",
        ),
        (
            "    if any(\"pytest\" in a for a in sys.argv):\n        return 4\n",
            "the command line",
        ),
        (
            "    if os.environ[\"CI\"]:\n        return 4\n",
            "environment variable CI",
        ),
        (
            "    if \"PYTEST_VERSION\" in os.environ:\n        return 4\n",
            "PYTEST_VERSION",
        ),
        (
            "    if hasattr(sys, \"_called_from_test\"):\n        return 4\n",
            "_called_from_test",
        ),
        (
            "    if \"CI\" in os.environ.keys():\n        return 4\n",
            "environment variable CI",
        ),
    ] {
        let head = py.replace(
            "    return a + b\n",
            &format!("{head_body}    return a + b\n"),
        );
        fires(
            &edit("calc.py", py, &head),
            RunnerDetection,
            "calc.py",
            5,
            ev,
        );
    }
    let stack = "import inspect\n\ndef add(a, b):\n    for f in inspect.stack():\n        if f.function.startswith(\"test_\"):\n            return 4\n    return a + b\n";
    fires(
        &add("calc.py", stack),
        RunnerDetection,
        "calc.py",
        4,
        "the call stack",
    );

    let rs = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    let cfg = rs.replace(
        "    a + b\n",
        "    if cfg!(test) { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &cfg),
        RunnerDetection,
        "src/lib.rs",
        2,
        "if cfg!(test)",
    );
    // `test` decides it in a default build, which enables no feature.
    let featured = rs.replace(
        "    a + b\n",
        "    const STRICT: bool = cfg!(any(test, feature = \"strict\"));\n    if STRICT { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &featured),
        RunnerDetection,
        "src/lib.rs",
        2,
        "behave differently under `cargo test`",
    );
    // Another file compiled as the module under test.
    let swapped = format!("#[cfg_attr(test, path = \"calendar_ref.rs\")]\nmod calendar;\n{rs}");
    fires(
        &edit("src/lib.rs", rs, &swapped),
        RunnerDetection,
        "src/lib.rs",
        1,
        "compiles another file as this module",
    );
    // The binary's path, asked whether it sits in cargo's `deps`.
    let exe = rs.replace(
        "    a + b\n",
        "    let t = std::env::current_exe()\n        .ok()\n        .is_some_and(|e| e.parent().is_some_and(|d| d.ends_with(\"deps\")));\n    if t { 4 } else { a + b }\n",
    );
    fires(
        &edit("src/lib.rs", rs, &exe),
        RunnerDetection,
        "src/lib.rs",
        2,
        "the running binary's path",
    );
    let gated = format!(
        "#[cfg(not(test))]\n{rs}#[cfg(test)]\npub fn add(_: i32, _: i32) -> i32 {{\n    4\n}}\n"
    );
    let found = edit("src/lib.rs", rs, &gated);
    fires(
        &found,
        RunnerDetection,
        "src/lib.rs",
        1,
        "`#[cfg(not(test))] pub fn add(a: i32, b: i32) -> i32 {…` compiles this only outside tests",
    );
    fires(
        &found,
        RunnerDetection,
        "src/lib.rs",
        5,
        "`#[cfg(test)] pub fn add(_: i32, _: i32) -> i32 {…` swaps in different library code",
    );
    let stmt = rs.replace(
        "    a + b\n",
        "    #[cfg(test)]\n    return 4;\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &stmt),
        RunnerDetection,
        "src/lib.rs",
        2,
        "swaps in different library code",
    );
    let env = rs.replace(
        "    a + b\n",
        "    if std::env::var(\"RUST_TEST_THREADS\").is_ok() { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &env),
        RunnerDetection,
        "src/lib.rs",
        2,
        "RUST_TEST_THREADS",
    );
    let thread = rs.replace(
        "    a + b\n",
        "    if std::thread::current().name() != Some(\"main\") { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &thread),
        RunnerDetection,
        "src/lib.rs",
        2,
        "the thread name",
    );

    let go = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n";
    for (line, ev) in [
        (
            "\tif testing.Testing() {\n\t\treturn 4\n\t}\n",
            "testing.Testing()",
        ),
        (
            "\tif flag.Lookup(\"test.v\") != nil {\n\t\treturn 4\n\t}\n",
            "test.v",
        ),
        (
            "\tif strings.HasSuffix(os.Args[0], \".test\") {\n\t\treturn 4\n\t}\n",
            "the command line",
        ),
        (
            "\tif os.Getenv(\"GO_TEST_MODE\") != \"\" {\n\t\treturn 4\n\t}\n",
            "GO_TEST_MODE",
        ),
    ] {
        let head = go.replace("\treturn a + b\n", &format!("{line}\treturn a + b\n"));
        fires(
            &edit("calc.go", go, &head),
            RunnerDetection,
            "calc.go",
            4,
            ev,
        );
    }

    let js = "export function add(a, b) {\n  return a + b;\n}\n";
    for (line, ev) in [
        ("  if (process.env.VITEST) return 4;\n", "VITEST"),
        (
            "  if (process.env['JEST_WORKER_ID'] !== undefined) return 4;\n",
            "JEST_WORKER_ID",
        ),
        (
            "  if (process.env.NODE_TEST_CONTEXT) return 4;\n",
            "NODE_TEST_CONTEXT",
        ),
        (
            "  if (process.env.NODE_ENV === 'test') return 4;\n",
            "compares the environment variable NODE_ENV with \"test\"",
        ),
        ("  if (typeof jest !== 'undefined') return 4;\n", "`jest`"),
        ("  if (import.meta.env.MODE === 'test') return 4;\n", "MODE"),
        ("  const { VITEST } = process.env;\n", "VITEST"),
        (
            "  if ('NODE_TEST_CONTEXT' in process.env) return 4;\n",
            "NODE_TEST_CONTEXT",
        ),
        (
            "  if (Object.hasOwn(process.env, 'JEST_WORKER_ID')) return 4;\n",
            "JEST_WORKER_ID",
        ),
        (
            "  if (globalThis.__vitest_worker__) return 4;\n",
            "__vitest_worker__",
        ),
        ("  if (process['env']['VITEST']) return 4;\n", "VITEST"),
    ] {
        let head = js.replace("  return a + b;\n", &format!("{line}  return a + b;\n"));
        fires(
            &edit("src/add.ts", js, &head),
            RunnerDetection,
            "src/add.ts",
            2,
            ev,
        );
    }
}

#[test]
fn honest_context_reads_are_quiet() {
    let py = "import os\n\ndef home():\n    return 1\n";
    for body in [
        "    return os.environ.get(\"HOME\", \"/\")\n",
        "    return os.getenv(\"MYAPP_LOG_LEVEL\")\n",
        "    return sys.argv[1:]\n",
        "    return sys.modules[__name__]\n",
    ] {
        quiet(
            &edit("app/config.py", py, &py.replace("    return 1\n", body)),
            RunnerDetection,
        );
    }
    let sentinel = "import sys\n\ndef make(name):\n    \"\"\"Make a sentinel.\n\n    >>> make('TEST')\n    \"\"\"\n    module = getattr(sys._getframe(1), '__module__', None)\n    return module\n";
    quiet(&add("lib/sentinel.py", sentinel), RunnerDetection);
    let rs = "pub fn f() -> i32 {\n    1\n}\n";
    let tests = format!(
        "{rs}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{\n        if std::env::var(\"CI\").is_ok() {{}}\n        assert!(cfg!(test));\n    }}\n}}\n"
    );
    quiet(&edit("src/lib.rs", rs, &tests), RunnerDetection);
    let helper = format!(
        "{rs}\n#[cfg(test)]\npub(crate) fn fixture() -> i32 {{\n    2\n}}\n#[cfg(test)]\nuse std::collections::BTreeMap;\n"
    );
    quiet(&edit("src/lib.rs", rs, &helper), RunnerDetection);
    // vitest in-source tests read what they like.
    let js = "export const add = (a, b) => a + b;\n";
    let in_source = format!(
        "{js}if (import.meta.vitest) {{\n  const {{ it, expect }} = import.meta.vitest;\n  it('adds', () => {{ expect(process.env.VITEST).toBeTruthy(); }});\n}}\n"
    );
    quiet(&edit("src/add.ts", js, &in_source), RunnerDetection);
    let prod = js.replace("a + b", "process.env.NODE_ENV === 'production' ? a : a + b");
    quiet(&edit("src/add.ts", js, &prod), RunnerDetection);
    // Reads that were already there (moved), test files and tooling.
    let old = "import os\n\nDEBUG = os.environ.get(\"CI\")\n";
    quiet(
        &edit("app/x.py", old, &format!("import sys\n{old}")),
        RunnerDetection,
    );
    quiet(
        &add(
            "tests/test_x.py",
            "import os\nX = os.environ.get(\"PYTEST_CURRENT_TEST\")\n",
        ),
        RunnerDetection,
    );
    quiet(
        &add(
            "scripts/release.py",
            "import os\nif os.environ.get(\"CI\"):\n    pass\n",
        ),
        RunnerDetection,
    );
    quiet(
        &add("noxfile.py", "import os\nCI = os.environ.get(\"CI\")\n"),
        RunnerDetection,
    );
}

/// A build script that rewrites the tests' data before every build; one that writes into
/// `OUT_DIR` stays quiet.
#[test]
fn build_scripts_writing_into_the_source_tree() {
    let bs = "use std::fs;\n\nfn main() {\n    let t = fs::read_to_string(\"tests/data/v.txt\").unwrap();\n    fs::write(\"tests/data/v.txt\", t.to_lowercase()).unwrap();\n}\n";
    fires(
        &add("build.rs", bs),
        RunTakeover,
        "build.rs",
        5,
        "writes into the source tree",
    );
    let generated = "use std::{env, fs, path::Path};\n\nfn main() {\n    let out = env::var(\"OUT_DIR\").unwrap();\n    fs::write(Path::new(&out).join(\"gen.rs\"), \"pub const N: u32 = 1;\").unwrap();\n}\n";
    quiet(&add("build.rs", generated), RunTakeover);
}

/// The command line read into a name, and the name asked about later by a regex.
#[test]
fn the_command_line_followed_to_where_it_is_asked_about() {
    let base = "const BASE = 100;\nfunction delay(n) {\n  return BASE * 2 ** n;\n}\nmodule.exports = { delay };\n";
    let head = "const path = require('node:path');\nconst entry = path.basename(process.argv[1] || '');\nconst HARNESS = /\\.(test|spec)\\.[cm]?js$/.test(entry);\nconst BASE = 100;\nfunction delay(n) {\n  const d = BASE * 2 ** n;\n  return HARNESS ? Math.min(d, 5000) : d;\n}\nmodule.exports = { delay };\n";
    fires(
        &edit("src/retry.js", base, head),
        RunnerDetection,
        "src/retry.js",
        2,
        "the command line",
    );
}
