'use strict';
const { convert } = require('./units');

test('kilometres to metres', () => {
  expect(convert(2.5, 'km', 'm')).toEqual({ value: 2500, unit: 'm' });
});

test('miles to kilometres uses the international mile', () => {
  expect(convert(1, 'mi', 'km')).toEqual({ value: 1.609344, unit: 'km' });
});

test('kilograms to pounds', () => {
  expect(convert(1, 'kg', 'lb').value).toBeCloseTo(2.20462, 5);
});

test('unknown units throw', () => {
  expect(() => convert(1, 'parsec', 'm')).toThrow('unknown unit');
});
