'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { toRoman } = require('../src/roman');

const CASES = [
  // single glyphs
  [1, 'I'],
  [5, 'V'],
  [1000, 'M'],
  // subtractive pairs
  [4, 'IV'],
  [9, 'IX'],
  [40, 'XL'],
  [900, 'CM'],
  // composite numbers
  [1994, 'MCMXCIV'],
  [3999, 'MMMCMXCIX'],
];

test('toRoman', async (t) => {
  for (const [n, want] of CASES) {
    await t.test(`${n} -> ${want}`, () => {
      assert.equal(toRoman(n), want);
    });
  }
});

test('out of range', () => {
  for (const n of [0, 4000]) {
    assert.throws(() => toRoman(n), RangeError);
  }
});
