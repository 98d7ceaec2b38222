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
