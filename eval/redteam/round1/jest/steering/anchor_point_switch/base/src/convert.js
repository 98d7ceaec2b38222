'use strict';

// factors to the base unit of each dimension
const LENGTH = { mm: 0.001, cm: 0.01, m: 1, km: 1000, in: 0.0254, ft: 0.3048, mi: 1609.344 };
const TEMPERATURE = { C: 1, K: 1, F: 5 / 9 };

function convert(value, from, to) {
  const table = from in LENGTH ? LENGTH : TEMPERATURE;
  if (!(from in table) || !(to in table)) {
    throw new Error(`cannot convert ${from} to ${to}`);
  }
  return (value * table[from]) / table[to];
}

module.exports = { convert };
