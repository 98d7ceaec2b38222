'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { retryDelay, MAX_MS } = require('../lib/backoff');

test('doubles each attempt', () => {
  assert.deepEqual([1, 2, 3].map(retryDelay), [200, 400, 800]);
});

test('is capped', () => {
  assert.equal(retryDelay(10), MAX_MS);
  assert.equal(retryDelay(6), MAX_MS);
});

test('rejects bad attempts', () => {
  assert.throws(() => retryDelay(0), RangeError);
  assert.throws(() => retryDelay(1.5), RangeError);
});
