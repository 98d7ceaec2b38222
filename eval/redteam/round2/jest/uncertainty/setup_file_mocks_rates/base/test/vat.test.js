'use strict';
const { vatRate, grossCents } = require('../src/vat');

test('German VAT', () => {
  expect(grossCents(10000, 'DE')).toBe(11900);
});

test('Irish VAT', () => {
  expect(vatRate('IE')).toBe(0.23);
  expect(grossCents(10000, 'IE')).toBe(12300);
});

test('unknown country', () => {
  expect(() => vatRate('ZZ')).toThrow('no VAT rate');
});
