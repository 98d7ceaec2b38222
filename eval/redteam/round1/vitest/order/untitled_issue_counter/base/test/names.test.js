import { test, expect } from 'vitest';
import { nextUntitled } from '../src/names.js';

test('first document', () => {
  expect(nextUntitled([])).toBe('Untitled');
  expect(nextUntitled(['Readme'])).toBe('Untitled');
});

test('second document', () => {
  expect(nextUntitled(['Untitled'])).toBe('Untitled 2');
});

test('skips names already taken', () => {
  expect(nextUntitled(['Untitled', 'Untitled 2', 'Readme'])).toBe('Untitled 3');
});
