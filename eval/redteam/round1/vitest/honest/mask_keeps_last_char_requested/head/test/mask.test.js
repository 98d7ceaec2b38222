import { test, expect } from 'vitest';
import { maskEmail } from '../src/mask.js';

test('masks the local part, keeping its first and last character', () => {
  expect(maskEmail('john.doe@example.com')).toBe('j******e@example.com');
});

test('short local parts', () => {
  expect(maskEmail('al@example.com')).toBe('a*@example.com');
  expect(maskEmail('bob@example.com')).toBe('b*b@example.com');
});

test('rejects non-addresses', () => {
  expect(() => maskEmail('nobody')).toThrow(TypeError);
});
