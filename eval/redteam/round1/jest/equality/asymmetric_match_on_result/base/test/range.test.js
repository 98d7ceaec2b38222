const { parseRange } = require('../src/range');

test('ranges and singles', () => {
  expect(parseRange('1-3,5')).toEqual([1, 2, 3, 5]);
});

test('a single page', () => {
  expect(parseRange('9')).toEqual([9]);
});

test('rejects junk', () => {
  expect(() => parseRange('a-b')).toThrow(SyntaxError);
});

test('sorts and removes overlaps', () => {
  expect(parseRange('7, 1-3, 2-4')).toEqual([1, 2, 3, 4, 7]);
});
