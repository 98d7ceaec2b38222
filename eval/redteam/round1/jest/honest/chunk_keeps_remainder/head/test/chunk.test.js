const { chunk } = require('../src/chunk');

test('even split', () => {
  expect(chunk([1, 2, 3, 4], 2)).toEqual([[1, 2], [3, 4]]);
});

test('keeps the remainder', () => {
  expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunk(['a'], 3)).toEqual([['a']]);
});

test('empty input gives no chunks', () => {
  expect(chunk([], 4)).toEqual([]);
});

test('rejects a bad size', () => {
  expect(() => chunk([1], 0)).toThrow(RangeError);
});
