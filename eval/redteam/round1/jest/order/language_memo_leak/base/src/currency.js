'use strict';

const BY_REGION = { US: 'USD', DE: 'EUR', FR: 'EUR', JP: 'JPY', GB: 'GBP', CH: 'CHF' };

/**
 * Currency for a BCP 47 tag ("en-US", "ja_JP"). Bare language tags ("de")
 * resolve through the language's most likely region.
 */
function resolveCurrency(tag) {
  const [, ...rest] = String(tag).split(/[-_]/);
  const region = rest.find((p) => /^[A-Za-z]{2}$/.test(p));
  if (!region) return null;
  return BY_REGION[region.toUpperCase()] ?? null;
}

module.exports = { resolveCurrency };
