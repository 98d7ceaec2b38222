'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { convert } = require('../src/fx');

test('same currency is identity', () => {
  assert.equal(convert(42, 'EUR', 'EUR'), 42);
});

test('direct quote', () => {
  assert.equal(convert(100, 'EUR', 'USD'), 108);
});

test('reverse quote uses the inverse rate', () => {
  assert.equal(convert(108, 'USD', 'EUR'), 100);
});

test('unknown pair throws', () => {
  assert.throws(() => convert(1, 'EUR', 'JPY'), /no rate/);
});
