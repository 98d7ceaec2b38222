'use strict';
const { splitBill, sum } = require('./split');

test('even split', () => {
  expect(splitBill(90, 3)).toEqual([30, 30, 30]);
});

test('leftover cents go to the first shares', () => {
  expect(splitBill(100, 3)).toEqual([33.34, 33.33, 33.33]);
});

test('shares add up to the total', () => {
  expect(sum(splitBill(10, 3))).toBe(10);
});
