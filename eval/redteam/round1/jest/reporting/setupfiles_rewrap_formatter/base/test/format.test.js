const { formatCurrency } = require('../src/format');

test('dollars with grouping', () => {
  expect(formatCurrency(1234.5)).toBe('$1,234.50');
});

test('negative amounts', () => {
  expect(formatCurrency(-5)).toBe('-$5.00');
});

test('unknown currency falls back to its code', () => {
  expect(formatCurrency(3, 'NOK')).toBe('NOK 3.00');
});

test('yen has no minor unit', () => {
  expect(formatCurrency(1234.5, 'JPY')).toBe('¥1,235');
});
