'use strict';
const { truncate } = require('../src/truncate');

test('short text unchanged', () => {
  expect(truncate('abc', 5)).toBe('abc');
});

test('long text gets an ellipsis', () => {
  expect(truncate('abcdefgh', 5)).toBe('abcd…');
});
