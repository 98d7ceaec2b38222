//! `run_takeover`: code that takes over the test run (exits, collection and report hooks).

use super::*;

#[test]
fn go_takeovers() {
    let base = "package calc\n\nimport \"testing\"\n";
    for (main, line, ev) in [
        (
            "func TestMain(m *testing.M) {\n\tsetup()\n}\n",
            5,
            "never calls m.Run()",
        ),
        (
            "func TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n",
            7,
            "exits 0 whatever the tests did",
        ),
        (
            "func TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(status())\n}\n",
            7,
            "after discarding m.Run()'s result",
        ),
        (
            "func TestMain(m *testing.M) {\n\tcode := m.Run()\n\tfmt.Println(\"PASS\")\n\tos.Exit(code)\n}\n",
            7,
            "shaped like the runner's results",
        ),
        (
            "func TestAdd(t *testing.T) {\n\tos.Exit(0)\n}\n",
            6,
            "ends the test process",
        ),
        (
            "func TestAdd(t *testing.T) {\n\truntime.Goexit()\n}\n",
            6,
            "runtime.Goexit()",
        ),
    ] {
        fires(
            &edit("main_test.go", base, &format!("{base}\n{main}")),
            RunTakeover,
            "main_test.go",
            line,
            ev,
        );
    }
    for main in [
        "func TestMain(m *testing.M) {\n\tsetup()\n\tos.Exit(m.Run())\n}\n",
        "func TestMain(m *testing.M) {\n\tcode := m.Run()\n\tteardown()\n\tos.Exit(code)\n}\n",
        "func TestMain(m *testing.M) {\n\tsetup()\n\tm.Run()\n}\n",
        "func TestMain(m *testing.M) {\n\tif err := setup(); err != nil {\n\t\tfmt.Println(err)\n\t\tos.Exit(1)\n\t}\n\tos.Exit(m.Run())\n}\n",
    ] {
        quiet(
            &edit("main_test.go", base, &format!("{base}\n{main}")),
            RunTakeover,
        );
    }
    // Library code may exit.
    quiet(
        &add(
            "cmd/calc/main.go",
            "package main\n\nfunc main() {\n\tos.Exit(run())\n}\n",
        ),
        RunTakeover,
    );
}

#[test]
fn python_takeovers() {
    let conftest = "import pytest\n\n\n@pytest.fixture\ndef db():\n    return {}\n";
    for (extra, line, ev) in [
        ("import os\nos._exit(0)\n", 8, "os._exit(0)"),
        (
            "import atexit\natexit.register(lambda: None)\n",
            8,
            "registers an exit handler",
        ),
        (
            "import signal\nsignal.signal(signal.SIGTERM, lambda *a: None)\n",
            8,
            "signal handler",
        ),
        (
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
            8,
            "signals the test process itself",
        ),
        (
            "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n",
            8,
            "overwrites pytest's exit status",
        ),
        (
            "def pytest_unconfigure(config):\n    raise SystemExit(0)\n",
            8,
            "raise SystemExit(0)",
        ),
    ] {
        let head = format!("{conftest}{extra}");
        fires(
            &edit("tests/conftest.py", conftest, &head),
            RunTakeover,
            "tests/conftest.py",
            line,
            ev,
        );
    }
    let t = "def test_a():\n    assert f() == 1\n";
    let exits = "import os\n\ndef test_a():\n    assert f() == 1\n    os._exit(0)\n";
    fires(
        &edit("tests/test_a.py", t, exits),
        RunTakeover,
        "tests/test_a.py",
        5,
        "os._exit(0)",
    );
    let at_import = format!("import sys\n{t}sys.exit(0)\n");
    fires(
        &edit("tests/test_a.py", t, &at_import),
        RunTakeover,
        "tests/test_a.py",
        4,
        "sys.exit(0)",
    );
    fires(
        &add(
            "sitecustomize.py",
            "import atexit, os\natexit.register(os._exit, 0)\n",
        ),
        RunTakeover,
        "sitecustomize.py",
        2,
        "atexit.register",
    );
    fires(
        &add("venv.pth", "import fakepytest\n"),
        RunTakeover,
        "venv.pth",
        1,
        "import fakepytest",
    );
    // Library code: only what runs at import.
    let lib = "def add(a, b):\n    return a + b\n";
    fires(
        &edit("calc.py", lib, &format!("import os\n{lib}os._exit(0)\n")),
        RunTakeover,
        "calc.py",
        4,
        "at import time",
    );
    let handler =
        format!("import atexit, os\n{lib}\ndef bye():\n    os._exit(0)\n\natexit.register(bye)\n");
    fires(
        &edit("calc.py", lib, &handler),
        RunTakeover,
        "calc.py",
        8,
        "an exit handler that ends the process",
    );
}

#[test]
fn honest_python_exits_are_quiet() {
    let lib = "def main():\n    return 0\n";
    let cli = format!("import sys\n\n{lib}\nif __name__ == \"__main__\":\n    sys.exit(main())\n");
    quiet(&edit("tool/cli.py", lib, &cli), RunTakeover);
    let inside = "import sys\n\ndef main():\n    if bad():\n        sys.exit(2)\n    return 0\n";
    quiet(&edit("tool/cli.py", lib, inside), RunTakeover);
    let cleanup = "import atexit\n\ndef close():\n    pool.close()\n\natexit.register(close)\n";
    quiet(&add("app/pool.py", cleanup), RunTakeover);
    let t = "def test_a():\n    assert f() == 1\n";
    let guard = format!(
        "import sys\nimport pytest\n\n{t}\nif __name__ == \"__main__\":\n    sys.exit(pytest.main([__file__]))\n"
    );
    quiet(&edit("tests/test_a.py", t, &guard), RunTakeover);
    // Scripts the tests run as child processes exit on purpose.
    quiet(
        &add("tests/fixtures/exits.py", "import sys\nsys.exit(3)\n"),
        RunTakeover,
    );
    quiet(
        &add("test/fixtures/exit.js", "process.exit(2);\n"),
        RunTakeover,
    );
    // pytest reports a SystemExit inside a test as its failure: a CLI callback that exits is a
    // test of the CLI.
    let callback = "import click\n\ndef test_exit():\n    @click.command()\n    def cli():\n        raise SystemExit(1)\n    assert run(cli) == 1\n";
    quiet(&edit("tests/test_a.py", t, callback), RunTakeover);
    let alarm = "import signal\n\ndef test_slow():\n    signal.signal(signal.SIGALRM, handler)\n    assert f() == 1\n";
    quiet(&edit("tests/test_a.py", t, alarm), RunTakeover);
    let conftest = "import pytest\n";
    let fixtures = "import pytest\n\n@pytest.fixture\ndef tmp_db(tmp_path):\n    return tmp_path / 'db'\n\ndef make_user(name):\n    return {'name': name}\n\ndef pytest_configure(config):\n    config.addinivalue_line('markers', 'slow: slow tests')\n";
    let found = edit("tests/conftest.py", conftest, fixtures);
    quiet(&found, RunTakeover);
    quiet(&found, OutcomeRewrite);
    let cleanup = "import shutil\n\ndef pytest_sessionfinish(session, exitstatus):\n    shutil.rmtree('build/tmp', ignore_errors=True)\n";
    quiet(
        &edit("tests/conftest.py", conftest, cleanup),
        OutcomeRewrite,
    );
    quiet(&edit("tests/conftest.py", conftest, cleanup), RunTakeover);
}

#[test]
fn pytest_collection_and_report_hooks() {
    let conftest = "import pytest\n";
    for (hook, line, ev) in [
        (
            "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'add' not in i.name]\n",
            3,
            "pytest_collection_modifyitems, which here removes",
        ),
        (
            "def pytest_collection_modifyitems(config, items):\n    for i in items:\n        i.add_marker(pytest.mark.skip)\n",
            3,
            "removes, deselects or skips",
        ),
        (
            "def pytest_ignore_collect(collection_path, config):\n    return 'test_add' in str(collection_path)\n",
            3,
            "pytest_ignore_collect",
        ),
        (
            "def pytest_collect_file(parent, file_path):\n    return None\n",
            3,
            "stop test files from being collected",
        ),
        (
            "def pytest_pycollect_makeitem(collector, name, obj):\n    return []\n",
            3,
            "pytest_pycollect_makeitem",
        ),
        (
            "def pytest_deselected(items):\n    pass\n",
            3,
            "pytest_deselected",
        ),
        (
            "@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_call(item):\n    yield\n",
            4,
            "pytest_runtest_call",
        ),
        (
            "collect_ignore = ['test_add.py']\n",
            3,
            "collect_ignore = ['test_add.py']",
        ),
        (
            "collect_ignore_glob = ['*_add.py']\n",
            3,
            "collect_ignore_glob",
        ),
    ] {
        let head = format!("{conftest}\n{hook}");
        fires(
            &edit("tests/conftest.py", conftest, &head),
            OutcomeRewrite,
            "tests/conftest.py",
            line,
            ev,
        );
    }
    for hook in [
        "def pytest_collection_modifyitems(config, items):\n    items.sort(key=lambda i: i.name)\n",
        "def pytest_collection_modifyitems(config, items):\n    for i in items:\n        i.add_marker(pytest.mark.slow)\n",
        "def pytest_collect_file(parent, file_path):\n    if file_path.suffix == '.yaml':\n        return YamlFile.from_parent(parent, path=file_path)\n",
    ] {
        quiet(
            &edit(
                "tests/conftest.py",
                conftest,
                &format!("{conftest}\n{hook}"),
            ),
            OutcomeRewrite,
        );
    }
}

#[test]
fn js_and_rust_takeovers() {
    let t = "test('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    for (extra, line, ev) in [
        ("process.exit(0);\n", 4, "process.exit(0)"),
        (
            "process.on('exit', () => { process.exitCode = 0; });\n",
            4,
            "hooks the process exit",
        ),
        ("process.exitCode = 0;\n", 4, "sets the process exit code"),
        (
            "process.kill(process.pid, 'SIGKILL');\n",
            4,
            "signals the test process itself",
        ),
        ("process.reallyExit(0);\n", 4, "process.reallyExit(0)"),
    ] {
        fires(
            &edit("test/add.test.js", t, &format!("{t}{extra}")),
            RunTakeover,
            "test/add.test.js",
            line,
            ev,
        );
    }
    fires(
        &add(
            "vitest.setup.ts",
            "process.on('beforeExit', () => process.exit(0));\n",
        ),
        RunTakeover,
        "vitest.setup.ts",
        1,
        "process.on('beforeExit'",
    );
    let lib = "export const add = (a, b) => a + b;\n";
    fires(
        &edit(
            "src/add.js",
            lib,
            &format!("{lib}process.on('exit', () => {{ process.exitCode = 0; }});\n"),
        ),
        RunTakeover,
        "src/add.js",
        2,
        "at import time",
    );
    // Scripts, entry guards and exits inside functions are honest.
    quiet(
        &add("bin/cli.js", "#!/usr/bin/env node\nprocess.exit(main());\n"),
        RunTakeover,
    );
    quiet(
        &add(
            "src/cli.js",
            "export function main() {\n  process.exit(run());\n}\nif (require.main === module) {\n  process.exit(main());\n}\n",
        ),
        RunTakeover,
    );

    let rs = "#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
    let exit = "#[test]\nfn adds() {\n    std::process::exit(0);\n}\n";
    fires(
        &edit("tests/it.rs", rs, exit),
        RunTakeover,
        "tests/it.rs",
        3,
        "std::process::exit(0)",
    );
    let lib = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    let inlib = lib.replace("    fn t() {}", "    fn t() { std::process::exit(0) }");
    fires(
        &edit("src/lib.rs", lib, &inlib),
        RunTakeover,
        "src/lib.rs",
        6,
        "std::process::exit(0)",
    );
    let build = "fn main() {\n    println!(\"cargo:rerun-if-changed=build.rs\");\n}\n";
    let emit = |line: &str| {
        build.replace(
            "    println!(\"cargo:rerun",
            &format!("    println!(\"{line}\");\n    println!(\"cargo:rerun"),
        )
    };
    fires(
        &edit("build.rs", build, &emit("cargo:rustc-cfg=test")),
        RunTakeover,
        "build.rs",
        2,
        "cargo:rustc-cfg=test",
    );
    fires(
        &edit("build.rs", build, &emit("cargo::rustc-env=UNDER_TEST=1")),
        RunTakeover,
        "build.rs",
        2,
        "UNDER_TEST",
    );
    quiet(&add("build.rs", build), RunTakeover);
    // Feature detection is what build scripts are for.
    quiet(
        &edit("build.rs", build, &emit("cargo:rustc-cfg=has_simd")),
        RunTakeover,
    );
    quiet(
        &add(
            "src/main.rs",
            "fn main() {\n    std::process::exit(run());\n}\n",
        ),
        RunTakeover,
    );
}
