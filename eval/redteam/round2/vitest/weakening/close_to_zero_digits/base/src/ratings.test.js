import { test, expect } from 'vitest';
import { averageRating, histogram } from './ratings.js';

test('average of ratings', () => {
  expect(averageRating([1, 2, 4])).toBe(2.33);
});

test('no ratings', () => {
  expect(averageRating([])).toBeNull();
});

test('histogram', () => {
  expect(histogram([5, 5, 1, 3])).toEqual([1, 0, 1, 0, 2]);
});
