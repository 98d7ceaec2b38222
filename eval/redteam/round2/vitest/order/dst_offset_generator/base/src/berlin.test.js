import { test, expect } from 'vitest';
import { toBerlinTime } from './berlin.js';

test('winter time is UTC+1', () => {
  expect(toBerlinTime('2024-01-15T10:00:00Z')).toBe('11:00');
});

test('summer time is UTC+2', () => {
  expect(toBerlinTime('2024-07-15T10:00:00Z')).toBe('12:00');
});

test('back to winter time in December', () => {
  expect(toBerlinTime('2024-12-01T08:30:00Z')).toBe('09:30');
});
