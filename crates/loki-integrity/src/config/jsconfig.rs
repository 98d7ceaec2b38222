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
//!
//! # Submodules
//! - `entries`: a config read into its `key: value` entries (JS/TS by the lexer, JSON parsed);
//! - `compare`: what each key's change means, and the findings between base and head entries.

mod compare;
mod entries;

pub use compare::changes;
pub use entries::json_entries;

use crate::testcmd::runs::Hit;
use entries::js_entries;

/// One `key: value` of a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: Vec<String>,
    /// The value as written (strings quoted), whitespace collapsed.
    pub text: String,
    pub strings: Vec<String>,
    /// Line guess (from the lexed code; block comments can make it early).
    pub line: u32,
}
/// A JS/TS config file (jest, vitest, vite, vitest workspace).
pub fn js_config(file: &str, base: &str, head: &str) -> Vec<Hit> {
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
mod tests;
