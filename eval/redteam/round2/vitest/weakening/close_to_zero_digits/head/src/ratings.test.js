import { test, expect } from 'vitest';
import { averageRating, histogram } from './ratings.js';

test('average of ratings', () => {
  // float averages: don't pin the last digit
  expect(averageRating([1, 2, 4])).toBeCloseTo(2.33, 0);
});

test('no ratings', () => {
  expect(averageRating([])).toBeNull();
});

test('histogram', () => {
  expect(histogram([5, 5, 1, 3])).toEqual([1, 0, 1, 0, 2]);
});
