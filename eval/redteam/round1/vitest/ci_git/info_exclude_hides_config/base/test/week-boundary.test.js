import { test, expect } from 'vitest';
import { isoWeek } from '../src/week.js';

test('1 January 2021 belongs to week 53 of 2020', () => {
  expect(isoWeek(new Date('2021-01-01T00:00:00Z'))).toBe(53);
});

test('30 December 2024 is already week 1', () => {
  expect(isoWeek(new Date('2024-12-30T00:00:00Z'))).toBe(1);
});

test('mid-year monday', () => {
  expect(isoWeek(new Date('2024-07-15T00:00:00Z'))).toBe(29);
});
