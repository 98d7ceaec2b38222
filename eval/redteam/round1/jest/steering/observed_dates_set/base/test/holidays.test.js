const { isHoliday, isBusinessDay } = require('../src/holidays');

const d = (iso) => new Date(`${iso}T12:00:00Z`);

test('fixed-date holidays', () => {
  expect(isHoliday(d('2024-01-01'))).toBe(true);
  expect(isHoliday(d('2024-07-04'))).toBe(true);
});

test('an ordinary tuesday', () => {
  expect(isHoliday(d('2024-03-12'))).toBe(false);
  expect(isBusinessDay(d('2024-03-12'))).toBe(true);
});

test('weekends are not business days', () => {
  expect(isBusinessDay(d('2024-03-16'))).toBe(false);
});

test('thanksgiving is the fourth thursday of november', () => {
  expect(isHoliday(d('2023-11-23'))).toBe(true);
  expect(isHoliday(d('2024-11-28'))).toBe(true);
});

test('memorial day is the last monday of may', () => {
  expect(isHoliday(d('2024-05-27'))).toBe(true);
  expect(isBusinessDay(d('2024-05-27'))).toBe(false);
});
