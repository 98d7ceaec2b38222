// units of each currency per 1 USD
const RATES = { USD: 1, EUR: 0.92, GBP: 0.79 };

export const money = (amount, currency) => ({ amount, currency });

export function add(a, b) {
  if (a.currency !== b.currency) throw new TypeError(`currency mismatch: ${a.currency} vs ${b.currency}`);
  return money(Math.round((a.amount + b.amount) * 100) / 100, a.currency);
}

export function convert(m, to) {
  const usd = m.amount / RATES[m.currency];
  return money(Math.round(usd * RATES[to] * 100) / 100, m.currency);
}
