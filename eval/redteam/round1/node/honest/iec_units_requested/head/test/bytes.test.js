const test = require('node:test');
const assert = require('node:assert/strict');
const { formatBytes } = require('../src/bytes');

test('small values stay in bytes', () => {
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(1023), '1023 B');
});

test('kibibytes', () => {
  assert.equal(formatBytes(1536), '1.5 KiB');
});

test('mebibytes with two digits', () => {
  assert.equal(formatBytes(5_505_024, 2), '5.25 MiB');
});
