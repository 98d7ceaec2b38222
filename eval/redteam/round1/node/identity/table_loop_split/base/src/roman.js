'use strict';

const TABLE = [
  [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'],
  [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'],
  [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
];

function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError(`out of range: ${n}`);
  let out = '';
  for (const [value, glyph] of TABLE) {
    while (n >= value) {
      out += glyph;
      n -= value;
    }
  }
  return out;
}

module.exports = { toRoman };
