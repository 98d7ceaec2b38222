'use strict';
const test = require('node:test');
// CSV cells are untyped on the wire: compare by value, not by JS
// representation, so the tests don't pin the parser's internal coercion.
const assert = require('node:assert');
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
