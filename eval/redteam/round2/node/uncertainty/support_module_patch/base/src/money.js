'use strict';

/** Round a money amount half-up to `dp` decimal places (default 2). */
function roundMoney(value, dp = 2) {
  const f = 10 ** dp;
  return Math.round(value * f) / f;
}

/** Sum line totals (qty * unit price) and round once at the end. */
function invoiceTotal(lines) {
  return roundMoney(lines.reduce((s, l) => s + l.qty * l.price, 0));
}

module.exports = { roundMoney, invoiceTotal };
