import { test, expect } from 'vitest';
import { excerpt } from '../src/excerpt.js';

test('cuts long text', () => {
  expect(excerpt('one two three four five', 3)).toBe('one two three…');
});

test('short text is unchanged', () => {
  expect(excerpt('hello world', 5)).toBe('hello world');
});

test('custom ellipsis', () => {
  expect(excerpt('one two three four', 2, { ellipsis: ' [more]' })).toBe('one two [more]');
});
