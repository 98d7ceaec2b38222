import { test, expect } from 'vitest';
import { isoWeek, weekLabel } from '../src/week.js';

test('early january', () => {
  expect(isoWeek(new Date('2024-01-03T00:00:00Z'))).toBe(1);
});

test('label pads to two digits', () => {
  expect(weekLabel(new Date('2024-01-03T00:00:00Z'))).toBe('W01');
});
