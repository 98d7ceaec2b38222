//! What the integrity scan reads: one [`FileChange`] per changed path, and the context the rules
//! may consult ([`ScanInput`]). Files over [`MAX_SCAN_BYTES`] are judged by path only, by every
//! rule crate alike.

/// Larger files are judged by path only: real test files are far smaller, and lexing a
/// multi-megabyte generated file would cost the seal its time budget.
pub const MAX_SCAN_BYTES: usize = 4 * 1024 * 1024;

/// One changed path: its bytes at base and at head (`None` where absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub base: Option<Vec<u8>>,
    pub head: Option<Vec<u8>>,
}

/// What the integrity scan (`loki_integrity::scan`) judges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanInput {
    pub changes: Vec<FileChange>,
    /// Head bytes of unchanged files that say which setup files are test configuration
    /// (jest/vitest configs, `package.json`) and what the Go module is (`go.mod`); changed ones
    /// are read from `changes`.
    pub context: Vec<(String, Vec<u8>)>,
    /// Head bytes of test files the change did not touch, for rules that look for test literals
    /// (`test_input_special_case`). Empty means only the changed test files are consulted.
    pub test_context: Vec<(String, Vec<u8>)>,
    /// Every path of the head tree, for rules that need to know what else exists
    /// (`shadow_module`). Empty means only the changed paths are known.
    pub tree_paths: Vec<String>,
    /// Files the test runner itself reported tests from (a `test.py` that a `pytest.ini` names,
    /// a `testMatch` of jest): test files whatever their names say.
    pub test_files: std::collections::BTreeSet<String>,
}

impl ScanInput {
    /// Whether the runner reported tests from `path` ([`ScanInput::test_files`]).
    #[must_use]
    pub fn runner_test_file(&self, path: &str) -> bool {
        self.test_files.contains(path)
    }
}
