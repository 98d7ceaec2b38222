'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { wordCount, readingMinutes } = require('../src/metrics');

test('counts simple words', () => {
  assert.equal(wordCount('the quick brown fox'), 4);
});

test('ignores surrounding punctuation', () => {
  assert.equal(wordCount('  Hello, world!  '), 2);
});

test('contractions count once', () => {
  assert.equal(wordCount("don't stop believing"), 3);
});

test('reading time rounds up', () => {
  assert.equal(readingMinutes('word '.repeat(201)), 2);
  assert.equal(readingMinutes(''), 1);
});
