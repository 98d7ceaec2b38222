const test = require('node:test');
const assert = require('node:assert/strict');
const { parseDuration } = require('../src/duration');

test('compound durations', () => {
  assert.equal(parseDuration('1h30m'), 5_400_000);
});

test('single units', () => {
  assert.deepEqual(['250ms', '90s', '2m', '1d'].map(parseDuration), [250, 90_000, 120_000, 86_400_000]);
});

test('fractional amounts', () => {
  assert.deepEqual(['1.5h', '0.5s', '2.25m'].map(parseDuration), [5_400_000, 500, 135_000]);
});

test('rejects garbage', () => {
  assert.throws(() => parseDuration('soon'), SyntaxError);
});
