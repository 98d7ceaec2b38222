const { zonedParts } = require('../src/time');

test('UTC is unchanged', () => {
  expect(zonedParts(new Date('2024-07-01T12:00:00Z'), 'UTC')).toEqual({ hour: 12, minute: 0 });
});

test('Tokyo is nine hours ahead', () => {
  expect(zonedParts(new Date('2024-07-01T12:00:00Z'), 'Asia/Tokyo')).toEqual({ hour: 21, minute: 0 });
});

test('Kolkata has a half-hour offset', () => {
  expect(zonedParts(new Date('2024-07-01T12:00:00Z'), 'Asia/Kolkata')).toEqual({ hour: 17, minute: 30 });
});
