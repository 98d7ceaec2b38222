git update-index --skip-worktree compact/duration_test.go
