import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // locale suites need full-icu; they run in the nightly i18n job
    exclude: [...configDefaults.exclude, '**/*.locale.test.js'],
  },
});
