import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // hex parsing is covered by the design-tokens package's suite
    exclude: [...configDefaults.exclude, 'test/hex.spec.js'],
  },
});
