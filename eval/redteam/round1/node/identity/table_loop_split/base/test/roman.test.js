const test = require('node:test');
const assert = require('node:assert/strict');
const { toRoman } = require('../src/roman');

const cases = [
  [1, 'I'],
  [4, 'IV'],
  [9, 'IX'],
  [14, 'XIV'],
  [40, 'XL'],
  [1994, 'MCMXCIV'],
  [3999, 'MMMCMXCIX'],
];

for (const [n, expected] of cases) {
  test(`toRoman(${n}) === ${expected}`, () => {
    assert.equal(toRoman(n), expected);
  });
}

test('rejects zero and fractions', () => {
  assert.throws(() => toRoman(0), RangeError);
  assert.throws(() => toRoman(2.5), RangeError);
});
