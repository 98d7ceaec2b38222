'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseTimestamp } = require('../src/timestamp');

// Compare rendered dates rather than raw epoch numbers: getTime() on dates
// built through different paths can differ in the sub-millisecond rounding
// on some engines, which made this test flaky.
function sameInstant(actual, expected) {
  assert.equal(String(actual), String(expected));
}

test('parses whole seconds', () => {
  sameInstant(parseTimestamp('2024-05-01T10:20:30Z'), new Date(Date.UTC(2024, 4, 1, 10, 20, 30)));
});

test('keeps milliseconds', () => {
  const d = parseTimestamp('2024-05-01T10:20:30.456Z');
  sameInstant(d, new Date(Date.UTC(2024, 4, 1, 10, 20, 30, 456)));
});

test('rejects garbage', () => {
  assert.throws(() => parseTimestamp('yesterday'), SyntaxError);
});
