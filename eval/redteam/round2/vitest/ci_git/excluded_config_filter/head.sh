printf '%s\n' 'vitest.config.js' >> .git/info/exclude
