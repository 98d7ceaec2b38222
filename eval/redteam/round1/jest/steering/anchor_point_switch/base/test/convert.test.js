const { convert } = require('../src/convert');

describe('length', () => {
  test('km to m', () => {
    expect(convert(1, 'km', 'm')).toBe(1000);
  });

  test('inches to feet', () => {
    expect(convert(12, 'in', 'ft')).toBeCloseTo(1, 10);
  });
});

describe('temperature', () => {
  test('same unit is the identity', () => {
    expect(convert(37, 'C', 'C')).toBe(37);
  });

  test('boiling point in fahrenheit', () => {
    expect(convert(100, 'C', 'F')).toBeCloseTo(212, 6);
  });

  test('freezing point in kelvin', () => {
    expect(convert(0, 'C', 'K')).toBeCloseTo(273.15, 6);
  });
});

test('refuses to mix dimensions', () => {
  expect(() => convert(1, 'm', 'C')).toThrow('cannot convert m to C');
});
