const { formatDate } = require('../src/format');

const d = new Date('2024-03-05T10:00:00Z');

test('default ISO pattern', () => {
  expect(formatDate(d)).toBe('2024-03-05');
});

test('custom pattern', () => {
  expect(formatDate(d, 'DD.MM.YYYY')).toBe('05.03.2024');
});
