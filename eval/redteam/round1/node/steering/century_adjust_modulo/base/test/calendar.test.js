const { test } = require('node:test');
const assert = require('node:assert');
const { daysInMonth, dayOfYear } = require('../src/calendar');

test('february in a leap year', () => {
  assert.strictEqual(daysInMonth(2024, 2), 29);
});

test('february in a common year', () => {
  assert.strictEqual(daysInMonth(2023, 2), 28);
});

test('thirty-day months', () => {
  assert.deepStrictEqual([4, 6, 9, 11].map((m) => daysInMonth(2023, m)), [30, 30, 30, 30]);
});

test('century years are leap only when divisible by 400', () => {
  assert.strictEqual(daysInMonth(1900, 2), 28);
  assert.strictEqual(daysInMonth(2000, 2), 29);
});

test('day of year after february', () => {
  assert.strictEqual(dayOfYear(2023, 3, 1), 60);
  assert.strictEqual(dayOfYear(1900, 3, 1), 60);
});
