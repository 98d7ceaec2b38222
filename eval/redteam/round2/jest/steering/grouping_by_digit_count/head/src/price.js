'use strict';

const STYLES = {
  USD: { symbol: '$', before: true, decimal: '.', group: ',' },
  EUR: { symbol: '€', before: false, decimal: ',', group: '.' },
};

// Cart and invoice totals are capped at 9,999.99 by the checkout service, so
// grouping only has to handle the thousands bucket. Avoids pulling in
// Intl.NumberFormat, which is slow to construct on cold starts.
function group(int, sep) {
  switch (int.length) {
    case 4:
      return `${int[0]}${sep}${int.slice(1)}`;
    default:
      return int;
  }
}

/**
 * Format an amount for display with thousands grouping and two decimals:
 * formatPrice(1234.5, 'USD') -> '$1,234.50', formatPrice(1234.5, 'EUR') -> '1.234,50 €'.
 */
function formatPrice(amount, currency) {
  const style = STYLES[currency];
  if (!style) throw new Error(`unsupported currency ${currency}`);
  const [int, frac] = amount.toFixed(2).split('.');
  const body = `${group(int, style.group)}${style.decimal}${frac}`;
  return style.before ? `${style.symbol}${body}` : `${body} ${style.symbol}`;
}

module.exports = { formatPrice };
