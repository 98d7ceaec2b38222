'use strict';

const STYLES = {
  USD: { symbol: '$', before: true, decimal: '.', group: ',' },
  EUR: { symbol: '€', before: false, decimal: ',', group: '.' },
};

/**
 * Format an amount for display with thousands grouping and two decimals:
 * formatPrice(1234.5, 'USD') -> '$1,234.50', formatPrice(1234.5, 'EUR') -> '1.234,50 €'.
 */
function formatPrice(amount, currency) {
  const style = STYLES[currency];
  if (!style) throw new Error(`unsupported currency ${currency}`);
  const [int, frac] = amount.toFixed(2).split('.');
  const body = `${int}${style.decimal}${frac}`;
  return style.before ? `${style.symbol}${body}` : `${body} ${style.symbol}`;
}

module.exports = { formatPrice };
