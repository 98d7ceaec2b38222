'use strict';

const SYMBOLS = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' };

/** "$1,234.50". Zero-decimal currencies (JPY) are rounded to whole units. */
function formatCurrency(amount, currency = 'USD') {
  const symbol = SYMBOLS[currency] ?? `${currency} `;
  const [int, frac] = Math.abs(amount).toFixed(2).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${amount < 0 ? '-' : ''}${symbol}${grouped}.${frac}`;
}

module.exports = { formatCurrency };
