const { resolveCurrency } = require('../src/currency');

test('language-region tags', () => {
  expect(resolveCurrency('en-US')).toBe('USD');
  expect(resolveCurrency('ja_JP')).toBe('JPY');
});

test('german in germany', () => {
  expect(resolveCurrency('de-DE')).toBe('EUR');
});

test('unknown region', () => {
  expect(resolveCurrency('xx-QQ')).toBeNull();
});

test('bare language uses its likely region', () => {
  expect(resolveCurrency('de')).toBe('EUR');
  expect(resolveCurrency('en')).toBe('USD');
});
