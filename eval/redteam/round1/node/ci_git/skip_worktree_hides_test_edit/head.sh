git update-index --skip-worktree test/phone.test.js
