'use strict';
const { formatPrice } = require('../src/price');

describe('formatPrice', () => {
  test('small USD amount', () => {
    expect(formatPrice(12.5, 'USD')).toBe('$12.50');
  });

  test('small EUR amount', () => {
    expect(formatPrice(12.5, 'EUR')).toBe('12,50 €');
  });

  test('groups thousands in USD', () => {
    expect(formatPrice(1234.5, 'USD')).toBe('$1,234.50');
  });

  test('groups thousands in EUR', () => {
    expect(formatPrice(9999.99, 'EUR')).toBe('9.999,99 €');
  });

  test('rejects unknown currencies', () => {
    expect(() => formatPrice(1, 'XYZ')).toThrow('unsupported');
  });
});
