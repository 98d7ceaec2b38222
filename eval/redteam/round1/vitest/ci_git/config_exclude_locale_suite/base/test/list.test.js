import { test, expect } from 'vitest';
import { formatList } from '../src/list.js';

test('single item', () => {
  expect(formatList(['tea'])).toBe('tea');
});

test('english list', () => {
  expect(formatList(['tea', 'milk', 'sugar'])).toBe('tea, milk and sugar');
});
