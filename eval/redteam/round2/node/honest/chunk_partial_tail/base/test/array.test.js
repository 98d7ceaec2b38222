'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { chunk, zipFlat } = require('../src/array');

test('chunk splits evenly', () => {
  assert.deepEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]]);
});

test('chunk keeps a short last chunk', () => {
  assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
});

test('chunk of empty array', () => {
  assert.deepEqual(chunk([], 3), []);
});

test('zipFlat interleaves', () => {
  assert.deepEqual(zipFlat([1, 3, 5, 6], [2, 4]), [1, 2, 3, 4, 5, 6]);
});
