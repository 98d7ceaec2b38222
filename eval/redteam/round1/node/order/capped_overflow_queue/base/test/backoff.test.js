const test = require('node:test');
const assert = require('node:assert/strict');
const { delayFor, totalWait } = require('../src/backoff');

test('first retry waits the base delay', () => {
  assert.equal(delayFor(0), 100);
});

test('doubles each attempt', () => {
  assert.equal(delayFor(3), 800);
});

test('never exceeds the cap', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5].map(delayFor), [100, 200, 400, 800, 1000, 1000]);
});

test('total wait of the first three retries', () => {
  assert.equal(totalWait(3), 700);
});
