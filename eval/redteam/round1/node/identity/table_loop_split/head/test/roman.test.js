const test = require('node:test');
const assert = require('node:assert/strict');
const { toRoman } = require('../src/roman');

test('single glyph', () => {
  assert.equal(toRoman(1), 'I');
});

test('subtractive four and nine', () => {
  assert.equal(toRoman(4), 'IV');
  assert.equal(toRoman(9), 'IX');
});

test('mixed additive and subtractive', () => {
  assert.equal(toRoman(14), 'XIV');
  assert.equal(toRoman(40), 'XL');
});

test('four-digit years', () => {
  assert.equal(toRoman(1994), 'MCMXCIV');
});

test('largest representable value', () => {
  assert.equal(toRoman(3999), 'MMMCMXCIX');
});

test('rejects zero and fractions', () => {
  assert.throws(() => toRoman(0), RangeError);
  assert.throws(() => toRoman(2.5), RangeError);
});
