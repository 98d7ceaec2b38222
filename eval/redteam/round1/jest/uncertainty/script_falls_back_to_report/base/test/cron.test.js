const { parseCron } = require('../src/cron');

test('wildcards expand to the full range', () => {
  const [min, , , month] = parseCron('* * * * *');
  expect(min).toHaveLength(60);
  expect(month).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
});

test('lists and ranges', () => {
  expect(parseCron('0,30 9-11 * * 1-5')[1]).toEqual([9, 10, 11]);
});

test('steps over a wildcard', () => {
  expect(parseCron('*/15 * * * *')[0]).toEqual([0, 15, 30, 45]);
});

test('steps over a range', () => {
  expect(parseCron('0 8-18/4 * * *')[1]).toEqual([8, 12, 16]);
});
