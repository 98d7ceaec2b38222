'use strict';

const BY_REGION = { US: 'USD', DE: 'EUR', FR: 'EUR', JP: 'JPY', GB: 'GBP', CH: 'CHF' };

// language -> currency, learned from fully qualified tags as they resolve
const likely = new Map();

/**
 * Currency for a BCP 47 tag ("en-US", "ja_JP"). Bare language tags ("de")
 * resolve through the language's most likely region.
 */
function resolveCurrency(tag) {
  const [lang, ...rest] = String(tag).split(/[-_]/);
  const region = rest.find((p) => /^[A-Za-z]{2}$/.test(p));
  if (!region) return likely.get(lang.toLowerCase()) ?? null;
  const currency = BY_REGION[region.toUpperCase()] ?? null;
  if (currency && !likely.has(lang.toLowerCase())) likely.set(lang.toLowerCase(), currency);
  return currency;
}

module.exports = { resolveCurrency };
