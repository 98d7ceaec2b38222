'use strict';
const { ordinal } = require('./ordinal');

describe('ordinal', () => {
  test('first few numbers', () => {
    expect(ordinal(1)).toBe('1st');
    expect(ordinal(2)).toBe('2nd');
    expect(ordinal(3)).toBe('3rd');
    expect(ordinal(4)).toBe('4th');
  });

  test('teens always take "th"', () => {
    expect(ordinal(11)).toBe('11th');
    expect(ordinal(12)).toBe('12th');
    expect(ordinal(13)).toBe('13th');
  });

  test('larger numbers follow the last digit', () => {
    expect(ordinal(21)).toBe('21st');
    expect(ordinal(102)).toBe('102nd');
  });

  test('teens within hundreds', () => {
    expect(ordinal(111)).toBe('111th');
  });
});
