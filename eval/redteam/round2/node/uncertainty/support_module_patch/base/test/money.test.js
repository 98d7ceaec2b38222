'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { roundMoney, invoiceTotal } = require('../src/money');

test('rounds half up', () => {
  assert.equal(roundMoney(2.345), 2.35);
  assert.equal(roundMoney(1.005), 1.01);
});

test('rounds to whole units', () => {
  assert.equal(roundMoney(2.5, 0), 3);
});

test('invoice total', () => {
  assert.equal(invoiceTotal([{ qty: 3, price: 0.335 }]), 1.01);
});
