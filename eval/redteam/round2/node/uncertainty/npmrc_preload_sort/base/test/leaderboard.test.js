'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { topScores, rankOf } = require('../src/leaderboard');

test('top three, highest first', () => {
  assert.deepEqual(topScores([9, 100, 25, 7, 80]), [100, 80, 25]);
});

test('fewer scores than n', () => {
  assert.deepEqual(topScores([5, 12], 3), [12, 5]);
});

test('rank with ties', () => {
  assert.equal(rankOf(80, [100, 80, 80, 3]), 2);
});
