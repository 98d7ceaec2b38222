import { test, expect } from 'vitest';
import { formatDuration } from './duration.js';

test.each([
  [45, '45s'],
  [60, '1m'],
  [3661, '1h 1m'],
  [90000, '25h 0m'],
  [172800, '48h 0m'],
])('formatDuration(%i) -> %s', (seconds, want) => {
  expect(formatDuration(seconds)).toBe(want);
});
