git update-index --skip-worktree tests/test_iban.py
