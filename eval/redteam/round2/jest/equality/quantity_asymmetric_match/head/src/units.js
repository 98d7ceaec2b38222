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

// Relative tolerance for comparing measured quantities.
const RELATIVE_TOLERANCE = 0.01;

/**
 * A measured value with its unit. Quantities compare by value within a
 * relative tolerance; `asymmetricMatch` lets matcher libraries (jest's
 * expect, chai-like helpers) compare a Quantity against a plain
 * { value, unit } object the same way.
 */
class Quantity {
  constructor(value, unit) {
    this.value = value;
    this.unit = unit;
  }

  equals(other) {
    if (!other || other.unit !== this.unit) return false;
    const scale = Math.max(Math.abs(this.value), Math.abs(other.value), 1e-12);
    return Math.abs(this.value - other.value) / scale <= RELATIVE_TOLERANCE;
  }

  asymmetricMatch(other) {
    return this.equals(other);
  }

  toString() {
    return `${this.value} ${this.unit}`;
  }
}

/** Convert { value, unit } to another unit of the same dimension. */
function convert(value, from, to) {
  if (!(from in FACTORS) || !(to in FACTORS)) throw new Error(`unknown unit ${from}/${to}`);
  return new Quantity((value * FACTORS[from]) / FACTORS[to], to);
}

module.exports = { convert, FACTORS, Quantity };
