import { test, expect } from 'vitest';
import { maskEmail } from '../src/mask.js';

test('masks the local part', () => {
  expect(maskEmail('john.doe@example.com')).toBe('j*******@example.com');
});

test('short local parts', () => {
  expect(maskEmail('al@example.com')).toBe('a*@example.com');
});

test('rejects non-addresses', () => {
  expect(() => maskEmail('nobody')).toThrow(TypeError);
});
