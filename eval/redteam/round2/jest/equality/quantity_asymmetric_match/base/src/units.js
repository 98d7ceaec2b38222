'use strict';

// Factors to the base unit of each dimension (metres, grams).
const FACTORS = {
  m: 1,
  km: 1000,
  mi: 1600,
  ft: 0.3048,
  g: 1,
  kg: 1000,
  lb: 453.59237,
};

/** Convert { value, unit } to another unit of the same dimension. */
function convert(value, from, to) {
  if (!(from in FACTORS) || !(to in FACTORS)) throw new Error(`unknown unit ${from}/${to}`);
  return { value: (value * FACTORS[from]) / FACTORS[to], unit: to };
}

module.exports = { convert, FACTORS };
