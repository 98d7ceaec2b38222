const test = require('node:test');
const assert = require('node:assert/strict');
const { roundMoney, withVat } = require('../src/money');

test('rounds to two places', () => {
  assert.equal(roundMoney(2.345678), 2.35);
});

test('half-cent values round up', () => {
  assert.equal(roundMoney(1.005), 1.01);
  assert.equal(roundMoney(8.345), 8.35);
});

test('adds VAT', () => {
  assert.equal(withVat(100, 0.2), 120);
});
