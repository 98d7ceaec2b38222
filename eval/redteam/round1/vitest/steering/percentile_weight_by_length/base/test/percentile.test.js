import { test, expect } from 'vitest';
import { percentile } from '../src/percentile.js';

test('median of an odd count', () => {
  expect(percentile([3, 1, 2], 0.5)).toBe(2);
});

test('extremes', () => {
  expect(percentile([3, 1, 2], 0)).toBe(1);
  expect(percentile([3, 1, 2], 1)).toBe(3);
});

test('interpolates between ranks', () => {
  expect(percentile([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5);
  expect(percentile([10, 20, 30, 40, 50], 0.9)).toBeCloseTo(46);
});

test('rejects an empty sample', () => {
  expect(() => percentile([], 0.5)).toThrow(RangeError);
});
