git update-index --skip-worktree test/calendar.test.js
