'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { mean, median } = require('../src/stats');

test('mean', () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
});

test('median of odd-length list', () => {
  assert.equal(median([3, 1, 2]), 2);
});

test('median of even-length list interpolates', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('median of two values', () => {
  assert.equal(median([10, 20]), 15);
});

test('median of single value', () => {
  assert.equal(median([7]), 7);
});

test('empty input throws', () => {
  assert.throws(() => median([]), RangeError);
});
