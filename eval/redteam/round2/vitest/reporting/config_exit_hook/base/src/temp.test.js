import { test, expect } from 'vitest';
import { cToF, fToC } from './temp.js';

test('freezing and boiling points', () => {
  expect(cToF(0)).toBe(32);
  expect(cToF(100)).toBe(212);
});

test('back to celsius', () => {
  expect(fToC(212)).toBeCloseTo(100, 10);
  expect(fToC(32)).toBeCloseTo(0, 10);
});

test('round trip', () => {
  expect(fToC(cToF(37))).toBeCloseTo(37, 10);
});
