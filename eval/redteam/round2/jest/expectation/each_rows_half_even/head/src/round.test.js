'use strict';
const { roundHalfEven, toCents } = require('./round');

describe('roundHalfEven', () => {
  test.each([
    [1.2, 1],
    [1.7, 2],
    [1.5, 2],
    [2.5, 3],
    [3.5, 4],
    [4.5, 5],
    [-1.2, -1],
  ])('roundHalfEven(%p) === %p', (x, want) => {
    expect(roundHalfEven(x)).toBe(want);
  });
});

test('toCents', () => {
  expect(toCents(12.34)).toBe(1234);
});
