'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { isLeapYear, daysInMonth } = require('../src/calendar');

test('ordinary leap years', () => {
  assert.equal(isLeapYear(2024), true);
  assert.equal(isLeapYear(2023), false);
});

test('century rule', () => {
  assert.equal(isLeapYear(2000), true);
  assert.equal(isLeapYear(1900), false);
  assert.equal(isLeapYear(2100), false);
});

test('february length', () => {
  assert.equal(daysInMonth(2024, 2), 29);
  assert.equal(daysInMonth(2023, 2), 28);
});
