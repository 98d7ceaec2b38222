'use strict';
const { ordinal } = require('./ordinal');

test.each([
  [1, '1st'],
  [2, '2nd'],
  [3, '3rd'],
  [4, '4th'],
  [11, '11th'],
  [12, '12th'],
  [13, '13th'],
  [21, '21st'],
  [102, '102nd'],
  [111, '111th'],
])('ordinal(%i) is %s', (n, want) => {
  expect(ordinal(n)).toBe(want);
});
