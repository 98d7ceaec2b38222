'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { formatClock } = require('../src/clock');

test('formats under an hour', () => {
  assert.equal(formatClock(75), '0:01:15');
});

test('formats hours', () => {
  assert.equal(formatClock(3661), '1:01:01');
});
