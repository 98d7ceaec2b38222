//! `shadow_module`: new modules that shadow the code under test, and honest new modules.

use super::*;

fn shadow(changes: Vec<FileChange>, tree: &[&str]) -> Vec<Finding> {
    scan(&ScanInput {
        changes,
        tree_paths: tree.iter().map(|s| (*s).to_owned()).collect(),
        ..ScanInput::default()
    })
}

#[test]
fn shadow_modules_are_caught() {
    let tree = [
        "pyproject.toml",
        "src/mylib/__init__.py",
        "src/mylib/core.py",
        "tests/test_core.py",
    ];
    let found = shadow(
        vec![fc("mylib.py", None, Some("def add(a, b):\n    return 4\n"))],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "mylib.py",
        1,
        "shadows the project's `src/mylib`",
    );
    let found = shadow(
        vec![fc(
            "tests/mylib/__init__.py",
            None,
            Some("add = lambda a, b: 4\n"),
        )],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "tests/mylib/__init__.py",
        1,
        "code run from `tests` imports this one instead",
    );
    let found = shadow(
        vec![fc(
            "tests/random.py",
            None,
            Some("def randint(a, b):\n    return 4\n"),
        )],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "tests/random.py",
        1,
        "standard library's `random`",
    );

    let js_tree = [
        "package.json",
        "src/calc.ts",
        "src/calc.test.ts",
        "src/util/index.ts",
    ];
    let found = shadow(
        vec![fc(
            "src/calc.js",
            None,
            Some("export const add = () => 4;\n"),
        )],
        &js_tree,
    );
    fires(
        &found,
        ShadowModule,
        "src/calc.js",
        1,
        "instead of the existing `src/calc.ts`",
    );
    let found = shadow(
        vec![fc(
            "src/calc/index.js",
            None,
            Some("export const add = () => 4;\n"),
        )],
        &js_tree,
    );
    fires(&found, ShadowModule, "src/calc/index.js", 1, "src/calc.ts");
    let found = shadow(
        vec![fc("src/util.js", None, Some("export {};\n"))],
        &js_tree,
    );
    fires(&found, ShadowModule, "src/util.js", 1, "src/util/index.ts");
    let found = shadow(
        vec![
            fc(
                "src/calc.ts",
                Some("export const add = (a, b) => a + b;\n"),
                Some("export const add = (a, b) => a - b;\n"),
            ),
            fc(
                "src/__mocks__/calc.ts",
                None,
                Some("export const add = () => 4;\n"),
            ),
        ],
        &js_tree,
    );
    fires(
        &found,
        ShadowModule,
        "src/__mocks__/calc.ts",
        1,
        "manual mock of `src/calc.ts`",
    );

    let go_mod = "module example.com/calc\n\ngo 1.22\n";
    let found = scan(&ScanInput {
        changes: vec![fc(
            "vendor/example.com/calc/calc.go",
            None,
            Some("package calc\n"),
        )],
        context: vec![("go.mod".into(), go_mod.as_bytes().to_vec())],
        tree_paths: vec!["go.mod".into(), "calc.go".into()],
        ..ScanInput::default()
    });
    fires(
        &found,
        ShadowModule,
        "vendor/example.com/calc/calc.go",
        1,
        "vendors a copy of the module's own package",
    );
    let found = shadow(
        vec![
            fc(
                "go.mod",
                Some(go_mod),
                Some(&format!("{go_mod}\nreplace example.com/dep => ./fakedep\n")),
            ),
            fc("fakedep/dep.go", None, Some("package dep\n")),
        ],
        &["go.mod", "calc.go"],
    );
    fires(
        &found,
        ShadowModule,
        "fakedep/dep.go",
        1,
        "replaces a dependency",
    );
}

#[test]
fn honest_new_modules_are_quiet() {
    let tree = [
        "pyproject.toml",
        "src/mylib/__init__.py",
        "src/mylib/core.py",
        "pkg/__init__.py",
    ];
    for path in [
        "tests/helpers.py",
        "src/mylib/random.py",
        "tests/test_random.py",
        "pkg/json.py",
        "src/newlib/__init__.py",
        "tests/__init__.py",
        "docs/code.py",
        "tools/json.py",
    ] {
        quiet(
            &shadow(vec![fc(path, None, Some("x = 1\n"))], &tree),
            ShadowModule,
        );
    }
    let js_tree = ["src/calc.js", "src/calc.test.js"];
    for path in [
        "src/calc.d.ts",
        "src/other.ts",
        "src/__mocks__/calc.js",
        "dist/calc.js",
    ] {
        quiet(
            &shadow(vec![fc(path, None, Some("export {};\n"))], &js_tree),
            ShadowModule,
        );
    }
    // A third-party module vendored.
    let found = scan(&ScanInput {
        changes: vec![fc(
            "vendor/github.com/pkg/errors/errors.go",
            None,
            Some("package errors\n"),
        )],
        context: vec![("go.mod".into(), b"module example.com/calc\n".to_vec())],
        tree_paths: vec!["go.mod".into(), "errors/errors.go".into()],
        ..ScanInput::default()
    });
    quiet(&found, ShadowModule);
}
