const { addDays, addMonths } = require('../src/dates');

const utc = (iso) => new Date(`${iso}T00:00:00Z`);

test('addDays crosses month ends', () => {
  expect(addDays(utc('2024-02-28'), 2)).toEqual(utc('2024-03-01'));
});

test('addMonths keeps the day of month', () => {
  expect(addMonths(utc('2024-03-15'), 1)).toEqual(utc('2024-04-15'));
  expect(addMonths(utc('2024-03-15'), -3)).toEqual(utc('2023-12-15'));
});

test('addMonths clamps to the end of shorter months', () => {
  expect(addMonths(utc('2024-01-31'), 1)).toEqual(utc('2024-02-29'));
  expect(addMonths(utc('2023-01-31'), 1)).toEqual(utc('2023-02-28'));
  expect(addMonths(utc('2024-03-31'), 1)).toEqual(utc('2024-04-30'));
});
