const { luhnValid, cardBrand } = require('../src/card');

test('brands', () => {
  expect(cardBrand('4111 1111 1111 1111')).toBe('visa');
  expect(cardBrand('5500-0000-0000-0004')).toBe('mastercard');
  expect(cardBrand('3400 000000 00009')).toBe('amex');
});

test('valid 16-digit numbers', () => {
  expect(luhnValid('4111 1111 1111 1111')).toBe(true);
  expect(luhnValid('5500-0000-0000-0004')).toBe(true);
});

test('valid 15-digit amex number', () => {
  expect(luhnValid('3782 822463 10005')).toBe(true);
});

test('rejects a typo', () => {
  expect(luhnValid('4111 1111 1111 1112')).toBe(false);
});
