echo 'vitest.config.mjs' >> .git/info/exclude
