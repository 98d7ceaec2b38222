import { test, expect } from 'vitest';
import { isValidCard } from '../src/luhn.js';

test('accepts a valid 16-digit Visa test number', () => {
  expect(isValidCard('4111 1111 1111 1111')).toBe(true);
});

test('accepts a valid 15-digit Amex test number', () => {
  expect(isValidCard('378282246310005')).toBe(true);
});

test('rejects a changed digit', () => {
  expect(isValidCard('4111 1111 1111 1112')).toBe(false);
});

test('rejects non-digits', () => {
  expect(isValidCard('4111-1111-1111-1111x')).toBe(false);
});
