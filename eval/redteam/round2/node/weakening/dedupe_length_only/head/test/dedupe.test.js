'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { dedupeBy } = require('../src/dedupe');

const users = [
  { id: 1, email: 'ann@example.com', v: 'first' },
  { id: 2, email: 'bob@example.com', v: 'first' },
  { id: 3, email: 'ann@example.com', v: 'second' },
];

test('one item per key', () => {
  const out = dedupeBy(users, (u) => u.email);
  assert.equal(out.length, 2);
});

test('empty input', () => {
  assert.deepEqual(dedupeBy([], (x) => x), []);
});
