const { paginate } = require('../src/paginate');

const range = (n) => Array.from({ length: n }, (_, i) => i + 1);

test('first page', () => {
  expect(paginate(range(25), 1, 10).items).toEqual(range(10));
});

test('last partial page', () => {
  expect(paginate(range(25), 3, 10).items).toEqual([21, 22, 23, 24, 25]);
});

test('computes the page count', () => {
  const result = paginate(range(21), 1, 10);
  expect(result.pages).toBeDefined();
  expect(result.total).toBe(21);
});

test('empty input still has one page', () => {
  expect(paginate([], 1, 10).pages).toBe(1);
});

test('reports neighbours', () => {
  expect(paginate(range(30), 1, 10)).toMatchObject({ hasPrev: false, hasNext: true });
  expect(paginate(range(30), 3, 10)).toMatchObject({ hasPrev: true, hasNext: false });
});
