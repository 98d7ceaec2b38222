const test = require('node:test');
const assert = require('node:assert/strict');
const { formatBytes } = require('../src/bytes');

test('small values stay in bytes', () => {
  assert.equal(formatBytes(999), '999 B');
});

test('kilobytes', () => {
  assert.equal(formatBytes(1500), '1.5 kB');
});

test('megabytes with two digits', () => {
  assert.equal(formatBytes(5_250_000, 2), '5.25 MB');
});
