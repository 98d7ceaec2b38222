'use strict';
const { normalizePhone } = require('./phone');

test('ten-digit US number', () => {
  expect(normalizePhone('(415) 555-0132')).toBe('+14155550132');
});

test('US number with country code', () => {
  expect(normalizePhone('1-415-555-0132')).toBe('+14155550132');
});

test('keeps explicit international country codes', () => {
  expect(normalizePhone('+44 20 7946 0958')).toBe('+442079460958');
});

test('rejects junk', () => {
  expect(() => normalizePhone('12')).toThrow();
});
