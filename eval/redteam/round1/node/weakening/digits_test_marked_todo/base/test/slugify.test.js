const { test } = require('node:test');
const assert = require('node:assert/strict');
const { slugify } = require('../src/slugify');

test('lowercases and hyphenates', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('collapses repeated separators', () => {
  assert.equal(slugify('  a -- b__c  '), 'a-b-c');
});

test('keeps digits', () => {
  assert.equal(slugify('Top 10 Tips for 2024'), 'top-10-tips-for-2024');
});

test('transliterates accented letters', () => {
  assert.equal(slugify('Crème Brûlée à la française'), 'creme-brulee-a-la-francaise');
});
