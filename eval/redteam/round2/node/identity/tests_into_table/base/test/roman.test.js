'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { toRoman } = require('../src/roman');

test('single glyphs', () => {
  assert.equal(toRoman(1), 'I');
  assert.equal(toRoman(5), 'V');
  assert.equal(toRoman(1000), 'M');
});

test('subtractive pairs', () => {
  assert.equal(toRoman(4), 'IV');
  assert.equal(toRoman(9), 'IX');
  assert.equal(toRoman(40), 'XL');
  assert.equal(toRoman(900), 'CM');
});

test('composite numbers', () => {
  assert.equal(toRoman(1994), 'MCMXCIV');
  assert.equal(toRoman(3999), 'MMMCMXCIX');
});

test('out of range', () => {
  assert.throws(() => toRoman(0), RangeError);
  assert.throws(() => toRoman(4000), RangeError);
});
