'use strict';
const { mergeIntervals } = require('./intervals');

test('merges overlaps', () => {
  expect(mergeIntervals([[1, 4], [2, 6], [8, 9]])).toEqual([[1, 6], [8, 9]]);
});

test('merges touching intervals', () => {
  expect(mergeIntervals([[1, 3], [3, 5]])).toEqual([[1, 5]]);
});

test('unsorted input', () => {
  expect(mergeIntervals([[5, 7], [1, 2]])).toEqual([[1, 2], [5, 7]]);
});
