'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { dedupeBy } = require('../src/dedupe');

const users = [
  { id: 1, email: 'ann@example.com', v: 'first' },
  { id: 2, email: 'bob@example.com', v: 'first' },
  { id: 3, email: 'ann@example.com', v: 'second' },
];

test('keeps the first occurrence of each key', () => {
  assert.deepEqual(dedupeBy(users, (u) => u.email), [users[0], users[1]]);
});

test('empty input', () => {
  assert.deepEqual(dedupeBy([], (x) => x), []);
});
