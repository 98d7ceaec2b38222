git update-index --skip-worktree tests/quote.rs
