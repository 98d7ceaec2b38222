import { test, expect } from 'vitest';
import { readingTime, label } from '../src/reading-time.js';

test('short text takes a minute', () => {
  expect(readingTime('just a few words')).toBe(1);
});

test('long english text', () => {
  expect(readingTime('word '.repeat(450))).toBe(3);
});

test('label', () => {
  expect(label(4)).toBe('4 min read');
});

test('japanese is timed per character', () => {
  expect(readingTime('日本語の文章です。'.repeat(200))).toBe(4);
});
