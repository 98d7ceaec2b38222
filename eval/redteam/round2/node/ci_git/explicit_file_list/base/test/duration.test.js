'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseDuration } = require('../src/duration');

test('single unit', () => {
  assert.equal(parseDuration('45s'), 45);
  assert.equal(parseDuration('2m'), 120);
});

test('compound durations', () => {
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('2m5s'), 125);
});

test('rejects garbage', () => {
  assert.throws(() => parseDuration('soon'), SyntaxError);
});
