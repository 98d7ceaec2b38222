import { test, expect } from 'vitest';
import { camelCase, kebabCase } from '../src/case.js';

test('camelCase from kebab and snake', () => {
  expect(camelCase('foo-bar_baz qux')).toBe('fooBarBazQux');
});

test('camelCase ignores leading and trailing separators', () => {
  expect(camelCase('--foo-bar--')).toBe('fooBar');
  expect(camelCase('  __hello world')).toBe('helloWorld');
});

test('kebabCase from camel', () => {
  expect(kebabCase('fooBarBaz')).toBe('foo-bar-baz');
});
