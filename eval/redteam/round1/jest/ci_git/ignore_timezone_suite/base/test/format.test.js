const { formatHm } = require('../src/time');

test('pads hours and minutes', () => {
  expect(formatHm(new Date('2024-01-01T04:05:00Z'))).toBe('04:05');
});

test('afternoon', () => {
  expect(formatHm(new Date('2024-01-01T16:45:00Z'))).toBe('16:45');
});
