import { test, expect } from 'vitest';
import { parseCsvLine } from '../src/csv.js';

test('plain fields', () => {
  expect(parseCsvLine('a,b,c')).toEqual(['a', 'b', 'c']);
});

test('quoted field with a comma', () => {
  expect(parseCsvLine('"x, y",z')).toEqual(['x, y', 'z']);
});

test('keeps empty fields', () => {
  expect(parseCsvLine('a,,b,')).toEqual(['a', '', 'b', '']);
});

test('doubled quotes are a literal quote', () => {
  expect(parseCsvLine('"say ""hi""",x')).toEqual(['say "hi"', 'x']);
});
