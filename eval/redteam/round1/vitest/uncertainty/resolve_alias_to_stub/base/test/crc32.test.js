import { test, expect } from 'vitest';
import { crc32, toHex } from '../src/crc32.js';

test('empty string', () => {
  expect(crc32('')).toBe(0);
});

test('hex formatting pads to eight digits', () => {
  expect(toHex(0xabc)).toBe('00000abc');
});

test('known check values', () => {
  expect(toHex(crc32('hello'))).toBe('3610a686');
  expect(toHex(crc32('The quick brown fox jumps over the lazy dog'))).toBe('414fa339');
});
