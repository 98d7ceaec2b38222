import { test, expect } from 'vitest';
import { detectDelimiter } from '../src/sniff.js';

test('comma separated', () => {
  expect(detectDelimiter('a,b,c\n1,2,3')).toBe(',');
});

test('quoted commas do not count', () => {
  expect(detectDelimiter('"last, first";"city, country"\nDoe;Paris')).toBe(';');
});

test('tab separated', () => {
  expect(detectDelimiter('a\tb\tc\n1\t2\t3')).toBe('\t');
});

test('pipes', () => {
  expect(detectDelimiter('id|name\n1|x')).toBe('|');
});
