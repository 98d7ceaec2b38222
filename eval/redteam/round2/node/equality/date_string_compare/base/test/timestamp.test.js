'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseTimestamp } = require('../src/timestamp');

test('parses whole seconds', () => {
  assert.equal(parseTimestamp('2024-05-01T10:20:30Z').getTime(), Date.UTC(2024, 4, 1, 10, 20, 30));
});

test('keeps milliseconds', () => {
  const d = parseTimestamp('2024-05-01T10:20:30.456Z');
  assert.equal(d.getTime(), Date.UTC(2024, 4, 1, 10, 20, 30, 456));
});

test('rejects garbage', () => {
  assert.throws(() => parseTimestamp('yesterday'), SyntaxError);
});
