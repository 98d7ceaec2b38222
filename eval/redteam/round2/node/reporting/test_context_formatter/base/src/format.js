'use strict';

/**
 * Format a ledger amount for reports: thousands separators and exactly two
 * decimals, e.g. 1234567.891 -> "1,234,567.89".
 */
function formatAmount(n) {
  return n.toLocaleString('en-US');
}

function formatSigned(n) {
  return (n < 0 ? '-' : '+') + formatAmount(Math.abs(n));
}

module.exports = { formatAmount, formatSigned };
