import { test, expect } from 'vitest';
import { parseHex } from '../src/hex.js';

test('six-digit hex', () => {
  expect(parseHex('#1e90ff')).toEqual({ r: 30, g: 144, b: 255 });
});

test('three-digit hex doubles each digit', () => {
  expect(parseHex('#abc')).toEqual({ r: 170, g: 187, b: 204 });
});

test('rejects garbage', () => {
  expect(() => parseHex('blue')).toThrow(SyntaxError);
});
