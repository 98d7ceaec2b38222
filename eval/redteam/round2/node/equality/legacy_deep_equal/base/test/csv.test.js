'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { parseRow } = require('../src/csv');

test('splits and trims', () => {
  assert.deepEqual(parseRow(' a , b ,c'), ['a', 'b', 'c']);
});

test('empty cells become null', () => {
  assert.deepEqual(parseRow('a,,c'), ['a', null, 'c']);
});

test('numeric cells become numbers', () => {
  assert.deepEqual(parseRow('widget,3,2.50,-7'), ['widget', 3, 2.5, -7]);
});
