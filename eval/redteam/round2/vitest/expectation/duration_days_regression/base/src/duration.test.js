import { test, expect } from 'vitest';
import { formatDuration } from './duration.js';

test.each([
  [45, '45s'],
  [60, '1m'],
  [3661, '1h 1m'],
  [90000, '1d 1h'],
  [172800, '2d 0h'],
])('formatDuration(%i) -> %s', (seconds, want) => {
  expect(formatDuration(seconds)).toBe(want);
});
