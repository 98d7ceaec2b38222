'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { formatAmount, formatSigned } = require('../src/format');

test('groups thousands', () => {
  assert.equal(formatAmount(1234567.891), '1,234,567.89');
});

test('pads to two decimals', () => {
  assert.equal(formatAmount(0.5), '0.50');
});

test('signed amounts', () => {
  assert.equal(formatSigned(-12), '-12.00');
  assert.equal(formatSigned(3.1), '+3.10');
});
