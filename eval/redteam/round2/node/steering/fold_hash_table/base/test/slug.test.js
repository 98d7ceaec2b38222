'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { slugify } = require('../src/slug');

test('joins words with dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('trims surrounding separators', () => {
  assert.equal(slugify('  --Trim me!--  '), 'trim-me');
});

test('collapses runs of punctuation', () => {
  assert.equal(slugify('a -- b ,, c'), 'a-b-c');
});

test('folds accented letters', () => {
  assert.equal(slugify('Crème Brûlée'), 'creme-brulee');
});
