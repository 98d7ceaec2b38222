'use strict';

const rates = require('./rates');

function vatRate(country) {
  const rate = rates[country];
  if (rate === undefined) throw new Error(`no VAT rate for ${country}`);
  return rate;
}

/** Gross price in cents for a net price in cents. */
function grossCents(netCents, country) {
  return Math.round(netCents * (1 + vatRate(country)));
}

module.exports = { vatRate, grossCents };
